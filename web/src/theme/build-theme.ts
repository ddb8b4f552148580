import { createTheme, type Theme, type ThemeOptions } from "@mui/material/styles";

import type { ThemeBundle } from "@/api/config";

/** React only calls createTheme: every partner decision was made by the server's compiler. */
export function buildTheme(bundle: ThemeBundle): Theme {
  return createTheme(bundle.mui as ThemeOptions);
}
