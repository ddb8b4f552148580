import QrCode2 from "@mui/icons-material/QrCode2";
import IconButton from "@mui/material/IconButton";
import type { GridColDef } from "@mui/x-data-grid";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";

import { can } from "../api/auth";
import { type SubPartner, useOperationDeactivate, useOperationList, useOperationSave } from "../api/operations";
import { CommissionStatement } from "../components/commission-statement";
import { EntityDialog, type FieldSpec } from "../components/entity-dialog";
import { OperationList } from "../components/operation-list";
import { SubPartnerQrDialog } from "../components/sub-partner-qr-dialog";
import { useExportTexts } from "../texts/exports";
import { EMPTY_SUB_PARTNER, type SubPartnerForm, subPartnerFormSchema, subPartnerPayload } from "../forms/schemas";
import { dateTime, decimal } from "../lib/format";
import { useListQuery } from "../lib/list-query";
import { useStaffMember } from "../lib/staff-context";
import { localGet, localSet } from "../lib/storage";

type Editing = { id: number | null; values: SubPartnerForm };

/** The editor left open (id and unsaved form), from `subpartner-id` and `sub-partner-details`. */
function storedEditing(): Editing | null {
  const id = localGet<number | "new">("subPartnerId");
  const values = localGet<SubPartnerForm>("subPartnerDetails");
  if (id === null || !values) return null;
  return { id: id === "new" ? null : id, values: { ...EMPTY_SUB_PARTNER, ...values } };
}

function toForm(item: SubPartner, language: string): SubPartnerForm {
  return {
    name: item.name,
    contact_name: item.contact_name ?? "",
    contact_email: item.contact_email ?? "",
    contact_phone: item.contact_phone ?? "",
    referral_key: item.referral_key,
    // as the reader writes it (the form takes either mark)
    fee_share_percent: language === "en" ? item.fee_share_percent : item.fee_share_percent.replace(".", ","),
  };
}

export function SubPartners() {
  const { t, i18n } = useTranslation();
  const me = useStaffMember();
  const { query } = useListQuery();
  const list = useOperationList("sub_partners", query);
  const deactivate = useOperationDeactivate("sub_partners");
  const save = useOperationSave("sub_partners");
  const [editing, setEditing] = useState<Editing | null>(() => (can.edit(me.role) ? storedEditing() : null));
  const editable = can.edit(me.role);
  const x = useExportTexts();
  const [printing, setPrinting] = useState<SubPartner | null>(null);

  const open = (next: Editing | null) => {
    localSet("subPartnerId", next ? (next.id ?? "new") : null);
    localSet("subPartnerDetails", next ? next.values : null);
    setEditing(next);
  };
  const draft = useCallback((values: SubPartnerForm) => localSet("subPartnerDetails", values), []);

  const fields: FieldSpec<SubPartnerForm>[] = [
    { name: "name", label: t("subPartners.name") },
    { name: "contact_name", label: t("subPartners.contactName") },
    { name: "contact_email", label: t("subPartners.contactEmail"), type: "email", inputMode: "email" },
    { name: "contact_phone", label: t("subPartners.contactPhone"), type: "tel", inputMode: "tel" },
    { name: "referral_key", label: t("subPartners.referralKey"), help: t("subPartners.referralHelp") },
    { name: "fee_share_percent", label: t("subPartners.feeShare"), inputMode: "decimal" },
  ];
  const language = i18n.language;
  // Beside the menu on a 1440 px screen the grid has about 1150 px: the creation time and the
  // e-mail step aside below 1700 px (the QR code's column took their room), the contact person
  // and the application count below 1400 px, the referral key and the fee share on a phone; the
  // edit and deactivate buttons always show.
  const columns: GridColDef<SubPartner>[] = [
    { field: "name", headerName: t("subPartners.name"), minWidth: 150, flex: 1, hideable: false },
    { field: "contact_name", headerName: t("subPartners.contactName"), minWidth: 130, flex: 1 },
    { field: "contact_email", headerName: t("subPartners.contactEmail"), minWidth: 160, flex: 1 },
    { field: "referral_key", headerName: t("subPartners.referralKey"), width: 150 },
    {
      field: "fee_share_percent",
      headerName: t("subPartners.feeShare"),
      width: 115,
      align: "right",
      headerAlign: "right",
      valueFormatter: (value: string) => decimal(value, language),
    },
    {
      field: "application_count",
      headerName: t("subPartners.applications"),
      width: 95,
      align: "right",
      headerAlign: "right",
    },
    {
      field: "is_active",
      headerName: t("subPartners.active"),
      width: 80,
      valueFormatter: (value: boolean) => (value ? t("form.yes") : t("form.no")),
    },
    {
      field: "created_at",
      headerName: t("applications.created"),
      width: 150,
      valueFormatter: (value: string) => dateTime(value, language),
    },
    {
      field: "qr",
      headerName: x("qr"),
      width: 90,
      sortable: false,
      filterable: false,
      renderCell: ({ row }) => (
        <IconButton
          size="small"
          aria-label={x("qrOf", { name: row.name })}
          onClick={() => setPrinting(row)}
          data-testid={`sub-partner-qr-${row.id}`}
        >
          <QrCode2 fontSize="small" />
        </IconButton>
      ),
    },
  ];

  return (
    <>
      <OperationList<SubPartner>
        prefix="subPartners"
        testid="sub-partner"
        columns={columns}
        responsive={{
          wide: ["created_at", "contact_email"],
          desktop: ["contact_name", "application_count"],
          phone: ["referral_key", "fee_share_percent"],
        }}
        list={list}
        deactivate={deactivate}
        editable={editable}
        onAdd={() => open({ id: null, values: EMPTY_SUB_PARTNER })}
        onEdit={(row) => open({ id: row.id, values: toForm(row, language) })}
        dialog={
          printing ? (
            <SubPartnerQrDialog id={printing.id} name={printing.name} onClose={() => setPrinting(null)} />
          ) : (
            editing && (
              <EntityDialog<SubPartnerForm>
                title={editing.id === null ? t("subPartners.add") : t("subPartners.edit")}
                fields={fields}
                schema={subPartnerFormSchema}
                initial={editing.values}
                save={(values) => save.mutateAsync({ id: editing.id, values: subPartnerPayload(values) })}
                onDraft={draft}
                onClose={() => open(null)}
                testid="sub-partner-form"
              />
            )
          )
        }
      />
      {can.admin(me.role) && <CommissionStatement />}
    </>
  );
}
