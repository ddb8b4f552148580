/**
 * A partner that does not exist yet: paste or upload its configuration JSON, choose the kind
 * and a screen, and see it as users will, compiled by the real theme compiler (the server's
 * `POST /api/config_previews/`, reached through Storybook's proxy when it runs beside
 * `make run`). An invalid configuration shows the configuration schema's messages per field.
 */
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { type ChangeEvent, useCallback, useEffect, useState } from "react";
import { MemoryRouter } from "react-router";
import { within } from "storybook/test";

import type { PartnerConfig } from "@/api/config";
import { PartnerProviders, PartnerScreens } from "@/app/app";

import { PARTNERS } from "./partners";

const OWN_FIELDS = new Set(["theme", "frontend_active", "subdomain", "name", "kind"]);
const ROUTES = ["/", "/welcome", "/terms", "/termsdetails", "/privacydetails", "/login", "/faq", "/impressum", "/portal/auth/login"];

function starter(): string {
  const config = Object.fromEntries(Object.entries(PARTNERS.standard).filter(([key]) => !OWN_FIELDS.has(key)));
  return JSON.stringify(config, null, 2);
}

type Result = { state: "idle" } | { state: "ready"; config: PartnerConfig } | { state: "invalid"; errors: Record<string, string[]> } | { state: "failed"; message: string };

function ConfigPreview() {
  const [text, setText] = useState(starter);
  const [kind, setKind] = useState<"standard" | "utility" | "wallbox">("standard");
  const [route, setRoute] = useState("/");
  const [result, setResult] = useState<Result>({ state: "idle" });

  const compile = useCallback(async () => {
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch (error) {
      setResult({ state: "invalid", errors: { JSON: [String(error)] } });
      return;
    }
    try {
      const response = await fetch("/api/config_previews/", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ kind, name: "Neuer Partner", config }),
      });
      const body: unknown = await response.json().catch(() => null);
      if (response.status === 400 && body && typeof body === "object" && "errors" in body) {
        setResult({ state: "invalid", errors: (body as { errors: Record<string, string[]> }).errors });
      } else if (response.ok) {
        // the server's answer, PartnerConfigOut (tests/api/test_configs.py checks it)
        setResult({ state: "ready", config: body as PartnerConfig });
      } else {
        setResult({ state: "failed", message: `Der Vorschau-Server antwortet mit ${response.status}: starten Sie \`make run\` und \`npm run storybook\`.` });
      }
    } catch {
      setResult({ state: "failed", message: "Der Vorschau-Server ist nicht erreichbar: starten Sie `make run` und `npm run storybook`." });
    }
  }, [text, kind]);

  // Compiled once on open; afterwards on request (the button), not on every keystroke.
  const [opened] = useState(() => compile);
  useEffect(() => {
    void opened();
  }, [opened]);

  const upload = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) void file.text().then(setText);
  };

  return (
    <Box component="main" sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", lg: "420px 1fr" }, p: 2 }}>
      <Stack spacing={2}>
        <TextField label="Konfiguration (JSON)" multiline minRows={16} maxRows={30} value={text} onChange={(event) => setText(event.target.value)} slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: "monospace", fontSize: 12 } } }} />
        <Button variant="outlined" component="label">
          JSON-Datei laden
          <input type="file" accept="application/json,.json" hidden onChange={upload} />
        </Button>
        <TextField select label="Partnerart" value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
          {["standard", "utility", "wallbox"].map((value) => (
            <MenuItem key={value} value={value}>
              {value}
            </MenuItem>
          ))}
        </TextField>
        <TextField select label="Bildschirm" value={route} onChange={(event) => setRoute(event.target.value)}>
          {ROUTES.map((value) => (
            <MenuItem key={value} value={value}>
              {value}
            </MenuItem>
          ))}
        </TextField>
        <Button variant="contained" onClick={() => void compile()} data-testid="preview-compile">
          Vorschau erstellen
        </Button>
        {result.state === "invalid" && (
          <Alert severity="error" data-testid="preview-errors">
            {Object.entries(result.errors).map(([field, messages]) => (
              <div key={field}>
                <strong>{field}</strong>: {messages.join(" ")}
              </div>
            ))}
          </Alert>
        )}
        {result.state === "failed" && (
          <Alert severity="info" data-testid="preview-offline">
            {result.message}
          </Alert>
        )}
      </Stack>
      <Box sx={{ border: 1, borderColor: "divider", borderRadius: 1, minHeight: 600, overflow: "auto" }} data-testid="preview-screen">
        {result.state === "ready" && (
          <PartnerProviders config={result.config}>
            <MemoryRouter key={`${route}-${result.config.theme.version}`} initialEntries={[route]}>
              <PartnerScreens />
            </MemoryRouter>
          </PartnerProviders>
        )}
      </Box>
    </Box>
  );
}

const meta = { title: "Designer preview", component: ConfigPreview, tags: ["desktop"] } satisfies Meta<typeof ConfigPreview>;

export default meta;

/** Ends when the starter configuration's screen is there (compiled by the server, then its lazy screen). */
export const AnyConfiguration: StoryObj<typeof meta> = {
  name: "A partner that does not exist yet",
  globals: { viewport: { value: "desktop", isRotated: false } },
  play: async ({ canvasElement }) => {
    const screen = await within(canvasElement).findByTestId("preview-screen");
    await within(screen).findByRole("heading", { level: 1 }, { timeout: 20_000 });
  },
};
