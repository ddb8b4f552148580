import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
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

import { type StaffMember, useInviteRevoke, useStaff, useStaffChange, useStaffInvite } from "../api/admin";
import { can, type Role, ROLES } from "../api/auth";
import { errorText, fieldErrors, messageText } from "../api/client";
import { Loading } from "../components/layout";
import { Forbidden, QueryError } from "../components/query-error";
import { staffInviteSchema, type StaffInviteForm } from "../forms/schemas";
import { useStaffMember } from "../lib/staff-context";

/** Staff of the partner (partner admins): invite, change the role, deactivate. */
export function Staff() {
  const me = useStaffMember();
  if (!can.admin(me.role)) return <Forbidden />;
  return <StaffPage />;
}

function StaffPage() {
  const { t } = useTranslation();
  const me = useStaffMember();
  const staff = useStaff();
  const change = useStaffChange();
  const revoke = useInviteRevoke();
  const [message, setMessage] = useState<string | null>(null);
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("staff.title")}
      </Typography>
      <InviteForm onInvited={(email) => setMessage(t("staff.invited", { email }))} />
      {message && (
        <Alert severity="success" sx={{ my: 2 }} data-testid="staff-invited" onClose={() => setMessage(null)}>
          {message}
        </Alert>
      )}
      {(change.isError || revoke.isError) && (
        <Alert severity="error" sx={{ my: 2 }} data-testid="staff-change-error">
          {errorText(change.error ?? revoke.error, t)}
        </Alert>
      )}
      {staff.isPending && <Loading />}
      {staff.isError && <QueryError error={staff.error} retry={() => void staff.refetch()} />}
      {staff.data && (
        <TableContainer component={Paper} variant="outlined" sx={{ mt: 2 }}>
          <Table size="small" aria-label={t("staff.title")} data-testid="staff-table">
            <TableHead>
              <TableRow>
                <TableCell>{t("staff.name")}</TableCell>
                <TableCell>{t("staff.email")}</TableCell>
                <TableCell>{t("staff.role")}</TableCell>
                <TableCell>{t("staff.status")}</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {staff.data.map((member) => (
                <StaffRow
                  key={member.id}
                  member={member}
                  self={member.id === me.id}
                  onChange={(change_) => change.mutate({ id: member.id, change: change_ })}
                  onRevoke={() => revoke.mutate(-member.id)}
                />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Box>
  );
}

function StaffRow({
  member,
  self,
  onChange,
  onRevoke,
}: {
  member: StaffMember;
  self: boolean;
  onChange: (change: { role: Role } | { is_active: boolean }) => void;
  onRevoke: () => void;
}) {
  const { t } = useTranslation();
  const status = !member.is_active ? t("staff.inactive") : member.pending ? t("staff.pending") : t("staff.active");
  return (
    <TableRow data-testid={`staff-${member.id}`}>
      <TableCell>
        {member.name} {self && t("staff.you")}
      </TableCell>
      <TableCell sx={{ wordBreak: "break-all" }}>{member.email}</TableCell>
      <TableCell>
        {self || !member.is_active || member.pending ? (
          t(`roles.${member.role}`)
        ) : (
          <TextField
            select
            size="small"
            value={member.role}
            // the options are ROLES
            onChange={(event) => onChange({ role: event.target.value as Role })}
            slotProps={{
              select: {
                SelectDisplayProps: {
                  "aria-label": t("staff.roleOf", { name: member.name || member.email }),
                  "data-testid": `role-${member.id}`,
                } as object,
              },
            }}
          >
            {ROLES.map((role) => (
              <MenuItem key={role} value={role}>
                {t(`roles.${role}`)}
              </MenuItem>
            ))}
          </TextField>
        )}
      </TableCell>
      <TableCell>{status}</TableCell>
      <TableCell>
        {member.is_active && !self && !member.pending && (
          <Button
            size="small"
            color="error"
            onClick={() => onChange({ is_active: false })}
            aria-label={`${t("staff.deactivate")}: ${member.name || member.email}`}
            data-testid={`staff-deactivate-${member.id}`}
          >
            {t("staff.deactivate")}
          </Button>
        )}
        {member.pending && (
          <Button
            size="small"
            color="error"
            onClick={onRevoke}
            aria-label={`${t("staff.revoke")}: ${member.name || member.email}`}
            data-testid={`staff-revoke-${-member.id}`}
          >
            {t("staff.revoke")}
          </Button>
        )}
      </TableCell>
    </TableRow>
  );
}

function InviteForm({ onInvited }: { onInvited: (email: string) => void }) {
  const { t } = useTranslation();
  const invite = useStaffInvite();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<StaffInviteForm>({
    resolver: zodResolver(staffInviteSchema),
    defaultValues: { name: "", email: "", role: "back_office" },
  });
  const submit = form.handleSubmit((values) => {
    setError(null);
    invite.mutate(values, {
      onSuccess: () => {
        onInvited(values.email);
        form.reset();
      },
      onError: (failure) => {
        const fields = fieldErrors(failure);
        (["name", "email", "role"] as const).forEach(
          (name) => fields[name] && form.setError(name, { message: fields[name] }),
        );
        if (!fields.name && !fields.email && !fields.role) setError(errorText(failure, t));
      },
    });
  });
  const errors = form.formState.errors;
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="h3" component="h2" sx={{ mb: 1.5 }}>
        {t("staff.invite")}
      </Typography>
      <Box component="form" noValidate onSubmit={submit} data-testid="staff-invite-form">
        <Stack direction={{ xs: "column", md: "row" }} spacing={1.5} sx={{ alignItems: { md: "flex-start" } }}>
          <TextField
            size="small"
            label={t("staff.name")}
            error={Boolean(errors.name)}
            helperText={messageText(errors.name?.message, t)}
            slotProps={{ htmlInput: { "data-testid": "invite-name" } }}
            {...form.register("name")}
          />
          <TextField
            size="small"
            type="email"
            label={t("staff.email")}
            error={Boolean(errors.email)}
            helperText={messageText(errors.email?.message, t)}
            slotProps={{ htmlInput: { "data-testid": "invite-email" } }}
            {...form.register("email")}
          />
          <Controller
            control={form.control}
            name="role"
            render={({ field }) => (
              <TextField
                select
                size="small"
                label={t("staff.role")}
                sx={{ minWidth: 170 }}
                {...field}
                slotProps={{ select: { SelectDisplayProps: { "data-testid": "invite-role" } as object } }}
              >
                {ROLES.map((role) => (
                  <MenuItem key={role} value={role}>
                    {t(`roles.${role}`)}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          <Button type="submit" variant="contained" disabled={invite.isPending} data-testid="invite-send">
            {t("staff.invite")}
          </Button>
        </Stack>
        {error && (
          <Alert severity="error" sx={{ mt: 1.5 }}>
            {error}
          </Alert>
        )}
      </Box>
    </Paper>
  );
}
