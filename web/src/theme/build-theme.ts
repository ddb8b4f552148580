import { createTheme, type Theme, type ThemeOptions } from "@mui/material/styles";

import type { ThemeBundle } from "@/api/config";

/** What every partner's theme shares: field messages are announced when they appear. */
const ACCESSIBILITY: ThemeOptions = {
  components: { MuiFormHelperText: { defaultProps: { role: "alert" } } },
};

/** React only calls createTheme: every partner decision was made by the server's compiler. */
export function buildTheme(bundle: ThemeBundle): Theme {
  return createTheme(bundle.mui as ThemeOptions, ACCESSIBILITY);
}
