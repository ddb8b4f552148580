"""The API's OpenAPI document, written without a running server, for the web's generated types.

    .venv/bin/python tools/openapi_export.py        # writes web/src/shared/api/openapi.json
    npm run api:types                               # and web/src/shared/api/schema.d.ts from it

`make api-types` runs both. tests/api/test_api_types.py fails when either committed file is not
what these make of the code as it is (a response shape changed without regenerating)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "web" / "src" / "shared" / "api" / "openapi.json"
TYPES = ROOT / "web" / "src" / "shared" / "api" / "schema.d.ts"


def document_text(schema: dict[str, Any]) -> str:
    """The document as committed: the key order of the code, status codes as strings (JSON has
    no other keys), two spaces, UTF-8 as it is, one newline at the end."""
    return json.dumps(json.loads(json.dumps(schema)), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Settings only build a connection string; nothing connects while the document is built.
    os.environ.setdefault("DATABASE_URL", "postgresql://127.0.0.1:5432/openapi_export")
    import django

    django.setup()
    from config.api import api

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DOCUMENT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(document_text(api.get_openapi_schema()), encoding="utf-8")


if __name__ == "__main__":
    main()
