import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { I18nextProvider } from "react-i18next";
import { Navigate, Route, Routes, useLocation, useNavigate } from "react-router";

import { lazyScreen } from "@/shared/lib/lazy-screen";
import { NotFound } from "@/shared/ui/not-found";

import { ME_KEY } from "./api/auth";
import { onPartnerUnauthenticated, setPartnerLanguage } from "./api/client";
import { PartnerLayout } from "./components/layout";
import { createPartnerI18n } from "./i18n";
import { PARTNER_PATHS } from "./lib/paths";
import { InviteScreen } from "./routes/invite";
import { LoginScreen } from "./routes/login";

// The grid and the charts travel only with the screens that show them.
const Dashboard = lazyScreen(() => import("./routes/dashboard"), "Dashboard", { preload: false });
const Applications = lazyScreen(() => import("./routes/applications"), "Applications", { preload: false });
const Review = lazyScreen(() => import("./routes/review"), "Review", { preload: false });
const SubPartners = lazyScreen(() => import("./routes/sub-partners"), "SubPartners", { preload: false });
const SingleDeals = lazyScreen(() => import("./routes/single-deals"), "SingleDeals", { preload: false });
const Staff = lazyScreen(() => import("./routes/staff"), "Staff", { preload: false });
const Audit = lazyScreen(() => import("./routes/audit"), "Audit", { preload: false });
const BulkUploads = lazyScreen(() => import("./routes/bulk-uploads"), "BulkUploads", { preload: false });
const BulkUploadDetail = lazyScreen(() => import("./routes/bulk-upload-detail"), "BulkUploadDetail", {
  preload: false,
});
const SettlementBatches = lazyScreen(() => import("./routes/settlement-batches"), "SettlementBatches", {
  preload: false,
});
const SettlementBatchDetail = lazyScreen(() => import("./routes/settlement-batch-detail"), "SettlementBatchDetail", {
  preload: false,
});
const Privacy = lazyScreen(() => import("./routes/privacy"), "Privacy", { preload: false });
const Prices = lazyScreen(() => import("./routes/prices"), "Prices", { preload: false });
const Integrations = lazyScreen(() => import("./routes/integrations"), "Integrations", { preload: false });

/** The partner area under /partner (issue 16), in its own chunk. */
export function PartnerArea() {
  const [i18n] = useState(() => createPartnerI18n());
  useEffect(() => {
    const changed = (language: string) => {
      document.documentElement.lang = language;
      setPartnerLanguage(language);
    };
    changed(i18n.language);
    i18n.on("languageChanged", changed);
    return () => i18n.off("languageChanged", changed);
  }, [i18n]);
  return (
    <I18nextProvider i18n={i18n}>
      <SessionEnd />
      <PartnerRoutes />
    </I18nextProvider>
  );
}

/** A 401 on any call: the session is over; the login, then back to where the person was. */
function SessionEnd() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const location = useLocation();
  const here = location.pathname + location.search;
  useEffect(() => {
    onPartnerUnauthenticated(() => {
      client.removeQueries({ queryKey: ["partner"] });
      if (!here.startsWith(PARTNER_PATHS.login) && !here.startsWith("/partner/invite/")) {
        navigate(`${PARTNER_PATHS.login}?next=${encodeURIComponent(here)}`, { replace: true });
      }
    });
    return () => onPartnerUnauthenticated(() => {});
  }, [client, navigate, here]);
  useEffect(() => () => void client.removeQueries({ queryKey: ME_KEY }), [client]);
  return null;
}

function PartnerRoutes() {
  return (
    <Routes>
      <Route path="login" element={<LoginScreen />} />
      <Route path="invite/:key" element={<InviteScreen />} />
      <Route element={<PartnerLayout />}>
        <Route index element={<Navigate to={PARTNER_PATHS.dashboard} replace />} />
        <Route path="dashboard" element={<Dashboard />} />
        <Route path="applications" element={<Applications />} />
        <Route path="review" element={<Review />} />
        <Route path="sub-partners" element={<SubPartners />} />
        <Route path="single-deals" element={<SingleDeals />} />
        <Route path="staff" element={<Staff />} />
        <Route path="audit" element={<Audit />} />
        <Route path="bulk-uploads" element={<BulkUploads />} />
        <Route path="bulk-uploads/:id" element={<BulkUploadDetail />} />
        <Route path="settlement-batches" element={<SettlementBatches />} />
        <Route path="settlement-batches/:id" element={<SettlementBatchDetail />} />
        <Route path="privacy" element={<Privacy />} />
        <Route path="prices" element={<Prices />} />
        <Route path="integrations" element={<Integrations />} />
      </Route>
      <Route path="*" element={<NotFound home={PARTNER_PATHS.root} />} />
    </Routes>
  );
}
