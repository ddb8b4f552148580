import type { ReactElement } from "react";
import { Route, Routes } from "react-router";

import { FrontendDeactivated } from "@/flow/routes/frontend-deactivated";
import { Placeholder } from "@/flow/routes/placeholder";
import { Welcome, WelcomeEntry } from "@/flow/routes/welcome";
import { WelcomeB2B } from "@/flow/routes/welcome-b2b";
import { WelcomeDesktop } from "@/flow/routes/welcome-desktop";

import { ALIASES, PATHS, type RouteName } from "./routes";

const SCREENS: Partial<Record<RouteName, () => ReactElement>> = {
  Welcome: () => <WelcomeEntry />,
  WelcomeB2B: () => <WelcomeB2B />,
  WelcomeDesktop: () => <WelcomeDesktop />,
  DesktopView: () => <Welcome />,
  WelcomeMobile: () => <Welcome />,
  FrontendDeactivated: () => <FrontendDeactivated />,
};

export function AppRoutes() {
  const routes = (Object.keys(PATHS) as RouteName[]).flatMap((name) => {
    const element = SCREENS[name]?.() ?? <Placeholder name={name} />;
    return [PATHS[name], ...(ALIASES[name] ?? [])].map((path) => <Route key={`${name}:${path}`} path={path} element={element} />);
  });
  return (
    <Routes>
      {routes}
      <Route path="*" element={<Placeholder name="NotFound" />} />
    </Routes>
  );
}
