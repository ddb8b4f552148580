import Accordion from "@mui/material/Accordion";
import AccordionDetails from "@mui/material/AccordionDetails";
import AccordionSummary from "@mui/material/AccordionSummary";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { useFlowNavigate } from "@/shared/lib/navigation";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { SafeHtml } from "@/shared/ui/safe-html";

/** Only an embeddable YouTube address becomes a video frame. */
export function youtubeEmbed(url: string): string | null {
  const id = /(?:youtube\.com\/(?:watch\?v=|embed\/)|youtu\.be\/)([\w-]{6,20})/.exec(url)?.[1];
  return id ? `https://www.youtube-nocookie.com/embed/${id}` : null;
}

/** FAQ: the partner's questions and answers, and its explainer video when configured. */
export function Faq() {
  const t = useTexts();
  const partner = usePartner();
  const navigate = useFlowNavigate();
  const video = youtubeEmbed(partner.faq_youtube_video_link);
  return (
    <Layout>
      <PageTitle>{t("faq.title")}</PageTitle>
      {video && (
        <Box sx={{ position: "relative", pt: "56.25%", mb: 3 }}>
          <iframe
            src={video}
            title={t("faq.title")}
            allow="encrypted-media; picture-in-picture"
            allowFullScreen
            style={{ position: "absolute", inset: 0, width: "100%", height: "100%", border: 0 }}
          />
        </Box>
      )}
      {partner.pages.faq.length === 0 && <Typography>{t("faq.empty")}</Typography>}
      {partner.pages.faq.map((item, index) => (
        <Accordion key={index} disableGutters>
          <AccordionSummary aria-controls={`faq-${index}`} id={`faq-${index}-q`}>
            <Typography sx={{ fontWeight: 600 }}>{item.question}</Typography>
          </AccordionSummary>
          <AccordionDetails id={`faq-${index}`}>
            <SafeHtml html={item.answer} />
          </AccordionDetails>
        </Accordion>
      ))}
      <Box sx={{ mt: 3, textAlign: "center" }}>
        <Button variant="outlined" onClick={() => navigate(PATHS.TermsView)}>
          {t("common.back")}
        </Button>
      </Box>
    </Layout>
  );
}
