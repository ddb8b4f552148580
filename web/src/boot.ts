/**
 * The page's early script (a chunk of its own, `async` in index.html: vite.config.ts,
 * bootScript): on a partner's page served by the server, it asks for the partner's
 * configuration while the app's scripts are still on their way, instead of after them.
 * api/config.ts takes the answer (takeEarlyConfigCall) and makes the same call itself when
 * there is none. It imports nothing, so it stays a few hundred bytes.
 */
export {};

declare global {
  interface Window {
    /** The early call; null once the app has asked itself (it was faster: no second call). */
    thgConfigCall?: { url: string; response: Promise<Response> } | null;
  }
}

// The partner the server named in the page (tenants.web_views); the dev server's page names none.
const subdomain = document.querySelector<HTMLMetaElement>('meta[name="thg-partner"]')?.content.trim().toLowerCase();
if (subdomain && window.thgConfigCall === undefined) {
  // The same call as fetchPartnerConfig: plain, JSON content type, German (spec section 7).
  // A console preview link's token goes along (a framed preview gets no cookie across sites).
  const preview = new URLSearchParams(window.location.search).get("thg_preview");
  const url = `/api/configs/${encodeURIComponent(subdomain)}/` + (preview ? `?thg_preview=${encodeURIComponent(preview)}` : "");
  const response = fetch(url, { headers: { "Content-Type": "application/json", "Accept-Language": "de" } });
  response.catch(() => {}); // a failure is the app's to report, when it takes the answer
  window.thgConfigCall = { url, response };
}

// The portal's login (tenants.web_views, PORTAL_LOGIN_PATHS): the server paints the login's card
// from the page and names the app's scripts in a meta instead of loading them. They are
// fetched after that first paint (a frame later), so the paint, which is the page's largest
// text, waits for nothing but the page and its fonts. The entry takes the meta's place: the
// page is then the one every other route gets (version-check.tsx reads its entry from there).
const entry = document.querySelector<HTMLMetaElement>('meta[name="thg-entry"]');
if (entry) {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    for (const href of (entry.dataset.preload ?? "").split(" ").filter(Boolean)) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.crossOrigin = "";
      link.href = href;
      document.head.append(link);
    }
    const script = document.createElement("script");
    script.type = "module";
    script.crossOrigin = "";
    script.src = entry.content;
    entry.replaceWith(script);
  };
  // After the frame that paints the card; a tab opened in the background paints none.
  requestAnimationFrame(() => setTimeout(start, 0));
  setTimeout(start, 1000);
}
