import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Link from "@mui/material/Link";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link as RouterLink } from "react-router";

import {
  type ReviewField,
  type ReviewReportRow,
  type ReviewRow,
  useReviewCorrect,
  useReviewQueue,
  useReviewReport,
} from "../api/applications";
import { can } from "../api/auth";
import { errorText, fieldErrors } from "../api/client";
import { FieldCrop, ruleLabel } from "../components/field-crop";
import { Loading } from "../components/layout";
import { QueryError } from "../components/query-error";
import { GridEmpty, ServerGrid } from "../components/server-grid";
import { day } from "../lib/format";
import { PARTNER_PATHS } from "../lib/paths";
import { useStaffMember } from "../lib/staff-context";

const CODES = ["E", "3", "B", "I", "J", "10", "P.3", "D.1", "D.3", "A", "2.1"] as const;
const PAGE_SIZE = 25;

/** One field to look at: an application's unsure field, in the queue's order. */
type Item = { key: string; row: ReviewRow; field: ReviewField };
type Outcome = { state: "saved" | "skipped" } | { state: "error"; message: string };

const shown = (field: ReviewField, language: string) =>
  !field.value ? "" : field.code === "B" || field.code === "I" ? day(field.value, language) : field.value;

/** The input's first value: the value read, a date as DD.MM.YYYY (what the server takes). */
const editable = (field: ReviewField) => {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(field.value ?? "");
  return date ? `${date[3]}.${date[2]}.${date[1]}` : (field.value ?? "");
};

/** The review of the reader's unsure fields, keyboard first: each field's crop beside the value
 * read and an input; Enter saves and moves on, Escape skips. Below, the corrections by rule. */
export function Review() {
  const { t } = useTranslation();
  const me = useStaffMember();
  const [field, setField] = useState("");
  const [page, setPage] = useState(1);
  const query = useMemo(() => {
    const next = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
    if (field) next.set("field", field);
    return next;
  }, [page, field]);
  const queue = useReviewQueue(query);
  const pages = Math.max(1, Math.ceil((queue.data?.count ?? 0) / PAGE_SIZE));
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {t("review.title")}
      </Typography>
      <Typography variant="body2" sx={{ mb: 2, color: "text.secondary" }}>
        {t("review.text")}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mb: 2, alignItems: { sm: "center" } }}>
        <TextField
          select
          size="small"
          label={t("review.field")}
          value={field}
          onChange={(event) => {
            setField(event.target.value);
            setPage(1);
          }}
          sx={{ minWidth: 220 }}
          slotProps={{ htmlInput: { "data-testid": "review-field-filter" } }}
        >
          <MenuItem value="">{t("review.allFields")}</MenuItem>
          {CODES.map((code) => (
            <MenuItem key={code} value={code}>
              {t(`reading.fields.${code}`)}
            </MenuItem>
          ))}
        </TextField>
        <Button onClick={() => void queue.refetch()} data-testid="review-reload">
          {t("review.reload")}
        </Button>
      </Stack>
      {!can.move(me.role) && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {t("review.readOnly")}
        </Alert>
      )}
      {queue.isPending ? (
        <Loading />
      ) : queue.isError ? (
        <QueryError error={queue.error} retry={() => void queue.refetch()} />
      ) : (
        <ReviewList
          // a new page or filter starts a fresh pass
          key={query.toString() + String(queue.dataUpdatedAt)}
          rows={queue.data.results}
          canCorrect={can.move(me.role)}
        />
      )}
      {pages > 1 && (
        <Stack direction="row" spacing={1} sx={{ mt: 2, alignItems: "center" }}>
          <Button disabled={page <= 1} onClick={() => setPage(page - 1)} data-testid="review-previous">
            {t("review.previous")}
          </Button>
          <Typography variant="body2">{t("review.pageOf", { page, pages })}</Typography>
          <Button disabled={page >= pages} onClick={() => setPage(page + 1)} data-testid="review-next">
            {t("review.next")}
          </Button>
        </Stack>
      )}
      <ReviewReport />
    </Box>
  );
}

function ReviewList({ rows, canCorrect }: { rows: ReviewRow[]; canCorrect: boolean }) {
  const { t } = useTranslation();
  const items = useMemo<Item[]>(
    () => rows.flatMap((row) => row.fields.map((field) => ({ key: `${row.id}-${field.code}`, row, field }))),
    [rows],
  );
  const inputs = useRef(new Map<string, HTMLInputElement>());
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  // the outcomes as of now, for the callbacks of a save that ends after further keys
  const outcomesNow = useRef<Record<string, Outcome>>({});
  const record = (key: string, outcome: Outcome) => {
    outcomesNow.current = { ...outcomesNow.current, [key]: outcome };
    setOutcomes(outcomesNow.current);
    return outcomesNow.current;
  };
  const [finished, setFinished] = useState(false);
  const finishedRef = useRef<HTMLDivElement>(null);
  const correct = useReviewCorrect();

  // The first field has the focus: the person types at once.
  useEffect(() => {
    if (items.length > 0 && canCorrect) inputs.current.get(items[0].key)?.focus();
  }, [items, canCorrect]);
  useEffect(() => {
    if (finished) finishedRef.current?.focus();
  }, [finished]);

  const next = (index: number, done: Record<string, Outcome>) => {
    const following = items.slice(index + 1).find((item) => done[item.key]?.state !== "saved");
    if (following) inputs.current.get(following.key)?.focus();
    else setFinished(true);
  };
  const keyDown = (index: number, event: KeyboardEvent, value: string) => {
    const item = items[index];
    if (event.key === "Escape") {
      event.preventDefault();
      next(index, record(item.key, { state: "skipped" }));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (correct.isPending) return;
      correct.mutate(
        { id: item.row.id, field: item.field.code, value },
        {
          onSuccess: () => next(index, record(item.key, { state: "saved" })),
          onError: (error) => {
            const server = fieldErrors(error);
            const message = server.value ?? server.field ?? errorText(error, t);
            record(item.key, { state: "error", message });
          },
        },
      );
    }
  };

  if (items.length === 0) {
    return (
      <Typography variant="body2" data-testid="review-empty">
        {t("review.empty")}
      </Typography>
    );
  }
  return (
    <Box>
      <Box component="ol" sx={{ listStyle: "none", p: 0, m: 0 }} data-testid="review-list">
        {items.map((item, index) => (
          <ReviewItem
            key={item.key}
            item={item}
            outcome={outcomes[item.key]}
            canCorrect={canCorrect}
            pending={correct.isPending && correct.variables?.id === item.row.id}
            inputRef={(element) => {
              if (element) inputs.current.set(item.key, element);
              else inputs.current.delete(item.key);
            }}
            onKeyDown={(event, value) => keyDown(index, event, value)}
          />
        ))}
      </Box>
      {finished && (
        <Typography
          ref={finishedRef}
          tabIndex={-1}
          role="status"
          variant="body2"
          sx={{ mt: 2, fontWeight: 600 }}
          data-testid="review-done"
        >
          {t("review.done")}
        </Typography>
      )}
    </Box>
  );
}

function ReviewItem({
  item,
  outcome,
  canCorrect,
  pending,
  inputRef,
  onKeyDown,
}: {
  item: Item;
  outcome: Outcome | undefined;
  canCorrect: boolean;
  pending: boolean;
  inputRef: (element: HTMLInputElement | null) => void;
  onKeyDown: (event: KeyboardEvent, value: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const { row, field } = item;
  const name = t(`reading.fields.${field.code}`, { defaultValue: field.code });
  const [value, setValue] = useState(editable(field));
  return (
    <Paper
      component="li"
      variant="outlined"
      sx={{ p: 1.5, mb: 1, bgcolor: outcome?.state === "saved" ? "action.hover" : undefined }}
      data-testid={`review-item-${item.key}`}
    >
      <Stack direction={{ xs: "column", md: "row" }} spacing={2} sx={{ alignItems: { md: "center" } }}>
        <Box sx={{ flex: "1 1 40%", minWidth: 0 }}>
          <Typography variant="caption" component="p" sx={{ color: "text.secondary" }}>
            <Link
              component={RouterLink}
              to={`${PARTNER_PATHS.applications}?open=${row.id}`}
              data-testid={`review-open-${row.id}`}
            >
              {t("review.application", { sequence: row.sequence })}
            </Link>{" "}
            · {row.owner_name} · {row.status_label}
          </Typography>
          <FieldCrop src={row.image_url} box={field.box} label={t("review.crop", { field: name })} />
        </Box>
        <Box sx={{ flex: "1 1 25%" }}>
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {name}
          </Typography>
          <Typography variant="body2" data-testid="review-read">
            {t("review.read")}: {shown(field, i18n.language) || "–"}
            {field.confidence !== null && ` (${Math.round(field.confidence * 100)} %)`}
          </Typography>
          <Typography variant="caption" component="p" sx={{ color: "text.secondary" }}>
            {t("decided.by", { rule: ruleLabel(t, field.decided_by) })}
          </Typography>
        </Box>
        <Box sx={{ flex: "1 1 35%" }}>
          {canCorrect ? (
            <TextField
              size="small"
              fullWidth
              label={t("review.value", { field: name })}
              value={value}
              onChange={(event) => setValue(event.target.value)}
              onKeyDown={(event) => onKeyDown(event, value)}
              disabled={outcome?.state === "saved"}
              error={outcome?.state === "error"}
              helperText={outcome?.state === "error" ? outcome.message : undefined}
              inputRef={inputRef}
              slotProps={{
                htmlInput: { maxLength: 100, "data-testid": `review-input-${item.key}`, "aria-busy": pending },
              }}
            />
          ) : null}
          {outcome?.state === "saved" && (
            <Chip size="small" color="success" label={t("review.saved")} data-testid="review-saved" />
          )}
          {outcome?.state === "skipped" && <Chip size="small" label={t("review.skipped")} />}
        </Box>
      </Stack>
    </Paper>
  );
}

/** Which field and which rule the back office corrects most. */
function ReviewReport() {
  const { t } = useTranslation();
  const report = useReviewReport();
  const rows = (report.data?.results ?? []).map((row) => ({ ...row, id: `${row.code}-${row.rule}` }));
  const columns: GridColDef<ReviewReportRow & { id: string }>[] = [
    {
      field: "code",
      headerName: t("review.field"),
      minWidth: 180,
      flex: 1,
      valueFormatter: (value: string) => t(`reading.fields.${value}`, { defaultValue: value }),
    },
    {
      field: "rule",
      headerName: t("review.reportRule"),
      minWidth: 200,
      flex: 1,
      valueFormatter: (value: string) => ruleLabel(t, value),
    },
    { field: "stored", headerName: t("review.reportStored"), width: 120, type: "number" },
    { field: "corrected", headerName: t("review.reportCorrected"), width: 120, type: "number" },
    {
      field: "share",
      headerName: t("review.reportShare"),
      width: 150,
      type: "number",
      valueFormatter: (value: number | null) => (value === null ? "–" : `${Math.round(value * 1000) / 10} %`),
    },
  ];
  return (
    <Box sx={{ mt: 4 }}>
      <Typography variant="h2" sx={{ mb: 1 }}>
        {t("review.report")}
      </Typography>
      {report.isError ? (
        <QueryError error={report.error} retry={() => void report.refetch()} />
      ) : (
        <Paper variant="outlined" sx={{ overflow: "hidden" }} data-testid="review-report">
          <ServerGrid
            label={t("review.report")}
            rows={rows}
            columns={columns.map((column) => ({ ...column, sortable: false }))}
            rowCount={rows.length}
            loading={report.isFetching}
            hideFooter
            paginationModel={{ page: 0, pageSize: 100 }}
            slots={{ noRowsOverlay: () => <GridEmpty text={t("review.reportEmpty")} /> }}
          />
        </Paper>
      )}
    </Box>
  );
}
