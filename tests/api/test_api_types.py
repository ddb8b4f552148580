"""The web's API types are generated (issue 50): web/src/shared/api/openapi.json is the document
the API serves at /api/openapi.json, and schema.d.ts is what openapi-typescript makes of it.
Either one stale fails here: after changing an answer's shape run `make api-types` and commit."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

from django.test import Client

from tools.openapi_export import DOCUMENT, ROOT, TYPES, document_text

REGENERATE = "stale: run `make api-types` (tools/openapi_export.py, then `npm run api:types`) and commit"


def test_the_committed_document_is_the_api_s() -> None:
    from config.api import api

    assert DOCUMENT.read_text(encoding="utf-8") == document_text(api.get_openapi_schema()), (
        f"{DOCUMENT.relative_to(ROOT)} {REGENERATE}"
    )


def test_the_committed_document_is_the_served_one(db: None) -> None:
    served = Client().get("/api/openapi.json", HTTP_HOST="autohaus.localhost")

    assert served.status_code == 200
    assert document_text(served.json()) == DOCUMENT.read_text(encoding="utf-8")


def test_the_committed_types_are_the_document_s(tmp_path: Path) -> None:
    """`npm run api:types` as package.json has it, into a temporary file."""
    command = shlex.split(json.loads((ROOT / "package.json").read_text())["scripts"]["api:types"])
    generator = ROOT / "node_modules" / ".bin" / command[0]
    assert generator.exists(), "openapi-typescript is missing: `npm ci` (make node-deps) first"
    assert shutil.which("node"), "node is missing"
    fresh = tmp_path / "schema.d.ts"
    output = command.index("-o") + 1
    assert command[output] == str(TYPES.relative_to(ROOT))
    command[output] = str(fresh)
    subprocess.run([str(generator), *command[1:]], cwd=ROOT, check=True, capture_output=True, timeout=300)

    assert fresh.read_text(encoding="utf-8") == TYPES.read_text(encoding="utf-8"), (
        f"{TYPES.relative_to(ROOT)} {REGENERATE}"
    )
