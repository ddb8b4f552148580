import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import FormHelperText from "@mui/material/FormHelperText";
import LinearProgress from "@mui/material/LinearProgress";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link as RouterLink } from "react-router";

import { errorText, fieldErrors } from "../api/client";
import { type ReturnResult, useReturnUpload } from "../api/payout-documents";
import { PARTNER_PATHS } from "../lib/paths";

const MAX_BYTES = 10 * 1024 * 1024;

/** The browser's own checks before anything is sent: an XML file of at most 10 MB. */
export function returnFileProblem(file: File | null): string | null {
  if (!file) return "payout.returnsMissing";
  if (!/\.xml$/i.test(file.name) && !/xml/.test(file.type)) return "payout.returnsType";
  if (file.size > MAX_BYTES) return "payout.returnsSize";
  return null;
}

function ReturnResultView({ result, onClose }: { result: ReturnResult; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Stack spacing={2} data-testid="returns-result">
      <Alert severity={result.failed.length ? "warning" : "info"} data-testid="returns-summary">
        {t("payout.returnsResult", { kind: result.kind, returned: result.returned, failed: result.failed.length })}
      </Alert>
      {result.failed.length > 0 && (
        <Box>
          <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
            {t("payout.returnsFailed")}
          </Typography>
          <TableContainer tabIndex={0} role="region" aria-label={t("payout.returnsFailed")}>
            <Table size="small" data-testid="returns-failed">
              <TableHead>
                <TableRow>
                  <TableCell>{t("payout.batch")}</TableCell>
                  <TableCell>{t("payout.endToEnd")}</TableCell>
                  <TableCell>{t("payout.code")}</TableCell>
                  <TableCell>{t("payout.reason")}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {result.failed.map((row) => (
                  <TableRow key={row.item} data-testid={`returns-item-${row.item}`}>
                    <TableCell>
                      <RouterLink to={PARTNER_PATHS.settlementBatch(row.batch)} onClick={onClose}>
                        {t("payout.toBatch")} {row.batch}
                      </RouterLink>
                    </TableCell>
                    <TableCell sx={{ wordBreak: "break-all" }}>{row.end_to_end_id}</TableCell>
                    <TableCell>{row.code || "–"}</TableCell>
                    <TableCell>{row.reason}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <Typography variant="body2" sx={{ mt: 1, color: "text.secondary" }}>
            {t("payout.failedHint")}
          </Typography>
        </Box>
      )}
      {result.paid.length > 0 && (
        <Typography variant="body2" data-testid="returns-paid">
          {t("payout.returnsPaid")}:{" "}
          {result.paid.map((row, index) => (
            <span key={row.item}>
              {index > 0 && ", "}
              <RouterLink to={PARTNER_PATHS.settlementBatch(row.batch)} onClick={onClose}>
                {row.end_to_end_id}
              </RouterLink>{" "}
              ({row.code})
            </span>
          ))}
        </Typography>
      )}
      {result.already_failed.length > 0 && (
        <Typography variant="body2" data-testid="returns-already">
          {t("payout.returnsAlready")}: {result.already_failed.join(", ")}
        </Typography>
      )}
      {result.unknown.length > 0 && (
        <Typography variant="body2" data-testid="returns-unknown">
          {t("payout.returnsUnknown")}: {result.unknown.slice(0, 50).join(", ")}
          {result.unknown.length > 50 ? " …" : ""}
        </Typography>
      )}
    </Stack>
  );
}

/** The bank's camt.054 or pain.002: checked in the browser, sent, and what it did shown item by item. */
export function ReturnUploadDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const upload = useReturnUpload();
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const send = () => {
    const found = returnFileProblem(file);
    setProblem(found);
    if (found || !file) return;
    upload.mutate(file);
  };
  const serverField = upload.isError ? fieldErrors(upload.error).file : undefined;
  const fileError = problem ? t(problem) : serverField;

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" aria-labelledby="returns-title" data-testid="returns-dialog">
      <DialogTitle id="returns-title">{t("payout.returnsTitle")}</DialogTitle>
      <DialogContent>
        {upload.isSuccess ? (
          <ReturnResultView result={upload.data} onClose={onClose} />
        ) : (
          <Stack spacing={2}>
            <DialogContentText>{t("payout.returnsText")}</DialogContentText>
            <Box>
              <Stack direction="row" spacing={1} sx={{ alignItems: "center" }}>
                <Button variant="outlined" component="label">
                  {t("payout.returnsChoose")}
                  <input
                    hidden
                    type="file"
                    accept=".xml,application/xml,text/xml"
                    aria-label={t("payout.returnsFile")}
                    data-testid="returns-file"
                    onChange={(event) => {
                      setFile(event.target.files?.[0] ?? null);
                      setProblem(null);
                      upload.reset();
                      event.target.value = "";
                    }}
                  />
                </Button>
                <Typography variant="body2" sx={{ wordBreak: "break-all" }} data-testid="returns-file-name">
                  {file?.name ?? ""}
                </Typography>
              </Stack>
              {fileError && (
                <FormHelperText error data-testid="returns-file-error">
                  {fileError}
                </FormHelperText>
              )}
            </Box>
            {upload.isPending && <LinearProgress aria-label={t("area.loading")} />}
            {upload.isError && !serverField && (
              <Alert severity="error" data-testid="returns-error">
                {errorText(upload.error, t)}
              </Alert>
            )}
          </Stack>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="returns-close">
          {upload.isSuccess ? t("payout.close") : t("form.cancel")}
        </Button>
        {!upload.isSuccess && (
          <Button variant="contained" onClick={send} disabled={upload.isPending} data-testid="returns-send">
            {t("payout.returnsSend")}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
