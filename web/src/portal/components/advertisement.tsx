import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { useTranslation } from "react-i18next";

import type { ThemeBundle } from "@/api/config";
import { usePartner } from "@/shared/lib/partner-context";
import { SafeHtml } from "@/shared/ui/safe-html";

import { advertisementCount } from "../api/quota-applications";

/** How wide the banner may be drawn: the full column, but never so high that its text
 * outgrows the page title (the compiler's bound per viewport, themes.logo). */
export function bannerWidth(banner: ThemeBundle["assets"]["adBanner"]) {
  if (!banner) return "100%";
  return {
    xs: `min(100%, ${Math.floor(banner.phone.maxHeight * banner.aspect)}px)`,
    sm: `min(100%, ${Math.floor(banner.desktop.maxHeight * banner.aspect)}px)`,
  };
}

type PartnerAdvertisement = ReturnType<typeof usePartner>["partneradvertisement"];

/** Whether a phone shows the text advertisement in place of the image: the image's smallest
 * text would be drawn below 12 px there (the compiler measured it, themes.logo) and the
 * partner wrote a headline to show instead. */
export function phoneShowsText(advertisement: PartnerAdvertisement, banner: ThemeBundle["assets"]["adBanner"]) {
  return advertisement.type === "image" && Boolean(advertisement.headline) && banner?.phone.legible === false;
}

/** Headline, text and a button in the site's own typography: the headline a section heading,
 * below the page title's size. */
function TextAd({ advertisement, onClick }: { advertisement: PartnerAdvertisement; onClick: () => void }) {
  const { t } = useTranslation();
  return (
    <Box data-testid="advertisement-text-ad" sx={{ p: { xs: 2, sm: 3 }, borderRadius: 1, border: 1, borderColor: "divider" }}>
      {advertisement.headline && (
        <Typography variant="h3" component="p" sx={{ mb: 1 }} data-testid="advertisement-headline">
          {advertisement.headline}
        </Typography>
      )}
      {advertisement.text && <Typography sx={{ mb: advertisement.url ? 2 : 0 }}>{advertisement.text}</Typography>}
      {advertisement.url && (
        <Button
          variant="contained"
          href={advertisement.url}
          target="_blank"
          rel="noopener noreferrer"
          onClick={onClick}
          data-testid="advertisement-link"
        >
          {advertisement.button_label || t("registrations.advertisementMore")}
        </Button>
      )}
    </Box>
  );
}

/** The partner's advertisement: an image linking out (each click counted), a text ad in the
 * site's own typography (headline below the page title's size, a button), or sanitised free text.
 * An image whose text a phone would shrink below legibility gives way there to the text ad. */
export function Advertisement() {
  const { t } = useTranslation();
  const partner = usePartner();
  const advertisement = partner.partneradvertisement;
  if (!advertisement.enabled) return null;
  const count = () => advertisement.id !== null && advertisementCount(advertisement.id);
  const banner = partner.theme.assets.adBanner;
  let content;
  if (advertisement.type === "image" && advertisement.image) {
    const phoneText = phoneShowsText(advertisement, banner);
    content = (
      <>
        <Box
          component="a"
          href={advertisement.url || undefined}
          target="_blank"
          rel="noopener noreferrer"
          onClick={count}
          data-testid="advertisement-link"
          // display none (not merely hidden) on a phone: neither seen nor read out twice
          sx={{ display: phoneText ? { xs: "none", sm: "block" } : "block" }}
        >
          <Box
            component="img"
            src={advertisement.image}
            alt={t("registrations.advertisement")}
            data-testid="advertisement-image"
            // for the layout checks: the largest and the smallest text's share of the image's height
            data-text-share={banner?.textShare}
            data-smallest-share={banner?.smallestShare ?? undefined}
            sx={{ display: "block", width: bannerWidth(banner), height: "auto", borderRadius: 1 }}
          />
        </Box>
        {phoneText && (
          <Box sx={{ display: { xs: "block", sm: "none" } }}>
            <TextAd advertisement={advertisement} onClick={count} />
          </Box>
        )}
      </>
    );
  } else if (advertisement.type === "text") {
    content = <TextAd advertisement={advertisement} onClick={count} />;
  } else {
    content = <SafeHtml html={advertisement.freetext} testId="advertisement-text" />;
  }
  return (
    <Box component="aside" aria-label={t("registrations.advertisement")} sx={{ mb: 3 }} data-testid="advertisement">
      <Typography variant="caption" color="text.secondary">
        {t("registrations.advertisement")}
      </Typography>
      {content}
    </Box>
  );
}
