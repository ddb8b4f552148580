/** The tag manager runs only for an id that starts with 'GTM' and has at least 10 characters. */
export function shouldInjectTagManager(gtmId: string | null | undefined): gtmId is string {
  return typeof gtmId === "string" && gtmId.startsWith("GTM") && gtmId.length >= 10;
}

export function injectTagManager(gtmId: string, doc: Document = document): void {
  if (!shouldInjectTagManager(gtmId) || doc.getElementById("gtm-script")) return;
  const win = doc.defaultView as (Window & { dataLayer?: unknown[] }) | null;
  if (win) {
    win.dataLayer = win.dataLayer ?? [];
    win.dataLayer.push({ "gtm.start": Date.now(), event: "gtm.js" });
  }
  const script = doc.createElement("script");
  script.id = "gtm-script";
  script.async = true;
  script.src = `https://www.googletagmanager.com/gtm.js?id=${encodeURIComponent(gtmId)}`;
  doc.head.appendChild(script);
}
