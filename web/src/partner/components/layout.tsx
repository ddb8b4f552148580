import Logout from "@mui/icons-material/Logout";
import MenuIcon from "@mui/icons-material/Menu";
import AppBar from "@mui/material/AppBar";
import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Drawer from "@mui/material/Drawer";
import IconButton from "@mui/material/IconButton";
import List from "@mui/material/List";
import ListItemButton from "@mui/material/ListItemButton";
import ListItemText from "@mui/material/ListItemText";
import Toolbar from "@mui/material/Toolbar";
import Typography from "@mui/material/Typography";
import useMediaQuery from "@mui/material/useMediaQuery";
import { useQueryClient } from "@tanstack/react-query";
import { Suspense, useState } from "react";
import { useTranslation } from "react-i18next";
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from "react-router";

import { usePartner } from "@/shared/lib/partner-context";

import { useReviewQueue } from "../api/applications";
import { can, logout, type Me, useMe } from "../api/auth";
import { ApiError } from "../api/client";
import { PARTNER_PATHS } from "../lib/paths";
import { StaffContext } from "../lib/staff-context";
import { localClear } from "../lib/storage";
import { AccountButton } from "./account-dialog";
import { LanguageSwitch } from "./language-switch";
import { QueryError } from "./query-error";

const DRAWER_WIDTH = 232;
const REVIEW_PROBE = new URLSearchParams({ page: "1", page_size: "1" });

/** The menu by role; the review's entry once its queue answered (issue 45). */
export function navItems(me: Me, reviewing = false) {
  return [
    { path: PARTNER_PATHS.dashboard, label: "nav.dashboard", show: true },
    { path: PARTNER_PATHS.applications, label: "nav.applications", show: true },
    { path: PARTNER_PATHS.review, label: "review.nav", show: reviewing },
    { path: PARTNER_PATHS.subPartners, label: "nav.subPartners", show: true },
    { path: PARTNER_PATHS.singleDeals, label: "nav.singleDeals", show: true },
    { path: PARTNER_PATHS.prices, label: "prices.nav", show: true },
    { path: PARTNER_PATHS.bulkUploads, label: "bulk.nav", show: true },
    { path: PARTNER_PATHS.settlementBatches, label: "settlement.nav", show: can.admin(me.role) },
    { path: PARTNER_PATHS.staff, label: "nav.staff", show: can.admin(me.role) },
    { path: PARTNER_PATHS.audit, label: "nav.audit", show: can.admin(me.role) },
    { path: PARTNER_PATHS.privacy, label: "nav.privacy", show: can.admin(me.role) },
    { path: PARTNER_PATHS.integrations, label: "integrations.nav", show: can.admin(me.role) },
  ].filter((item) => item.show);
}

export function Loading() {
  const { t } = useTranslation();
  return (
    <Box sx={{ minHeight: "40vh", display: "grid", placeItems: "center" }}>
      <CircularProgress aria-label={t("area.loading")} />
    </Box>
  );
}

/** The logged-in area: header, navigation by role, the page. No session: the login. */
export function PartnerLayout() {
  const { t } = useTranslation();
  const partner = usePartner();
  const navigate = useNavigate();
  const client = useQueryClient();
  const { pathname, search } = useLocation();
  const wide = useMediaQuery("(min-width:900px)");
  const [open, setOpen] = useState(false);
  const me = useMe();
  // "Prüfung" in the menu while the reader left something to review
  const probe = useReviewQueue(REVIEW_PROBE, me.isSuccess);
  const reviewing = probe.isSuccess && probe.data.count > 0;

  if (me.isPending) return <Loading />;
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={`${PARTNER_PATHS.login}?next=${encodeURIComponent(pathname + search)}`} replace />;
  }
  if (me.isError) {
    return (
      <Box component="main" sx={{ p: 3 }}>
        <QueryError error={me.error} retry={() => void me.refetch()} />
      </Box>
    );
  }
  const staff = me.data;
  const leave = () => {
    void logout()
      .catch(() => {})
      .finally(() => {
        localClear();
        client.clear();
        navigate(PARTNER_PATHS.login, { replace: true });
      });
  };

  const menu = (
    <List component="nav" aria-label={t("nav.menu")} data-testid="partner-menu">
      {navItems(staff, reviewing).map((item) => (
        <ListItemButton
          key={item.path}
          component={NavLink}
          to={item.path}
          onClick={() => setOpen(false)}
          selected={pathname.startsWith(item.path)}
          aria-current={pathname.startsWith(item.path) ? "page" : undefined}
        >
          <ListItemText primary={t(item.label)} />
        </ListItemButton>
      ))}
    </List>
  );

  return (
    <StaffContext.Provider value={staff}>
      <Box sx={{ display: "flex", minHeight: "100vh" }}>
        <AppBar position="fixed" color="inherit" elevation={1} sx={{ zIndex: (theme) => theme.zIndex.drawer + 1 }}>
          <Toolbar sx={{ gap: 1 }}>
            {!wide && (
              <IconButton
                edge="start"
                aria-label={t("nav.openMenu")}
                aria-expanded={open}
                onClick={() => setOpen(!open)}
                data-testid="partner-menu-toggle"
              >
                <MenuIcon />
              </IconButton>
            )}
            {partner.theme.assets.logo && (
              <img src={partner.theme.assets.logo} alt={`${partner.name} Logo`} style={{ height: 30, maxWidth: 140 }} />
            )}
            <Typography sx={{ fontWeight: 600, display: { xs: "none", sm: "block" } }}>{t("area.title")}</Typography>
            <Box sx={{ flex: 1 }} />
            <LanguageSwitch />
            <Box
              sx={{ display: { xs: "none", md: "block" }, textAlign: "right", lineHeight: 1.2 }}
              data-testid="partner-who"
            >
              <AccountButton name={staff.name || staff.email}>
                <Typography variant="body2" component="span" sx={{ display: "block" }}>
                  {staff.name || staff.email}
                </Typography>
                <Typography variant="caption" sx={{ color: "text.secondary" }}>
                  {t(`roles.${staff.role}`)}
                </Typography>
              </AccountButton>
            </Box>
            <IconButton aria-label={t("nav.logout")} onClick={leave} data-testid="partner-logout">
              <Logout />
            </IconButton>
          </Toolbar>
        </AppBar>
        <Drawer
          variant={wide ? "permanent" : "temporary"}
          open={wide || open}
          onClose={() => setOpen(false)}
          slotProps={{ paper: { "aria-label": t("nav.menu") } as object }}
          sx={{
            width: wide ? DRAWER_WIDTH : undefined,
            flexShrink: 0,
            "& .MuiDrawer-paper": { width: DRAWER_WIDTH, boxSizing: "border-box" },
          }}
        >
          <Toolbar />
          {menu}
        </Drawer>
        <Box component="main" sx={{ flex: 1, minWidth: 0, p: { xs: 1.5, md: 3 } }}>
          <Toolbar />
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </Box>
      </Box>
    </StaffContext.Provider>
  );
}
