import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";

import { App, type AppState, loadPartner } from "@/app/app";
import { startErrorReporting } from "@/shared/lib/error-reporting";

// Nothing is loaded unless the server named a DSN in the page (error-reporting.ts).
void startErrorReporting();

const root = document.getElementById("root");

function start(initial?: AppState): void {
  if (!root) return;
  const app = createRoot(root);
  // A transition: React renders the first screen in slices of a few milliseconds, so a slow
  // phone's main thread stays free for input while the app starts (one commit at the end).
  startTransition(() =>
    app.render(
      <StrictMode>
        <App initial={initial} />
      </StrictMode>,
    ),
  );
}

// The server's page shows the partner's spinner until the app renders (tenants.web_views, BOOT):
// the first render waits for the configuration, so it is the partner's screen at once.
if (root?.firstElementChild) void loadPartner().then(start);
else start();
