import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useTranslation } from "react-i18next";

import { DOWNLOADS } from "../api/payout-documents";

/** The month before `today` as YYYY-MM: the statement an accountant asks for at the start of a month. */
export function previousMonth(today: Date = new Date()): string {
  const month = new Date(today.getFullYear(), today.getMonth() - 1, 1);
  return `${month.getFullYear()}-${String(month.getMonth() + 1).padStart(2, "0")}`;
}

/**
 * The monthly sub-partner commission statement (issue 46): the attributed applications paid in
 * the month times each sub-partner's share, as CSV (Excel-safe) and PDF. Partner admins only,
 * as the server has it.
 */
export function CommissionStatement() {
  const { t } = useTranslation();
  const [month, setMonth] = useState(previousMonth);
  const valid = /^\d{4}-(0[1-9]|1[0-2])$/.test(month);
  return (
    <Paper variant="outlined" sx={{ p: 2, mt: 3 }} data-testid="commission-statement">
      <Typography variant="h6" component="h2" gutterBottom>
        {t("payout.commission")}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {t("payout.commissionText")}
      </Typography>
      <Box sx={{ display: "flex", flexWrap: "wrap", gap: 2, alignItems: "center" }}>
        <TextField
          type="month"
          size="small"
          label={t("payout.month")}
          value={month}
          onChange={(event) => setMonth(event.target.value)}
          error={!valid}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { "data-testid": "commission-month" } }}
        />
        <Button
          variant="outlined"
          href={valid ? DOWNLOADS.commissionCsv(month) : undefined}
          disabled={!valid}
          data-testid="commission-csv"
        >
          CSV
        </Button>
        <Button
          variant="outlined"
          href={valid ? DOWNLOADS.commissionPdf(month) : undefined}
          disabled={!valid}
          data-testid="commission-pdf"
        >
          PDF
        </Button>
      </Box>
    </Paper>
  );
}
