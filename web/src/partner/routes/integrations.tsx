import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormGroup from "@mui/material/FormGroup";
import FormHelperText from "@mui/material/FormHelperText";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { can } from "../api/auth";
import { errorText, fieldErrors, messageText } from "../api/client";
import {
  type ApiKey,
  type Delivery,
  EVENTS,
  SCOPES,
  useApiKeyAction,
  useApiKeyCreate,
  useApiKeys,
  useDeliveries,
  useDeliveryResend,
  useWebhookCreate,
  useWebhookDelete,
  useWebhooks,
  useWebhookTest,
  type Webhook,
} from "../api/integrations";
import { ConfirmDialog } from "../components/confirm-dialog";
import { Loading } from "../components/layout";
import { Forbidden, QueryError } from "../components/query-error";
import { type ApiKeyForm, apiKeyFormSchema, type WebhookForm, webhookFormSchema } from "../forms/integrations-schema";
import { dateTime } from "../lib/format";
import { useStaffMember } from "../lib/staff-context";

/** The partner's interfaces (partner admins): API keys and webhooks with their delivery log. */
export function Integrations() {
  const me = useStaffMember();
  if (!can.admin(me.role)) return <Forbidden />;
  return <IntegrationsPage />;
}

function IntegrationsPage() {
  const { t } = useTranslation();
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {t("integrations.title")}
      </Typography>
      <Typography variant="body2" sx={{ mb: 2, maxWidth: 760 }}>
        {t("integrations.intro")}
      </Typography>
      <Stack spacing={3}>
        <ApiKeys />
        <Webhooks />
      </Stack>
    </Box>
  );
}

/** A secret shown once, with a copy button. */
function ShownOnce({
  value,
  text,
  onClose,
  testid,
}: {
  value: string;
  text: string;
  onClose: () => void;
  testid: string;
}) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <Alert severity="warning" sx={{ mb: 2 }} data-testid={testid} onClose={onClose} closeText={t("integrations.close")}>
      <Typography variant="body2" sx={{ mb: 1 }}>
        {text}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1} sx={{ alignItems: { sm: "center" } }}>
        <Box
          component="code"
          sx={{ p: 1, bgcolor: "background.paper", borderRadius: 1, wordBreak: "break-all", fontSize: 13 }}
          data-testid={`${testid}-value`}
        >
          {value}
        </Box>
        <Button
          size="small"
          variant="outlined"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true));
          }}
        >
          {copied ? t("integrations.copied") : t("integrations.copy")}
        </Button>
      </Stack>
    </Alert>
  );
}

function ApiKeys() {
  const { t, i18n } = useTranslation();
  const keys = useApiKeys();
  const action = useApiKeyAction();
  const [shown, setShown] = useState<string | null>(null);
  const [asking, setAsking] = useState<{ key: ApiKey; action: "rotate" | "revoke" } | null>(null);
  if (keys.isPending) return <Loading />;
  if (keys.isError) return <QueryError error={keys.error} />;
  const confirm = () => {
    if (!asking) return;
    action.mutate(
      { id: asking.key.id, action: asking.action },
      {
        onSuccess: (made) => {
          if (made.key) setShown(made.key);
          setAsking(null);
        },
      },
    );
  };
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="api-keys">
      <Typography variant="h3" component="h2" sx={{ mb: 1.5 }}>
        {t("integrations.keysTitle")}
      </Typography>
      {shown && (
        <ShownOnce value={shown} text={t("integrations.shownOnce")} onClose={() => setShown(null)} testid="key-shown" />
      )}
      {keys.data.length === 0 ? (
        <Typography variant="body2" sx={{ mb: 2 }}>
          {t("integrations.keysEmpty")}
        </Typography>
      ) : (
        <TableContainer sx={{ mb: 2 }}>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t("integrations.name")}</TableCell>
                <TableCell>{t("integrations.scope")}</TableCell>
                <TableCell>{t("integrations.key")}</TableCell>
                <TableCell>{t("integrations.state")}</TableCell>
                <TableCell>{t("integrations.lastUsed")}</TableCell>
                <TableCell>{t("integrations.createdBy")}</TableCell>
                <TableCell>{t("integrations.actions")}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {keys.data.map((key) => (
                <TableRow key={key.id} data-testid={`api-key-${key.id}`}>
                  <TableCell>{key.name}</TableCell>
                  <TableCell>{t(`integrations.scopes.${key.scope}`)}</TableCell>
                  <TableCell>
                    <code>{key.key_hint}</code>
                  </TableCell>
                  <TableCell>
                    <Chip
                      size="small"
                      variant="outlined"
                      color={key.state === "active" ? "success" : key.state === "dormant" ? "warning" : "default"}
                      label={t(`integrations.states.${key.state}`)}
                      // the resting key's explanation wraps: on one line it pushed the actions out of a 1440 px screen
                      sx={{ height: "auto", maxWidth: 220, "& .MuiChip-label": { whiteSpace: "normal", py: 0.25 } }}
                    />
                  </TableCell>
                  <TableCell>
                    {key.last_used_at ? dateTime(key.last_used_at, i18n.language) : t("integrations.never")}
                  </TableCell>
                  <TableCell>
                    {key.created_by ?? "–"}, {dateTime(key.rotated_at ?? key.created_at, i18n.language)}
                  </TableCell>
                  <TableCell sx={{ whiteSpace: "nowrap" }}>
                    {key.state !== "revoked" && (
                      <>
                        <Button
                          size="small"
                          onClick={() => setAsking({ key, action: "rotate" })}
                          aria-label={`${t("integrations.rotate")}: ${key.name}`}
                          data-testid={`key-rotate-${key.id}`}
                        >
                          {t("integrations.rotate")}
                        </Button>
                        <Button
                          size="small"
                          color="error"
                          onClick={() => setAsking({ key, action: "revoke" })}
                          aria-label={`${t("integrations.revoke")}: ${key.name}`}
                          data-testid={`key-revoke-${key.id}`}
                        >
                          {t("integrations.revoke")}
                        </Button>
                      </>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <KeyForm onMade={setShown} />
      {asking && (
        <ConfirmDialog
          title={t(asking.action === "rotate" ? "integrations.rotateTitle" : "integrations.revokeTitle")}
          text={t(asking.action === "rotate" ? "integrations.rotateText" : "integrations.revokeText", {
            name: asking.key.name,
          })}
          confirm={t(asking.action === "rotate" ? "integrations.rotate" : "integrations.revoke")}
          busy={action.isPending}
          error={action.isError ? errorText(action.error, t) : undefined}
          onConfirm={confirm}
          onClose={() => {
            action.reset();
            setAsking(null);
          }}
          testid="key-confirm"
        />
      )}
    </Paper>
  );
}

function KeyForm({ onMade }: { onMade: (key: string) => void }) {
  const { t } = useTranslation();
  const create = useApiKeyCreate();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<ApiKeyForm>({
    resolver: zodResolver(apiKeyFormSchema),
    defaultValues: { name: "", scope: "read" },
  });
  const submit = form.handleSubmit((values) => {
    setError(null);
    create.mutate(
      { name: values.name.trim(), scope: values.scope },
      {
        onSuccess: (made) => {
          onMade(made.key);
          form.reset();
        },
        onError: (failure) => {
          const fields = fieldErrors(failure);
          if (fields.name) form.setError("name", { message: fields.name });
          else setError(errorText(failure, t));
        },
      },
    );
  });
  const errors = form.formState.errors;
  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="key-form">
      <Stack direction={{ xs: "column", md: "row" }} spacing={1.5} sx={{ alignItems: { md: "flex-start" } }}>
        <TextField
          size="small"
          label={t("integrations.name")}
          error={Boolean(errors.name)}
          helperText={messageText(errors.name?.message, t)}
          slotProps={{ htmlInput: { "data-testid": "key-name" } }}
          {...form.register("name")}
        />
        <Controller
          control={form.control}
          name="scope"
          render={({ field }) => (
            <TextField
              select
              size="small"
              label={t("integrations.scope")}
              sx={{ minWidth: 200 }}
              {...field}
              slotProps={{ select: { SelectDisplayProps: { "data-testid": "key-scope" } as object } }}
            >
              {SCOPES.map((scope) => (
                <MenuItem key={scope} value={scope}>
                  {t(`integrations.scopes.${scope}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
        />
        <Button type="submit" variant="contained" disabled={create.isPending} data-testid="key-create">
          {t("integrations.create")}
        </Button>
      </Stack>
      {error && (
        <Alert severity="error" sx={{ mt: 1.5 }}>
          {error}
        </Alert>
      )}
    </Box>
  );
}

function Webhooks() {
  const { t, i18n } = useTranslation();
  const hooks = useWebhooks();
  const test = useWebhookTest();
  const remove = useWebhookDelete();
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [tested, setTested] = useState<Delivery | null>(null);
  if (hooks.isPending) return <Loading />;
  if (hooks.isError) return <QueryError error={hooks.error} />;
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="webhooks">
      <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
        {t("integrations.hooksTitle")}
      </Typography>
      <Typography variant="body2" sx={{ mb: 1.5 }}>
        {t("integrations.retryNote")}
      </Typography>
      {secret && (
        <ShownOnce
          value={secret}
          text={t("integrations.secretShownOnce")}
          onClose={() => setSecret(null)}
          testid="secret-shown"
        />
      )}
      {tested && (
        <Alert
          severity={tested.status === "delivered" ? "success" : "error"}
          sx={{ mb: 2 }}
          onClose={() => setTested(null)}
          closeText={t("integrations.close")}
          data-testid="test-result"
        >
          {t("integrations.testSent", { result: answerText(tested, t) })}
        </Alert>
      )}
      {hooks.data.length === 0 ? (
        <Typography variant="body2" sx={{ mb: 2 }}>
          {t("integrations.hooksEmpty")}
        </Typography>
      ) : (
        <Stack spacing={1.5} sx={{ mb: 2 }}>
          {hooks.data.map((hook) => (
            <Box
              key={hook.id}
              sx={{ border: 1, borderColor: "divider", borderRadius: 1, p: 1.5 }}
              data-testid={`webhook-${hook.id}`}
            >
              <Typography variant="body1" sx={{ wordBreak: "break-all", fontWeight: 500 }}>
                {hook.url}
              </Typography>
              <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: "wrap", my: 1 }}>
                {hook.events.map((event) => (
                  <Chip key={event} size="small" label={t(`integrations.eventNames.${event}`)} />
                ))}
              </Stack>
              <Typography variant="body2" color="text.secondary">
                {t("integrations.lastDelivery")}:{" "}
                {hook.last_delivery_status && hook.last_delivery_at
                  ? `${t(`integrations.statuses.${hook.last_delivery_status}`)}, ${dateTime(hook.last_delivery_at, i18n.language)}`
                  : "–"}
              </Typography>
              <Stack direction="row" spacing={1} useFlexGap sx={{ mt: 1, flexWrap: "wrap" }}>
                <Button
                  size="small"
                  variant="outlined"
                  disabled={test.isPending}
                  onClick={() => test.mutate(hook.id, { onSuccess: setTested })}
                  data-testid={`webhook-test-${hook.id}`}
                >
                  {t("integrations.test")}
                </Button>
                <Button
                  size="small"
                  onClick={() => setOpen(open === hook.id ? null : hook.id)}
                  aria-expanded={open === hook.id}
                  data-testid={`webhook-log-${hook.id}`}
                >
                  {open === hook.id ? t("integrations.hideDeliveries") : t("integrations.deliveries")}
                </Button>
                <Button size="small" onClick={() => setRemoving(hook)} data-testid={`webhook-remove-${hook.id}`}>
                  {t("integrations.remove")}
                </Button>
              </Stack>
              {open === hook.id && <DeliveryLog endpointId={hook.id} />}
            </Box>
          ))}
        </Stack>
      )}
      {test.isError && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(test.error, t)}
        </Alert>
      )}
      <WebhookForm onMade={setSecret} />
      {removing && (
        <ConfirmDialog
          title={t("integrations.removeTitle")}
          text={t("integrations.removeText", { url: removing.url })}
          confirm={t("integrations.remove")}
          busy={remove.isPending}
          error={remove.isError ? errorText(remove.error, t) : undefined}
          onConfirm={() => remove.mutate(removing.id, { onSuccess: () => setRemoving(null) })}
          onClose={() => {
            remove.reset();
            setRemoving(null);
          }}
          testid="webhook-confirm"
        />
      )}
    </Paper>
  );
}

function answerText(delivery: Delivery, t: (key: string) => string): string {
  const last = delivery.attempts[delivery.attempts.length - 1];
  if (!last) return "–";
  if (last.status_code !== null) return `HTTP ${last.status_code}`;
  return last.error || t("integrations.noAnswer");
}

function DeliveryLog({ endpointId }: { endpointId: number }) {
  const { t, i18n } = useTranslation();
  const deliveries = useDeliveries(endpointId);
  const resend = useDeliveryResend();
  if (deliveries.isPending) return <Loading />;
  if (deliveries.isError) return <QueryError error={deliveries.error} />;
  return (
    <Box sx={{ mt: 1.5 }} data-testid={`delivery-log-${endpointId}`}>
      <Typography variant="h6" component="h3" sx={{ mb: 1 }}>
        {t("integrations.logTitle")}
      </Typography>
      {deliveries.data.results.length === 0 ? (
        <Typography variant="body2">{t("integrations.logEmpty")}</Typography>
      ) : (
        <TableContainer>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t("integrations.event")}</TableCell>
                <TableCell>{t("integrations.occurred")}</TableCell>
                <TableCell>{t("integrations.status")}</TableCell>
                <TableCell>{t("integrations.attempts")}</TableCell>
                <TableCell>{t("integrations.answer")}</TableCell>
                <TableCell>{t("integrations.actions")}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {deliveries.data.results.map((delivery) => (
                <TableRow key={delivery.id} data-testid={`delivery-${delivery.id}`}>
                  <TableCell>{t(`integrations.eventNames.${delivery.event_type}`)}</TableCell>
                  <TableCell>{dateTime(delivery.occurred_at, i18n.language)}</TableCell>
                  <TableCell>
                    <Chip
                      size="small"
                      variant="outlined"
                      // a pending delivery in the neutral colour: the theme's warning orange on white is below 4.5:1
                      color={
                        delivery.status === "delivered" ? "success" : delivery.status === "failed" ? "error" : "default"
                      }
                      label={t(`integrations.statuses.${delivery.status}`)}
                    />
                    {delivery.status === "pending" && delivery.next_attempt_at && (
                      <FormHelperText>
                        {t("integrations.nextAttempt", { at: dateTime(delivery.next_attempt_at, i18n.language) })}
                      </FormHelperText>
                    )}
                  </TableCell>
                  <TableCell>
                    {delivery.attempts.map((attempt, index) => (
                      <Typography key={index} variant="body2" component="div">
                        {dateTime(attempt.at, i18n.language)}:{" "}
                        {attempt.status_code !== null ? `HTTP ${attempt.status_code}` : attempt.error}
                        {attempt.manual ? ` (${t("integrations.byHand")})` : ""}
                      </Typography>
                    ))}
                  </TableCell>
                  <TableCell>{answerText(delivery, t)}</TableCell>
                  <TableCell>
                    <Button
                      size="small"
                      disabled={resend.isPending}
                      onClick={() => resend.mutate(delivery.id)}
                      data-testid={`delivery-resend-${delivery.id}`}
                    >
                      {t("integrations.resend")}
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {resend.isError && (
        <Alert severity="error" sx={{ mt: 1 }}>
          {errorText(resend.error, t)}
        </Alert>
      )}
    </Box>
  );
}

function WebhookForm({ onMade }: { onMade: (secret: string) => void }) {
  const { t } = useTranslation();
  const create = useWebhookCreate();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<WebhookForm>({
    resolver: zodResolver(webhookFormSchema),
    defaultValues: { url: "", events: ["application.status_changed"] },
  });
  const submit = form.handleSubmit((values) => {
    setError(null);
    create.mutate(
      { url: values.url.trim(), events: values.events },
      {
        onSuccess: (made) => {
          onMade(made.secret);
          form.reset();
        },
        onError: (failure) => {
          const fields = fieldErrors(failure);
          if (fields.url) form.setError("url", { message: fields.url });
          if (fields.events) form.setError("events", { message: fields.events });
          if (!fields.url && !fields.events) setError(errorText(failure, t));
        },
      },
    );
  });
  const errors = form.formState.errors;
  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="webhook-form">
      <TextField
        size="small"
        fullWidth
        label={t("integrations.url")}
        error={Boolean(errors.url)}
        helperText={messageText(errors.url?.message, t)}
        slotProps={{ htmlInput: { "data-testid": "webhook-url", inputMode: "url" } }}
        sx={{ maxWidth: 640, mb: 1 }}
        {...form.register("url")}
      />
      <Controller
        control={form.control}
        name="events"
        render={({ field }) => (
          <FormGroup aria-label={t("integrations.events")} sx={{ mb: 1 }}>
            {EVENTS.map((event) => (
              <FormControlLabel
                key={event}
                label={t(`integrations.eventNames.${event}`)}
                control={
                  <Checkbox
                    size="small"
                    checked={field.value.includes(event)}
                    onChange={(_, checked) =>
                      field.onChange(checked ? [...field.value, event] : field.value.filter((e) => e !== event))
                    }
                    slotProps={{ input: { "data-testid": `webhook-event-${event}` } as object }}
                  />
                }
              />
            ))}
            {errors.events && <FormHelperText error>{messageText(errors.events.message, t)}</FormHelperText>}
          </FormGroup>
        )}
      />
      <Button type="submit" variant="contained" disabled={create.isPending} data-testid="webhook-add">
        {t("integrations.add")}
      </Button>
      {error && (
        <Alert severity="error" sx={{ mt: 1.5 }}>
          {error}
        </Alert>
      )}
    </Box>
  );
}
