"""The web app's layering (eslint.config.js, issue 50): web/src/app (router, providers, boot)
imports the features and shared, never the other way round (their tests and stories included:
they take the app's providers from web/src/test and web/src/stories); features do not import each
other; a feature's mocks/ serve its tests and stories only. ESLint holds it; these run ESLint
on a file as if it lay in each folder."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ESLINT = ROOT / "node_modules" / ".bin" / "eslint"

pytestmark = pytest.mark.skipif(not ESLINT.exists() or not shutil.which("node"), reason="npm ci first")


def _refusals(path: str, source: str) -> list[str]:
    """ESLint's no-restricted-imports messages for `source` linted as the file `path`."""
    result = subprocess.run(
        [str(ESLINT), "--format", "json", "--stdin", "--stdin-filename", path],
        input=source,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    return [
        message["message"]
        for report in json.loads(result.stdout)
        for message in report["messages"]
        if message.get("ruleId") == "no-restricted-imports"
    ]


APP_IMPORT = 'import { PartnerProviders } from "@/app/app";\nexport const probe = PartnerProviders;\n'


@pytest.mark.parametrize(
    "path",
    ["web/src/shared/ui/probe.tsx", "web/src/flow/routes/probe.tsx", "web/src/partner/components/probe.tsx"],
)
def test_features_and_shared_do_not_import_the_app(path: str) -> None:
    assert any("web/src/app" in message for message in _refusals(path, APP_IMPORT))


def test_a_relative_import_of_the_app_is_refused_too() -> None:
    source = 'import { PartnerProviders } from "../../app/app";\nexport const probe = PartnerProviders;\n'

    assert _refusals("web/src/portal/routes/probe.tsx", source)


def test_the_app_imports_shared_and_tests_take_its_providers_from_the_test_helpers() -> None:
    shared = 'import { usePartner } from "@/shared/lib/partner-context";\nexport const probe = usePartner;\n'
    helpers = 'import { PartnerProviders } from "@/test/render";\nexport const probe = PartnerProviders;\n'
    stories = (
        'import { PartnerProviders } from "@/stories/story-app";\nexport const probe = PartnerProviders;\n'
    )

    assert _refusals("web/src/app/probe.tsx", shared) == []
    assert _refusals("web/src/shared/lib/probe.ts", shared) == []
    # a test or a story of a feature or of shared does not import app/ itself either
    assert any(
        "web/src/app" in message for message in _refusals("web/src/shared/ui/probe.test.tsx", APP_IMPORT)
    )
    assert any(
        "web/src/app" in message for message in _refusals("web/src/portal/probe.stories.tsx", APP_IMPORT)
    )
    assert _refusals("web/src/shared/ui/probe.test.tsx", helpers) == []
    assert _refusals("web/src/portal/probe.stories.tsx", stories) == []
    # the test helpers and the stories' frame sit beside app/: they may
    assert _refusals("web/src/test/probe.tsx", APP_IMPORT) == []
    assert _refusals("web/src/stories/probe.tsx", APP_IMPORT) == []


MOCKS_IMPORT = 'import { member } from "../mocks/fixtures";\nexport const probe = member;\n'


def test_only_tests_and_stories_import_a_features_mocks() -> None:
    """A feature's mocks/ (fixtures, MSW handlers, test helpers) never ship in the app."""
    assert any("mocks/" in message for message in _refusals("web/src/partner/routes/probe.tsx", MOCKS_IMPORT))
    assert _refusals("web/src/partner/routes/probe.test.tsx", MOCKS_IMPORT) == []
    assert _refusals("web/src/partner/routes/probe.stories.tsx", MOCKS_IMPORT) == []
    assert _refusals("web/src/partner/mocks/probe.ts", 'export { member } from "./fixtures";\n') == []
