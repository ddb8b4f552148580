import { screen } from "@testing-library/react";
import { matchPath } from "react-router";
import { beforeAll, describe, expect, it } from "vitest";

import { preloadAllScreens } from "@/shared/lib/lazy-screen";
import { PARTNER_PATHS } from "@/partner/lib/paths";
import { PORTAL_PATHS } from "@/portal/paths";
import { renderAt } from "@/test/render";

import serverRoutes from "../../../tenants/app_routes.json";
import { ALIASES, PATHS, type RouteName } from "@/shared/lib/routes";

/**
 * The server answers a path that is no route of the app with status 404
 * (tenants/app_routes.json, tenants.web_views.web_app). Its list and the app's route
 * tables must agree: a route missing there would be a 404 for a real screen, one too many
 * a 200 for the app's 404 page.
 */
type ServerRoutes = { flow: string[]; portal: string[]; partner: string[] };
const SERVER: ServerRoutes = serverRoutes;
const ALL = [...SERVER.flow, ...SERVER.portal, ...SERVER.partner];

/** A concrete path for a pattern: every parameter filled. */
const sample = (pattern: string) => pattern.replace(/:\w+\??/g, "x1");
const known = (path: string) => ALL.some((pattern) => matchPath({ path: pattern.replace(/\/:\w+\?$/, "/:optional?"), end: true }, path));

beforeAll(async () => {
  // The portal's and the partner area's own screens register once their app chunk is loaded.
  await preloadAllScreens();
}, 120_000);

describe("the server's list of app routes", () => {
  it("is the flow's route table, aliases included", () => {
    const table = (Object.keys(PATHS) as RouteName[]).filter((name) => name !== "Portal").flatMap((name) => [PATHS[name], ...(ALIASES[name] ?? [])]);
    expect([...SERVER.flow].sort()).toEqual([...table].sort());
  });

  it("holds every path the portal and the partner area link to", () => {
    const portal = Object.values(PORTAL_PATHS).map((path) => (typeof path === "function" ? path(7) : path));
    // Paths with a parameter take a key or an id: either prints into the path.
    const partner = Object.values(PARTNER_PATHS).map((path) => (typeof path === "function" ? (path as (value: string | number) => string)(7) : path));
    for (const path of [...portal, ...partner]) expect(known(path), path).toBe(true);
  });

  it.each(ALL.map(sample))("%s is a screen of the app, not its 404 page", (path) => {
    renderAt(path);
    expect(screen.queryByTestId("not-found")).not.toBeInTheDocument();
  });

  it.each(["/nowhere", "/terms/more", "/b2b/x", "/portal/nowhere", "/portal/auth/otp", "/portal/auth/nowhere", "/partner/nowhere", "/partner/invite"])(
    "%s is unknown to both: the app shows its 404 page",
    (path) => {
      expect(known(path)).toBe(false);
      renderAt(path);
      expect(screen.getByTestId("not-found")).toBeInTheDocument();
    },
  );
});
