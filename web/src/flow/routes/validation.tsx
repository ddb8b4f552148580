import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { Navigate, useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { clientCreate } from "@/flow/api/client-create";
import { clientLock } from "@/flow/api/client-lock";
import { registrationLock } from "@/flow/api/registration-lock";
import { useBlockBack } from "@/shared/lib/block-back";
import { isB2BPath, useFlowNavigate, withQuery } from "@/shared/lib/navigation";
import { storeGet, storeSet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { useToaster } from "@/shared/ui/toaster";

/** The B2B placeholder client of section 3. */
export function b2bClientPayload(search: string): Record<string, unknown> {
  return {
    first_name: "registration",
    last_name: "b2b2c",
    free_text: "",
    charge_card: storeGet<string>("chargeCardId") ?? "",
    campaign: storeGet<string>("campaign") ?? "",
    full_url_variable_string: search.replace(/^\?/, ""),
    source: "b2b_fe",
  };
}

/** Validation / ValidationB2B: the scan is registered; lock it and go on. */
export function Validation() {
  const t = useTexts();
  const partner = usePartner();
  const toast = useToaster();
  const navigate = useFlowNavigate();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  const [busy, setBusy] = useState(false);
  useBlockBack();

  const registrationId = storeGet<number>("bevRegistrationId");
  if (!storeGet<boolean>("imageSuccess") || registrationId === null) {
    return <Navigate to={withQuery(b2b ? PATHS.ImageUploadWrapperB2B : PATHS.ImageUploadWrapper, search)} replace />;
  }

  const proceed = async () => {
    setBusy(true);
    try {
      await registrationLock(registrationId);
      storeSet("bevRegistrationCompleted", true);
      if (b2b) {
        const client = await clientCreate(b2bClientPayload(search));
        await clientLock(client.id);
        storeSet("billingSuccess", true);
        navigate(PATHS.FinishB2B);
      } else {
        navigate(PATHS.Billing);
      }
    } catch {
      toast(t("error.upload"));
      setBusy(false);
    }
  };

  const another = async () => {
    setBusy(true);
    try {
      await registrationLock(registrationId);
      storeSet("imageSuccess", false);
      storeSet("bevRegistrationId", null);
      navigate(b2b ? PATHS.ImageUploadWrapperB2B : PATHS.ImageUploadWrapper);
    } catch {
      toast(t("error.upload"));
      setBusy(false);
    }
  };

  const quoteId = storeGet<number>("quoteId");
  return (
    <Layout>
      <PageTitle>{t("validation.title")}</PageTitle>
      {quoteId !== null && (
        <Typography sx={{ textAlign: partner.theme.tokens.itemAlignment, mb: 3 }} data-testid="validation-quote">
          {t("finish.quoteId").replace("{id}", String(quoteId))}
        </Typography>
      )}
      <Box sx={{ display: "flex", flexDirection: "column", gap: 2 }}>
        <Button variant="contained" size="large" fullWidth disabled={busy} onClick={() => void proceed()} data-testid="validation-next">
          {t("common.next")}
        </Button>
        {partner.theme.flags.multipleUploads && (
          <Button variant="outlined" size="large" fullWidth disabled={busy} onClick={() => void another()} data-testid="validation-more">
            {t("validation.more")}
          </Button>
        )}
      </Box>
    </Layout>
  );
}
