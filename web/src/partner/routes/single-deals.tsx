import type { GridColDef } from "@mui/x-data-grid";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";

import { can } from "../api/auth";
import { type SingleDeal, useOperationDeactivate, useOperationList, useOperationSave } from "../api/operations";
import { EntityDialog, type FieldSpec } from "../components/entity-dialog";
import { OperationList } from "../components/operation-list";
import { EMPTY_SINGLE_DEAL, type SingleDealForm, singleDealFormSchema, singleDealPayload } from "../forms/schemas";
import { euros } from "../lib/format";
import { useListQuery } from "../lib/list-query";
import { useStaffMember } from "../lib/staff-context";
import { localGet, localSet } from "../lib/storage";

type Editing = { id: number | null; values: SingleDealForm };
type StoredDeal = Editing & { id: number | null };

/** The editor left open, from `single-deal-details` ({id, values}). */
function storedEditing(): Editing | null {
  const stored = localGet<StoredDeal>("singleDealDetails");
  if (!stored || typeof stored !== "object" || !stored.values) return null;
  return { id: typeof stored.id === "number" ? stored.id : null, values: { ...EMPTY_SINGLE_DEAL, ...stored.values } };
}

function toForm(item: SingleDeal): SingleDealForm {
  return {
    name: item.name,
    customer: item.customer ?? "",
    deal_key: item.deal_key,
    price_net: item.price_net,
    vat_percent: item.vat_percent,
    legislation_years: item.legislation_years.join(", "),
    vehicle_cap: item.vehicle_cap === null ? "" : String(item.vehicle_cap),
  };
}

export function SingleDeals() {
  const { t, i18n } = useTranslation();
  const me = useStaffMember();
  const editable = can.edit(me.role);
  const { query } = useListQuery();
  const list = useOperationList("single_deals", query);
  const deactivate = useOperationDeactivate("single_deals");
  const save = useOperationSave("single_deals");
  const [editing, setEditing] = useState<Editing | null>(() => (editable ? storedEditing() : null));
  const open = (next: Editing | null) => {
    localSet("singleDealDetails", next);
    setEditing(next);
  };
  const id = editing?.id ?? null;
  const draft = useCallback((values: SingleDealForm) => localSet("singleDealDetails", { id, values }), [id]);

  const fields: FieldSpec<SingleDealForm>[] = [
    { name: "name", label: t("singleDeals.name") },
    { name: "customer", label: t("singleDeals.customer") },
    { name: "deal_key", label: t("singleDeals.dealKey"), help: t("singleDeals.dealKeyHelp") },
    { name: "price_net", label: t("singleDeals.priceNet"), inputMode: "decimal" },
    { name: "vat_percent", label: t("singleDeals.vat"), inputMode: "decimal" },
    { name: "legislation_years", label: t("singleDeals.years"), inputMode: "numeric" },
    { name: "vehicle_cap", label: t("singleDeals.cap"), inputMode: "numeric" },
  ];
  const language = i18n.language;
  // Beside the menu on a 1440 px screen the grid has about 1150 px: the gross price steps aside
  // below 1700 px, the customer and the years below 1400 px, the deal key and the vehicles used
  // on a phone; the edit and deactivate buttons always show.
  const columns: GridColDef<SingleDeal>[] = [
    { field: "name", headerName: t("singleDeals.name"), minWidth: 150, flex: 1, hideable: false },
    { field: "customer", headerName: t("singleDeals.customer"), minWidth: 130, flex: 1 },
    { field: "deal_key", headerName: t("singleDeals.dealKey"), width: 140 },
    {
      field: "price_net",
      headerName: t("singleDeals.priceNet"),
      width: 130,
      align: "right",
      headerAlign: "right",
      valueFormatter: (value: string) => euros(value, language),
    },
    {
      field: "price_gross",
      headerName: t("singleDeals.priceGross"),
      width: 105,
      align: "right",
      headerAlign: "right",
      valueFormatter: (value: string) => euros(value, language),
    },
    {
      field: "legislation_years",
      headerName: t("applications.year"),
      width: 100,
      valueFormatter: (value: number[]) => value.join(", "),
    },
    {
      field: "vehicles_used",
      headerName: `${t("singleDeals.used")} / ${t("singleDeals.cap")}`,
      width: 130,
      valueGetter: (_value, row) => `${row.vehicles_used} / ${row.vehicle_cap ?? "∞"}`,
    },
    {
      field: "is_active",
      headerName: t("singleDeals.active"),
      width: 80,
      valueFormatter: (value: boolean) => (value ? t("form.yes") : t("form.no")),
    },
  ];

  return (
    <OperationList<SingleDeal>
      prefix="singleDeals"
      testid="single-deal"
      columns={columns}
      responsive={{
        wide: ["price_gross"],
        desktop: ["customer", "legislation_years"],
        phone: ["deal_key", "vehicles_used"],
      }}
      list={list}
      deactivate={deactivate}
      editable={editable}
      onAdd={() => open({ id: null, values: EMPTY_SINGLE_DEAL })}
      onEdit={(row) => open({ id: row.id, values: toForm(row) })}
      dialog={
        editing && (
          <EntityDialog<SingleDealForm>
            title={editing.id === null ? t("singleDeals.add") : t("singleDeals.edit")}
            fields={fields}
            schema={singleDealFormSchema}
            initial={editing.values}
            save={(values) => save.mutateAsync({ id: editing.id, values: singleDealPayload(values) })}
            onDraft={draft}
            onClose={() => open(null)}
            testid="single-deal-form"
          />
        )
      }
    />
  );
}
