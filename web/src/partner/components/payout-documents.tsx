import Download from "@mui/icons-material/Download";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { useTranslation } from "react-i18next";

import { errorText } from "../api/client";
import { EXPORTS } from "../api/exports";
import { DOWNLOADS, type PayoutDocument, useApplicationDocuments, useBatchDocuments } from "../api/payout-documents";
import type { BatchDetail } from "../api/settlement-batches";
import { useExportTexts } from "../texts/exports";
import { day, euros } from "../lib/format";
import { ServerGrid } from "./server-grid";

/** The document's downloads: the PDF, and a credit note's e-invoice XML (EN 16931). */
export function DocumentLinks({ document }: { document: PayoutDocument }) {
  const { t } = useTranslation();
  return (
    <Stack direction="row" spacing={1.5} component="span" sx={{ alignItems: "center" }}>
      <Link
        href={DOWNLOADS.pdf(document)}
        download
        aria-label={t("payout.pdfOf", { number: document.number })}
        data-testid={`document-pdf-${document.id}`}
      >
        {t("payout.pdf")}
      </Link>
      {document.has_einvoice && (
        <Link
          href={DOWNLOADS.xml(document)}
          download
          aria-label={t("payout.xmlOf", { number: document.number })}
          data-testid={`document-xml-${document.id}`}
        >
          {t("payout.xml")}
        </Link>
      )}
    </Stack>
  );
}

/**
 * A batch's credit notes and payout statements (made when it is paid), each with its PDF and
 * e-invoice; the batch's ZIP of them all, and its statement for the accountant (CSV, PDF).
 */
export function BatchDocuments({ batch }: { batch: BatchDetail }) {
  const { t, i18n } = useTranslation();
  const x = useExportTexts();
  const documents = useBatchDocuments(batch.id);
  const language = i18n.language;
  const numbers = new Map(
    [...batch.items, ...batch.charge_card_items]
      .filter((item) => item.application.id !== null)
      .map((item) => [item.application.id, `${item.application.sequence}/${item.application.legislation_year}`]),
  );
  const rows = documents.data?.results ?? [];
  const money = (key: "net" | "vat" | "gross") => (_value: unknown, row: PayoutDocument) => euros(row[key], language);
  const columns: GridColDef<PayoutDocument>[] = [
    { field: "number", headerName: t("payout.number"), minWidth: 190, flex: 1 },
    {
      field: "kind",
      headerName: t("payout.kind"),
      width: 150,
      valueGetter: (_value, row) => t(`payout.kinds.${row.kind}`),
    },
    {
      field: "application_id",
      headerName: t("payout.application"),
      width: 115,
      valueGetter: (_value, row) => (row.application_id === null ? "–" : (numbers.get(row.application_id) ?? "–")),
    },
    {
      field: "issue_date",
      headerName: t("payout.issueDate"),
      width: 110,
      valueFormatter: (value: string) => day(value, language),
    },
    {
      field: "net",
      headerName: t("payout.net"),
      width: 100,
      align: "right",
      headerAlign: "right",
      valueGetter: money("net"),
    },
    {
      field: "vat",
      headerName: t("payout.vat"),
      width: 90,
      align: "right",
      headerAlign: "right",
      valueGetter: money("vat"),
    },
    {
      field: "gross",
      headerName: t("payout.gross"),
      width: 105,
      align: "right",
      headerAlign: "right",
      valueGetter: money("gross"),
    },
    {
      field: "downloads",
      headerName: t("payout.download"),
      width: 190,
      sortable: false,
      renderCell: ({ row }) => <DocumentLinks document={row} />,
    },
  ];

  // the batch's statement in three formats, and the documents' ZIP once there are documents
  const downloads: [string, string, string][] = [
    ["statement-csv", DOWNLOADS.statementCsv(batch.id), t("payout.statementCsv")],
    ["statement-xlsx", EXPORTS.batchXlsx(batch.id), x("statementXlsx")],
    ["statement-pdf", DOWNLOADS.statementPdf(batch.id), t("payout.statementPdf")],
    ...(rows.length > 0
      ? [["documents-zip", DOWNLOADS.zip(batch.id), t("payout.documentsZip")] as [string, string, string]]
      : []),
  ];
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="batch-documents">
      <Typography variant="h3" component="h2" sx={{ mb: 0.5 }}>
        {t("payout.documents")}
      </Typography>
      <Typography variant="body2" sx={{ color: "text.secondary", mb: 1.5 }}>
        {t("payout.documentsText")}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mb: 2 }}>
        {downloads.map(([testid, href, label]) => (
          <Button key={testid} variant="outlined" startIcon={<Download />} href={href} download data-testid={testid}>
            {label}
          </Button>
        ))}
      </Stack>
      {documents.isError && (
        <Alert severity="error" data-testid="documents-error">
          {errorText(documents.error, t)}
        </Alert>
      )}
      {documents.isSuccess && rows.length === 0 && (
        <Typography variant="body2" data-testid="documents-none">
          {batch.status === "new" ? t("payout.documentsNone") : t("payout.documentsEmpty")}
        </Typography>
      )}
      {rows.length > 0 && (
        <Box data-testid="documents-list">
          <ServerGrid<PayoutDocument>
            label={t("payout.documents")}
            rows={rows}
            columns={columns.map((column) => ({ ...column, sortable: false }))}
            paginationMode="client"
            initialState={{ pagination: { paginationModel: { pageSize: 25 } } }}
            pageSizeOptions={[25, 50, 100]}
          />
        </Box>
      )}
    </Paper>
  );
}

/** The statuses an application has a payout document in (or had one before its payout failed). */
export const PAID_STATES = new Set(["qa_paid", "qa_completed", "qa_payment_failure", "qa_to_pay", "qa_to_settle"]);

/** An application's credit note or payout statement, a section of its drawer (back office, partner
 * admins), shown once the call answered. */
export function ApplicationDocuments({ applicationId }: { applicationId: number }) {
  const { t, i18n } = useTranslation();
  const documents = useApplicationDocuments(applicationId);
  // A refusal (a viewer) or a missing call shows nothing: the drawer is about the application.
  if (!documents.isSuccess) return null;
  const rows = documents.data.results;
  return (
    <Box component="section" sx={{ mt: 2 }} data-testid="application-documents">
      <Typography variant="h4" component="h3" sx={{ mb: 1 }}>
        {t("payout.applicationDocuments")}
      </Typography>
      {rows.length === 0 ? (
        <Typography variant="body2">{t("payout.applicationDocumentsNone")}</Typography>
      ) : (
        <Box component="ul" sx={{ listStyle: "none", p: 0, m: 0 }}>
          {rows.map((document) => (
            <Box
              component="li"
              key={document.id}
              sx={{ display: "flex", flexWrap: "wrap", gap: 1.5, alignItems: "baseline", py: 0.5 }}
              data-testid={`application-document-${document.id}`}
            >
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {t(`payout.kinds.${document.kind}`)} {document.number}
              </Typography>
              <Typography variant="body2" sx={{ color: "text.secondary" }}>
                {day(document.issue_date, i18n.language)} · {euros(document.gross, i18n.language)}
              </Typography>
              <DocumentLinks document={document} />
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
}
