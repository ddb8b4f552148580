import Logout from "@mui/icons-material/Logout";
import MenuIcon from "@mui/icons-material/Menu";
import AppBar from "@mui/material/AppBar";
import Avatar from "@mui/material/Avatar";
import Box from "@mui/material/Box";
import Breadcrumbs from "@mui/material/Breadcrumbs";
import Drawer from "@mui/material/Drawer";
import IconButton from "@mui/material/IconButton";
import List from "@mui/material/List";
import ListItemButton from "@mui/material/ListItemButton";
import ListItemText from "@mui/material/ListItemText";
import Toolbar from "@mui/material/Toolbar";
import Typography from "@mui/material/Typography";
import type { Theme } from "@mui/material/styles";
import useMediaQuery from "@mui/material/useMediaQuery";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from "react-router";

import { usePartner } from "@/shared/lib/partner-context";
import { ApiError, type Tokens } from "@/shared/lib/http";
import { clearSession, storeGet } from "@/shared/lib/session-store";
import { PartnerLogo } from "@/shared/ui/partner-logo";

import { logout, profile } from "../api/auth";
import { portalClear } from "../lib/portal-store";
import { PORTAL_PATHS } from "../paths";
import { impressumEnabled, privacyEnabled } from "../lib/pages-enabled";
import { LanguageSwitch } from "./language-switch";

const DRAWER_WIDTH = 240;
/** The label of each path segment the authenticated pages have: the menu's own entries. */
const CRUMB_LABELS: Record<string, string> = {
  registrations: "shell.registrations",
  impressum: "shell.impressum",
  "data-privacy-info": "shell.privacy",
};

/** Section 2: breadcrumbs come from the path segments after the first, each shown by its label. */
export function crumbLabels(pathname: string, t: (key: string) => string): string[] {
  return pathname
    .split("/")
    .filter(Boolean)
    .slice(1)
    .map((segment) => (CRUMB_LABELS[segment] ? t(CRUMB_LABELS[segment]) : decodeURIComponent(segment)));
}
/** Above this width the menu stays open (section 2). */
export const MENU_ALWAYS_OPEN = "(min-width:1501px)";

/** The authenticated shell: side menu, header with the user, breadcrumbs, the page. */
export function Shell() {
  const { t } = useTranslation();
  const partner = usePartner();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const wide = useMediaQuery(MENU_ALWAYS_OPEN);
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down("sm"));
  const [open, setOpen] = useState(false);
  const me = useQuery({ queryKey: ["profile"], queryFn: profile, retry: false, staleTime: 60_000 });

  if (me.error instanceof ApiError && me.error.status === 403) return <Navigate to={PORTAL_PATHS.signup} replace />;
  const person = me.data?.[0];
  const name = person ? `${person.first_name} ${person.last_name}`.trim() || person.email : "";
  const initials = person
    ? `${person.first_name.charAt(0)}${person.last_name.charAt(0)}`.toUpperCase() ||
      person.email.charAt(0).toUpperCase()
    : "";
  const items = [
    { path: PORTAL_PATHS.registrations, label: t("shell.registrations"), show: true },
    { path: PORTAL_PATHS.impressum, label: t("shell.impressum"), show: impressumEnabled(partner) },
    { path: PORTAL_PATHS.privacy, label: t("shell.privacy"), show: privacyEnabled(partner) },
  ].filter((item) => item.show);
  const crumbs = crumbLabels(pathname, t);
  const leave = () => {
    const refresh = storeGet<Tokens>("tokens")?.refresh;
    if (refresh) void logout(refresh).catch(() => {});
    clearSession();
    portalClear();
    navigate(PORTAL_PATHS.login, { replace: true });
  };

  // On a phone the header has no room left for the greeting (menu, logo and logout take it): it gets a line of its own above the breadcrumbs instead of shrinking
  // to "W…". Wider, it sits in the header and ends in an ellipsis if it must (full text in the title).
  const greeting = (
    <Typography
      noWrap
      title={name ? t("shell.welcome", { name }) : undefined}
      sx={phone ? { mb: 1 } : { minWidth: 0, flex: "0 1 auto" }}
      data-testid="welcome-name"
    >
      {name && t("shell.welcome", { name })}
    </Typography>
  );

  const menu = (
    <List component="nav" aria-label={t("shell.menu")} data-testid="portal-menu">
      {items.map((item) => (
        <ListItemButton
          key={item.path}
          component={NavLink}
          to={item.path}
          onClick={() => setOpen(false)}
          selected={pathname === item.path}
        >
          <ListItemText primary={item.label} />
        </ListItemButton>
      ))}
    </List>
  );

  return (
    <Box sx={{ display: "flex", minHeight: "100vh" }}>
      <AppBar position="fixed" color="inherit" elevation={1} sx={{ zIndex: (theme) => theme.zIndex.drawer + 1 }}>
        {/* narrow gutters on a phone: a 320 px screen holds menu, logo (its text 12 px) and logout */}
        <Toolbar sx={{ gap: { xs: 0.5, sm: 1 }, px: { xs: 1, sm: 2 } }}>
          {!wide && (
            <IconButton
              edge="start"
              aria-label={t("shell.menu")}
              aria-expanded={open}
              onClick={() => setOpen(!open)}
              data-testid="menu-toggle"
            >
              <MenuIcon />
            </IconButton>
          )}
          <PartnerLogo />
          <Box sx={{ flex: "1 1 0", minWidth: 0 }} />
          {!phone && <LanguageSwitch />}
          {!phone && greeting}
          <Avatar
            sx={{
              bgcolor: "primary.main",
              width: 36,
              height: 36,
              fontSize: "0.9rem",
              display: { xs: "none", sm: "flex" },
            }}
            aria-hidden
          >
            {initials}
          </Avatar>
          <IconButton aria-label={t("shell.logout")} onClick={leave} data-testid="logout">
            <Logout />
          </IconButton>
        </Toolbar>
      </AppBar>
      <Drawer
        variant={wide ? "permanent" : "temporary"}
        open={wide || open}
        onClose={() => setOpen(false)}
        slotProps={{ paper: { "aria-label": t("shell.menu") } as object }}
        sx={{
          width: wide ? DRAWER_WIDTH : undefined,
          flexShrink: 0,
          "& .MuiDrawer-paper": { width: DRAWER_WIDTH, boxSizing: "border-box" },
        }}
      >
        <Toolbar />
        {menu}
        {/* On a phone the header's room goes to the logo (its text 12 px high): the language
            switch moves into the menu. */}
        {phone && (
          <Box sx={{ px: 2 }}>
            <LanguageSwitch />
          </Box>
        )}
      </Drawer>
      <Box component="main" sx={{ flex: 1, minWidth: 0, p: { xs: 2, md: 3 } }}>
        <Toolbar />
        {phone && greeting}
        <Breadcrumbs aria-label="breadcrumb" sx={{ mb: 2 }} data-testid="breadcrumbs">
          {crumbs.map((crumb, index) => (
            <Typography
              key={`${index}-${crumb}`}
              color="text.secondary"
              variant="body2"
              aria-current={index === crumbs.length - 1 ? "page" : undefined}
            >
              {crumb}
            </Typography>
          ))}
        </Breadcrumbs>
        <Outlet />
      </Box>
    </Box>
  );
}
