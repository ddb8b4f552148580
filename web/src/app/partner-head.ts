import type { PartnerConfig } from "@/api/config";
import { injectTagManager, shouldInjectTagManager } from "@/shared/lib/tag-manager";
import { loadFont } from "@/theme/fonts";

/** Title, favicon, font and tag manager of the partner, set once the configuration is in. */
export function applyPartnerHead(config: PartnerConfig, doc: Document = document): void {
  doc.title = config.page_title;
  const favicon = config.theme.assets.favicon;
  if (favicon) {
    let link = doc.querySelector<HTMLLinkElement>("link[rel='icon']");
    if (!link) {
      link = doc.createElement("link");
      link.rel = "icon";
      doc.head.appendChild(link);
    }
    link.href = favicon;
  }
  void loadFont(config.theme.font.package, doc);
  const gtm = config.theme.flags.tagManager;
  if (shouldInjectTagManager(gtm)) injectTagManager(gtm, doc);
}
