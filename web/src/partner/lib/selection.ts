import type { GridRowId, GridRowSelectionModel } from "@mui/x-data-grid";

/**
 * The ids a grid's selection model stands for. An `include` model lists the selected rows
 * (those of other pages kept: keepNonExistentRowsSelected); an `exclude` model, what the
 * header's "select all" sets, lists the rows left OUT, so its `ids` must never be read as the
 * selection: it stands for every loaded row but those.
 */
export function selectedRowIds(model: GridRowSelectionModel, loaded: readonly GridRowId[]): number[] {
  if (model.type === "exclude") return loaded.filter((id) => !model.ids.has(id)).map(Number);
  return [...model.ids].map(Number);
}
