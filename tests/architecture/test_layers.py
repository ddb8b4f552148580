"""The layering (.importlinter, README "Layers") as `make lint` checks it: the code keeps it, and
an import against an arrow fails the lint (each contract shown failing on a copy of the tree)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": "platform"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("house")
    shutil.copy(ROOT / ".importlinter", copy)
    for name in ("platform", "tenants", "themes"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_code_keeps_the_layers() -> None:
    result = lint_imports(ROOT)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "added", "refusal"),
    [
        # layers: tenancy below the domain apps, themes below tenancy, the kernel at the bottom
        ("tenants/selectors.py", "import quota.services", "tenants is not allowed to import quota"),
        (
            "platform/common/payout_bounds.py",
            "import operations.models",
            "common is not allowed to import operations",
        ),
        # layers: no app reaches up into config's wiring or the console
        ("platform/quota/selectors.py", "import config.api", "quota is not allowed to import config.api"),
        ("platform/staff/services.py", "import console.backup", "staff is not allowed to import console"),
        # themes read only the configuration schema
        ("themes/logo.py", "import tenants.models", "themes is not allowed to import tenants"),
        ("themes/texts.py", "import config.settings", "themes is not allowed to import config"),
        # the kernel (common/) imports no app
        (
            "platform/common/text.py",
            "import accounts.models",
            "common is not allowed to import accounts",
        ),
        # the domain apps in their order: the lower app offers a hook, never imports the higher
        (
            "platform/accounts/services.py",
            "import privacy.consents",
            "accounts is not allowed to import privacy",
        ),
        ("platform/billing/services.py", "import quota.services", "billing is not allowed to import quota"),
        (
            "platform/quota/services.py",
            "import operations.attribution",
            "quota is not allowed to import operations",
        ),
        (
            "platform/quota/services.py",
            "import authority.registry",
            "quota is not allowed to import authority",
        ),
        ("platform/staff/auth.py", "import integrations.keys", "staff is not allowed to import integrations"),
        # siblings of one layer (`|`) do not import each other
        (
            "platform/privacy/services.py",
            "import integrations.models",
            "privacy is not allowed to import integrations",
        ),
        # registrations never imports quota
        (
            "platform/registrations/files.py",
            "import quota.models",
            "registrations is not allowed to import quota",
        ),
    ],
)
def test_an_import_against_the_layers_fails_the_lint(
    tree: Path, module: str, added: str, refusal: str
) -> None:
    # given one back arrow more in a copy of the tree
    path = tree / module
    original = path.read_text(encoding="utf-8")
    path.write_text(f"{original}\n{added}  # noqa: E402, F401\n", encoding="utf-8")
    try:
        # when the lint runs over it
        result = lint_imports(tree)
    finally:
        path.write_text(original, encoding="utf-8")

    # then it fails and names the arrow
    assert result.returncode == 1, result.stdout + result.stderr
    assert refusal in result.stdout
