import { createTheme, type Theme, type ThemeOptions } from "@mui/material/styles";

import type { ThemeBundle } from "@/api/config";

/** What every partner's theme shares: field messages are announced when they appear; a
 * heading the screen announcer focused (tabindex -1) is outlined only when the visitor came
 * by keyboard (app/screen-announcer sets data-focus-ring), a little apart from its letters. */
const ACCESSIBILITY: ThemeOptions = {
  components: {
    MuiFormHelperText: { defaultProps: { role: "alert" } },
    MuiCssBaseline: {
      styleOverrides: {
        "h1[tabindex='-1']:focus:not([data-focus-ring])": { outline: "none" },
        "h1[tabindex='-1'][data-focus-ring]:focus-visible": {
          outline: "2px solid currentColor",
          outlineOffset: "4px",
          borderRadius: "2px",
        },
      },
    },
  },
};

/** React only calls createTheme: every partner decision was made by the server's compiler. */
export function buildTheme(bundle: ThemeBundle): Theme {
  return createTheme(bundle.mui as ThemeOptions, ACCESSIBILITY);
}
