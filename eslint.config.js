// ESLint for the web app and Storybook (`make lint-web`, a step of `make test`).
import js from "@eslint/js";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

// The feature folders: each may use web/src/shared, none another feature; shared uses none.
// Imports are matched as written, through the @/ alias or a relative path, so the rule needs
// no module resolver (eslint-plugin-import's resolver for TypeScript ships native builds the
// registry mirror lacks for other platforms, which would break `npm ci`).
const FEATURES = ["flow", "portal", "partner"];

function forbidden(targets, message, more = []) {
  const names = targets.join("|");
  return {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            regex: `^(@/|(\\.\\./)+)(${names})(/|$)`,
            message,
          },
          ...more,
        ],
      },
    ],
  };
}

// A feature's mocks/ (its fixtures, MSW handlers and test helpers) serve its tests and stories
// only: nothing the app ships imports them.
const MOCKS = {
  regex: "(^|/)mocks(/|$)",
  message: "Only tests and stories import a feature's mocks/ (fixtures, MSW handlers): the app ships without them.",
};

export default tseslint.config(
  {
    ignores: ["web/dist/**", "storybook-static/**", "storybook/public/**", "node_modules/**", "var/**", ".venv/**"],
  },
  {
    files: ["web/**/*.{ts,tsx}", "storybook/**/*.{ts,tsx}"],
    extends: [js.configs.recommended, ...tseslint.configs.recommended, jsxA11y.flatConfigs.recommended],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      // The rules of hooks; the plugin's React Compiler rules (refs, set-state-in-effect, ...) are
      // left out: the app is not compiled by React Compiler.
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["web/vite.config.ts", "storybook/main.ts"],
    languageOptions: { globals: { ...globals.node } },
  },
  ...FEATURES.map((feature) => ({
    files: [`web/src/${feature}/**/*.{ts,tsx}`],
    rules: forbidden(
      [...FEATURES.filter((other) => other !== feature), "app"],
      `web/src/${feature} may not import another feature folder or web/src/app: move what both need to web/src/shared.`,
    ),
  })),
  {
    files: ["web/src/shared/**/*.{ts,tsx}"],
    rules: forbidden(
      [...FEATURES, "app"],
      "web/src/shared may not import a feature folder (flow, portal, partner) or web/src/app.",
    ),
  },
  // web/src/app (router, providers, boot) sits on top: it imports the features and shared,
  // never the other way round, tests and stories included: they take the app's providers from
  // web/src/test/render and web/src/stories/story-app. Code the app ships also leaves mocks/ alone.
  ...FEATURES.map((feature) => ({
    files: [`web/src/${feature}/**/*.{ts,tsx}`],
    ignores: ["**/*.test.{ts,tsx}", "**/*.stories.tsx", `web/src/${feature}/mocks/**`],
    rules: forbidden(
      [...FEATURES.filter((other) => other !== feature), "app"],
      `web/src/${feature} may not import another feature folder or web/src/app: move what both need to web/src/shared.`,
      [MOCKS],
    ),
  })),
  {
    files: ["web/src/shared/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "**/*.stories.tsx"],
    rules: forbidden(
      [...FEATURES, "app"],
      "web/src/shared may not import a feature folder (flow, portal, partner) or web/src/app.",
    ),
  },
);
