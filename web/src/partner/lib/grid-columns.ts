import useMediaQuery from "@mui/material/useMediaQuery";
import type { GridColumnVisibilityModel } from "@mui/x-data-grid";
import { useState } from "react";

/** Columns that step aside on a smaller screen: below 1700 px (`wide`), below 1400 px
 * (`desktop`, a 1280 px laptop) and on a phone (below 600 px). Each set holds the ones before. */
export type ResponsiveColumns = { wide?: string[]; desktop?: string[]; phone?: string[] };

/**
 * A grid's column visibility by screen width, so its columns fit beside the menu and the action
 * column stays in reach (a 1440 px screen leaves the grid about 1150 px). The grid's column menu
 * shows a hidden column again (`onChange`); the user's choice wins over the width's.
 */
export function useResponsiveColumns(columns: ResponsiveColumns): {
  model: GridColumnVisibilityModel;
  onChange: (model: GridColumnVisibilityModel) => void;
} {
  const wide = useMediaQuery("(min-width:1700px)", { noSsr: true });
  const roomy = useMediaQuery("(min-width:1400px)", { noSsr: true });
  const phone = !useMediaQuery("(min-width:600px)", { noSsr: true });
  const [shown, setShown] = useState<GridColumnVisibilityModel>({});
  const hidden = [
    ...(wide ? [] : (columns.wide ?? [])),
    ...(roomy ? [] : (columns.desktop ?? [])),
    ...(phone ? (columns.phone ?? []) : []),
  ];
  const model = Object.fromEntries(hidden.map((field) => [field, false]));
  return { model: { ...model, ...shown }, onChange: setShown };
}
