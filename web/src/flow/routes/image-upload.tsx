import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import LinearProgress from "@mui/material/LinearProgress";
import MobileStepper from "@mui/material/MobileStepper";
import Typography from "@mui/material/Typography";
import { type ChangeEvent, type DragEvent, useEffect, useRef, useState } from "react";
import { Navigate, useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import introImage from "@/flow/assets/scan-intro.svg";
import introMp4 from "@/flow/assets/scan-intro.mp4";
import introWebm from "@/flow/assets/scan-intro.webm";
import tutorialSurface from "@/flow/assets/tutorial-1-surface.svg";
import tutorialLight from "@/flow/assets/tutorial-2-light.svg";
import tutorialCorners from "@/flow/assets/tutorial-3-corners.svg";
import tutorialCheck from "@/flow/assets/tutorial-4-check.svg";
import { useSystemConstraints } from "@/flow/api/system-constraints";
import { useScanUpload } from "@/flow/components/use-scan-upload";
import { isDesktop } from "@/shared/lib/device";
import { isB2BPath, withQuery } from "@/shared/lib/navigation";
import { storeGet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { useToaster } from "@/shared/ui/toaster";

export const ACCEPTED_FILES = "image/*,application/pdf";
export const TUTORIAL_STEPS = 4;
export const VIDEO_AFTER_MS = 2000;
export const AFTER_PHOTO_DELAY_MS = 1000;
/** One picture per tutorial step: unfolded on a dark surface, good light without shadows,
 * all four corners in the frame, every field readable. */
const TUTORIAL_IMAGES = [tutorialSurface, tutorialLight, tutorialCorners, tutorialCheck] as const;

/** ImageUploadWrapper: the tutorial on a phone, the upload view on a desktop. */
export function ImageUploadWrapper() {
  const t = useTexts();
  const toast = useToaster();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  const constraints = useSystemConstraints();
  const scan = useScanUpload(constraints.data);

  useEffect(() => {
    if (constraints.isError) toast(t("error.receivingData"));
  }, [constraints.isError, toast, t]);

  if (storeGet<boolean>("bevRegistrationCompleted")) {
    return <Navigate to={withQuery(b2b ? PATHS.FinishB2B : PATHS.Billing, search)} replace />;
  }
  return (
    <Layout>
      {isDesktop() ? <UploadView scan={scan} /> : <Tutorial scan={scan} />}
      {scan.progress !== null && (
        <Box sx={{ mt: 3 }}>
          <Box role="status" aria-live="polite">
            <Typography variant="body2" sx={{ mb: 1, textAlign: "center" }} data-testid="upload-state">
              {scan.checking ? t("upload.checking") : `${t("upload.uploading")} ${Math.round(scan.progress * 100)} %`}
            </Typography>
          </Box>
          {/* While the server reads the scan the bar runs on without a figure. */}
          <LinearProgress
            variant={scan.checking ? "indeterminate" : "determinate"}
            value={Math.round(scan.progress * 100)}
            aria-label={scan.checking ? t("upload.checking") : t("upload.uploading")}
            data-testid="upload-progress"
          />
          <Button variant="text" fullWidth sx={{ mt: 1 }} onClick={scan.cancel} data-testid="upload-cancel">
            {t("upload.cancel")}
          </Button>
        </Box>
      )}
      {scan.error && (
        <Alert severity="error" sx={{ mt: 3 }} data-testid="scan-error">
          {scan.error}
        </Alert>
      )}
      {scan.error && scan.willSkipClassifier && (
        <Typography variant="body2" sx={{ mt: 1 }} data-testid="scan-retry-hint">
          {t("upload.retryHint")}
        </Typography>
      )}
    </Layout>
  );
}

type Scan = ReturnType<typeof useScanUpload>;

function fileOf(event: ChangeEvent<HTMLInputElement>): File | null {
  const file = event.target.files?.[0] ?? null;
  event.target.value = ""; // the same file may be chosen again after an error
  return file;
}

/** The phone tutorial: four steps, 'Nächster Schritt', then 'Scan starten' with the camera. */
function Tutorial({ scan }: { scan: Scan }) {
  const t = useTexts();
  const { theme } = usePartner();
  const [step, setStep] = useState(0);
  const [waiting, setWaiting] = useState(false);
  const camera = useRef<HTMLInputElement>(null);
  const last = step === TUTORIAL_STEPS - 1;

  // Browser back resets the tutorial to its first step.
  useEffect(() => {
    const reset = () => setStep(0);
    window.addEventListener("popstate", reset);
    return () => window.removeEventListener("popstate", reset);
  }, []);

  const next = () => {
    window.history.pushState(window.history.state, "", window.location.href);
    setStep((current) => Math.min(current + 1, TUTORIAL_STEPS - 1));
  };
  const photo = (event: ChangeEvent<HTMLInputElement>) => {
    const file = fileOf(event);
    if (!file) return;
    setWaiting(true);
    window.setTimeout(() => {
      setWaiting(false);
      void scan.upload(file);
    }, AFTER_PHOTO_DELAY_MS);
  };
  const busy = waiting || scan.progress !== null;

  return (
    <Box>
      <PageTitle>{t("tutorial.title")}</PageTitle>
      <Box component="img" src={TUTORIAL_IMAGES[step]} alt="" sx={{ display: "block", width: "100%", maxWidth: 320, aspectRatio: "8 / 5", mx: "auto", mb: 2 }} data-testid="tutorial-image" />
      <Typography sx={{ minHeight: "4.5em", textAlign: theme.tokens.itemAlignment }} data-testid="tutorial-text" aria-live="polite">
        {t(`tutorial.step${step + 1}`)}
      </Typography>
      <MobileStepper
        variant="dots"
        steps={TUTORIAL_STEPS}
        position="static"
        activeStep={step}
        sx={{ justifyContent: "center", bgcolor: "transparent", my: 2 }}
        backButton={null}
        nextButton={null}
        data-testid="tutorial-stepper"
      />
      {!last ? (
        <Button variant="contained" size="large" fullWidth onClick={next} data-testid="tutorial-next">
          {t("tutorial.next")}
        </Button>
      ) : (
        <Button variant="contained" size="large" fullWidth disabled={busy} onClick={() => camera.current?.click()} data-testid="tutorial-scan">
          {t("tutorial.start")}
        </Button>
      )}
      <input ref={camera} type="file" accept={ACCEPTED_FILES} capture="environment" hidden onChange={photo} data-testid="scan-input" />
    </Box>
  );
}

/** Picture and video sit as the phone's tutorial picture does: a centred block, the button of
 * the same width below (no inline baseline gap, whatever the partner's text alignment). */
const MEDIA = { display: "block", width: "100%", maxWidth: 320, aspectRatio: "8 / 5", mx: "auto" } as const;

/** The desktop upload view: the intro image turns into a video after 2 s; image or PDF. */
function UploadView({ scan }: { scan: Scan }) {
  const t = useTexts();
  const { theme } = usePartner();
  const [video, setVideo] = useState(false);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const timer = window.setTimeout(() => setVideo(true), VIDEO_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, []);

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const file = fileOf(event);
    if (file) void scan.upload(file);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && scan.progress === null) void scan.upload(file);
  };

  return (
    <Box>
      <PageTitle>{t("upload.title")}</PageTitle>
      <Typography sx={{ mb: 2, textAlign: theme.tokens.itemAlignment }}>{t("upload.text")}</Typography>
      <Box
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        sx={{ border: 2, borderStyle: "dashed", borderColor: dragging ? "primary.main" : "divider", borderRadius: 2, p: 2, textAlign: "center" }}
        data-testid="upload-dropzone"
      >
        {video ? (
          <Box component="video" autoPlay muted loop playsInline aria-hidden sx={MEDIA} data-testid="upload-video">
            <source src={introWebm} type="video/webm" />
            <source src={introMp4} type="video/mp4" />
          </Box>
        ) : (
          <Box component="img" src={introImage} alt="" sx={MEDIA} data-testid="upload-image" />
        )}
        <Button variant="contained" size="large" fullWidth sx={{ mt: 2, maxWidth: 320, mx: "auto", display: "flex" }} disabled={scan.progress !== null} onClick={() => input.current?.click()} data-testid="upload-choose">
          {t("upload.choose")}
        </Button>
        <input ref={input} type="file" accept={ACCEPTED_FILES} hidden onChange={choose} data-testid="upload-input" />
      </Box>
    </Box>
  );
}
