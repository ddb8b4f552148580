import Close from "@mui/icons-material/Close";
import ZoomIn from "@mui/icons-material/ZoomIn";
import ZoomOut from "@mui/icons-material/ZoomOut";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Divider from "@mui/material/Divider";
import Drawer from "@mui/material/Drawer";
import IconButton from "@mui/material/IconButton";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FormEvent, type MouseEvent, type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";

import {
  type Agreement,
  type ApplicationDetail,
  type ReadingField,
  useApplication,
  useFieldCorrect,
} from "../api/applications";
import { can } from "../api/auth";
import { errorText, fieldErrors } from "../api/client";
import { dateTime, day } from "../lib/format";
import { useStaffMember } from "../lib/staff-context";
import { ruleLabel } from "./field-crop";
import { Loading } from "./layout";
import { type MoveTarget, MoveDialog } from "./move-dialog";
import { ApplicationDocuments, PAID_STATES } from "./payout-documents";
import { QueryError } from "./query-error";

/** One application: zoomable scan, the reader's fields, owner and billing (IBAN masked), history, moves. */
export function ApplicationDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useApplication(id);
  return (
    <Drawer
      anchor="right"
      open={id !== null}
      onClose={onClose}
      // Above the fixed app bar (a temporary drawer sits at the drawer level, under it).
      sx={{ zIndex: (theme) => theme.zIndex.modal }}
      slotProps={{
        paper: {
          sx: { width: { xs: "100%", sm: 520 }, p: 2 },
          role: "dialog",
          "aria-labelledby": "drawer-title",
          "data-testid": "application-drawer",
        } as object,
      }}
    >
      <Box sx={{ display: "flex", alignItems: "center", mb: 1 }}>
        <Typography variant="h2" sx={{ flex: 1 }} id="drawer-title">
          {detail.data ? t("detail.title", { sequence: detail.data.sequence }) : t("area.loading")}
        </Typography>
        <IconButton aria-label={t("detail.close")} onClick={onClose} data-testid="drawer-close">
          <Close />
        </IconButton>
      </Box>
      {detail.isPending && <Loading />}
      {detail.isError && <QueryError error={detail.error} retry={() => void detail.refetch()} />}
      {detail.data && <DetailBody application={detail.data} />}
    </Drawer>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ display: "grid", gridTemplateColumns: "minmax(120px, 40%) 1fr", gap: 1, py: 0.5 }}>
      <Typography component="dt" variant="body2" sx={{ color: "text.secondary" }}>
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, wordBreak: "break-word" }}>
        {children || "–"}
      </Typography>
    </Box>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box component="section" sx={{ mt: 2 }}>
      <Typography variant="h4" component="h3" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/** The owner's agreement in text form naming the partner as third party for the year: when,
 * through which channel, and which text (its version: the SHA-256 of what was shown). */
function AgreementFields({ agreement, year }: { agreement: Agreement | null; year: number }) {
  const { t, i18n } = useTranslation();
  if (!agreement) {
    return (
      <Typography variant="body2" sx={{ color: "text.secondary" }} data-testid="detail-agreement-none">
        {t("detail.noAgreement", { year })}
      </Typography>
    );
  }
  return (
    <Box component="dl" sx={{ m: 0 }} data-testid="detail-agreement">
      <Field label={t("detail.agreedAt")}>{dateTime(agreement.agreed_at, i18n.language)}</Field>
      <Field label={t("detail.agreementChannel")}>{agreement.channel_label}</Field>
      <Field label={t("detail.agreementVersion")}>
        <Box component="span" title={agreement.text_version} sx={{ fontFamily: "monospace" }}>
          {agreement.text_version.slice(0, 12)}
        </Box>
      </Field>
      <Field label={t("detail.agreementText")}>{agreement.text}</Field>
    </Box>
  );
}

function DetailBody({ application }: { application: ApplicationDetail }) {
  const { t, i18n } = useTranslation();
  const me = useStaffMember();
  const [target, setTarget] = useState<MoveTarget | null>(null);
  const { registration, client } = application;
  const language = i18n.language;
  return (
    <Box data-testid="application-detail">
      <Stack direction="row" spacing={1} sx={{ mb: 1, flexWrap: "wrap" }}>
        <Chip label={application.status_label} color="primary" data-testid="detail-status" />
        <Chip label={String(application.legislation_year)} variant="outlined" />
        {registration.needs_review && <Chip label={t("detail.needsReview")} color="warning" />}
        {registration.holder_mismatch && (
          <Chip label={t("detail.holderMismatch")} color="warning" variant="outlined" data-testid="holder-mismatch" />
        )}
      </Stack>
      {registration.scan_url ? (
        <ZoomableScan src={registration.scan_url} alt={t("detail.scan", { sequence: application.sequence })} />
      ) : (
        <Typography sx={{ color: "text.secondary" }}>{t("detail.noScan")}</Typography>
      )}
      <Section title={t("detail.reader")}>
        <ReadingTable application={application} canCorrect={can.move(me.role)} />
      </Section>
      {client && (
        <Section title={t("detail.client")}>
          <Box component="dl" sx={{ m: 0 }}>
            <Field label={t("detail.name")}>{client.name}</Field>
            {client.business_name && <Field label={t("detail.business")}>{client.business_name}</Field>}
            <Field label={t("detail.address")}>{client.address}</Field>
            <Field label={t("detail.email")}>{client.email}</Field>
            <Field label={t("detail.iban")}>
              <span data-testid="detail-iban">{client.iban_masked}</span>
            </Field>
          </Box>
        </Section>
      )}
      <Section title={t("detail.agreement")}>
        <AgreementFields agreement={application.agreement} year={application.legislation_year} />
      </Section>
      {can.edit(me.role) && PAID_STATES.has(application.status) && (
        <ApplicationDocuments applicationId={application.id} />
      )}
      <Section title={t("detail.moves")}>
        {application.allowed_moves.length === 0 ? (
          <Typography variant="body2">{t("detail.noMoves")}</Typography>
        ) : (
          <Stack direction="row" sx={{ flexWrap: "wrap", gap: 1 }}>
            {application.allowed_moves.map((move) => (
              <Button
                key={move.status}
                variant="outlined"
                size="small"
                disabled={!can.move(me.role)}
                onClick={() => setTarget(move)}
                data-testid={`move-to-${move.status}`}
              >
                {move.status_label}
              </Button>
            ))}
          </Stack>
        )}
      </Section>
      <Section title={t("detail.history")}>
        <Box component="ol" sx={{ listStyle: "none", p: 0, m: 0 }} data-testid="detail-history">
          {application.history.map((entry, index) => (
            <Box
              component="li"
              key={`${entry.status}-${entry.created_at}-${index}`}
              sx={{ display: "flex", gap: 1.5, pb: 1.5 }}
            >
              <Box
                aria-hidden
                sx={{
                  mt: 0.75,
                  width: 10,
                  height: 10,
                  borderRadius: "50%",
                  bgcolor: index === application.history.length - 1 ? "primary.main" : "grey.500",
                  flexShrink: 0,
                }}
              />
              <Box>
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {entry.status_label}
                </Typography>
                <Typography variant="caption" component="p" sx={{ color: "text.secondary" }}>
                  {dateTime(entry.created_at, language)}
                  {entry.actor ? ` · ${t("detail.by", { actor: entry.actor })}` : ""}
                </Typography>
                {entry.reason && (
                  <Typography variant="body2" sx={{ fontStyle: "italic" }}>
                    {entry.reason}
                  </Typography>
                )}
              </Box>
            </Box>
          ))}
        </Box>
      </Section>
      {registration.corrections.length > 0 && (
        <Section title={t("reading.corrections")}>
          <Box component="ol" sx={{ pl: 2, m: 0 }} data-testid="detail-corrections">
            {registration.corrections.map((entry, index) => (
              <Typography component="li" variant="body2" key={`${entry.code}-${entry.created_at}-${index}`}>
                {t("reading.correction", {
                  field: t(`reading.fields.${entry.code}`, { defaultValue: entry.code }),
                  before: entry.before || t("reading.empty"),
                  after: entry.after,
                })}{" "}
                <Typography component="span" variant="caption" sx={{ color: "text.secondary" }}>
                  {dateTime(entry.created_at, language)} · {t("detail.by", { actor: entry.actor })}
                  {entry.rule ? ` · ${t("decided.before", { rule: ruleLabel(t, entry.rule) })}` : ""}
                </Typography>
              </Typography>
            ))}
          </Box>
        </Section>
      )}
      <Divider sx={{ mt: 1 }} />
      {target && (
        <MoveDialog
          open
          ids={[application.id]}
          labels={{ [application.id]: String(application.sequence) }}
          targets={[target]}
          onClose={() => setTarget(null)}
        />
      )}
    </Box>
  );
}

/** A date field's value as the staff read it; other values as stored. */
function shown(field: ReadingField, language: string): string {
  if (!field.value) return "";
  return field.code === "B" || field.code === "I" ? day(field.value, language) : field.value;
}

/** Each field the reader read: value, confidence, "not read" and corrections by the back office. */
function ReadingTable({ application, canCorrect }: { application: ApplicationDetail; canCorrect: boolean }) {
  const { t, i18n } = useTranslation();
  const [editing, setEditing] = useState<string | null>(null);
  const fields = application.registration.fields;
  const decidedBy = application.registration.decided_by;
  return (
    <Box component="table" sx={{ width: "100%", borderCollapse: "collapse" }} data-testid="reading-table">
      <Box component="thead" sx={{ typography: "caption", color: "text.secondary", textAlign: "left" }}>
        <tr>
          <th scope="col">{t("reading.field")}</th>
          <th scope="col">{t("reading.value")}</th>
          <Box component="th" scope="col" sx={{ textAlign: "right" }}>
            {t("reading.confidence")}
          </Box>
        </tr>
      </Box>
      <tbody>
        {fields.map((field) => (
          <Box
            component="tr"
            key={field.code}
            data-testid={`reading-${field.code}`}
            sx={{ borderBottom: 1, borderColor: "divider", verticalAlign: "top" }}
          >
            <Box component="th" scope="row" sx={{ textAlign: "left", fontWeight: 400, py: 0.75, pr: 1, width: "38%" }}>
              <Typography variant="body2" sx={{ color: "text.secondary" }}>
                {t(`reading.fields.${field.code}`, { defaultValue: field.code })}
              </Typography>
            </Box>
            <Box component="td" sx={{ py: 0.75, pr: 1, wordBreak: "break-word" }}>
              {editing === field.code ? (
                <CorrectionForm id={application.id} field={field} onDone={() => setEditing(null)} />
              ) : (
                <>
                  <Typography variant="body2">{shown(field, i18n.language) || "–"}</Typography>
                  {field.unread && (
                    <Chip size="small" color="warning" label={t("reading.unread")} data-testid="reading-unread" />
                  )}
                  <Typography variant="caption" component="p" sx={{ color: "text.secondary" }}>
                    {field.source === "corrected"
                      ? t("reading.correctedBy", { actor: field.corrected_by ?? "" })
                      : field.value
                        ? t("reading.reader")
                        : ""}
                  </Typography>
                  {decidedBy[field.code] && (
                    <Typography
                      variant="caption"
                      component="p"
                      sx={{ color: "text.secondary" }}
                      data-testid={`decided-${field.code}`}
                    >
                      {t("decided.by", { rule: ruleLabel(t, decidedBy[field.code]) })}
                    </Typography>
                  )}
                </>
              )}
            </Box>
            <Box component="td" sx={{ py: 0.75, textAlign: "right", whiteSpace: "nowrap" }}>
              <Typography variant="body2" aria-label={t("reading.confidence")}>
                {field.confidence === null ? "–" : `${Math.round(field.confidence * 100)} %`}
              </Typography>
              {canCorrect && editing !== field.code && (
                <Button
                  size="small"
                  onClick={() => setEditing(field.code)}
                  aria-label={t("reading.correctLabel", { field: t(`reading.fields.${field.code}`) })}
                  data-testid={`correct-${field.code}`}
                >
                  {t("reading.correct")}
                </Button>
              )}
            </Box>
          </Box>
        ))}
      </tbody>
    </Box>
  );
}

function CorrectionForm({ id, field, onDone }: { id: number; field: ReadingField; onDone: () => void }) {
  const { t } = useTranslation();
  const correct = useFieldCorrect(id);
  const [value, setValue] = useState(field.value ?? "");
  const server = correct.isError ? fieldErrors(correct.error) : {};
  const problem =
    server.value ?? server.field ?? (correct.isError && !Object.keys(server).length ? errorText(correct.error, t) : "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    correct.mutate({ field: field.code, value }, { onSuccess: onDone });
  };
  return (
    <Box component="form" onSubmit={submit} noValidate data-testid={`correction-form-${field.code}`}>
      <TextField
        size="small"
        fullWidth
        label={t("reading.newValue")}
        value={value}
        onChange={(event) => setValue(event.target.value)}
        error={Boolean(problem)}
        helperText={problem || undefined}
        // size 1: the field takes the cell's width and never widens the table on a phone
        slotProps={{ htmlInput: { maxLength: 100, size: 1 } }}
      />
      {/* The cell breaks long values anywhere; a button's label stays whole (with the theme's
          narrower padding, so it fits the cell of a phone's drawer), and a button that does not
          fit goes to the next line. */}
      <Stack
        direction="row"
        spacing={1}
        useFlexGap
        sx={{
          mt: 0.5,
          flexWrap: "wrap",
          "& .MuiButton-root": { whiteSpace: "nowrap", wordBreak: "normal", px: 1.25, minWidth: 0 },
        }}
      >
        <Button type="submit" size="small" variant="contained" disabled={correct.isPending}>
          {t("reading.save")}
        </Button>
        <Button size="small" onClick={onDone}>
          {t("reading.cancel")}
        </Button>
      </Stack>
    </Box>
  );
}

/** The scan: a button zooms it (keyboard too); the zoom follows the pointer. */
function ZoomableScan({ src, alt }: { src: string; alt: string }) {
  const { t } = useTranslation();
  const [zoom, setZoom] = useState(false);
  const [origin, setOrigin] = useState("center");
  const move = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const x = ((event.clientX - box.left) / Math.max(box.width, 1)) * 100;
    const y = ((event.clientY - box.top) / Math.max(box.height, 1)) * 100;
    setOrigin(`${x.toFixed(1)}% ${y.toFixed(1)}%`);
  };
  return (
    <Box sx={{ position: "relative" }}>
      <Box
        onMouseMove={move}
        onClick={() => setZoom(!zoom)}
        data-testid="detail-scan"
        sx={{
          overflow: "hidden",
          borderRadius: 1,
          border: 1,
          borderColor: "divider",
          cursor: zoom ? "zoom-out" : "zoom-in",
        }}
      >
        <img
          src={src}
          alt={alt}
          style={{
            display: "block",
            width: "100%",
            transition: "transform 0.15s",
            transform: zoom ? "scale(2.5)" : "none",
            transformOrigin: origin,
          }}
        />
      </Box>
      <IconButton
        aria-label={zoom ? t("detail.zoomOut") : t("detail.zoomIn")}
        aria-pressed={zoom}
        onClick={() => setZoom(!zoom)}
        sx={{
          position: "absolute",
          right: 8,
          bottom: 8,
          bgcolor: "background.paper",
          "&:hover": { bgcolor: "background.paper" },
        }}
        data-testid="scan-zoom"
      >
        {zoom ? <ZoomOut /> : <ZoomIn />}
      </IconButton>
    </Box>
  );
}
