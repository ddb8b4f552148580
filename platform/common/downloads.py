"""The OpenAPI answer of an operation that sends a file (declared `response={200: None}`: no JSON
shape to validate): its content types, so that the document and the generated client say that
the body is bytes of that type, not JSON."""

from __future__ import annotations

from typing import Any

BINARY = {"schema": {"type": "string", "format": "binary"}}


def download_answer(description: str, *content_types: str) -> dict[str, Any]:
    """`openapi_extra` of a download: `@router.get(..., response={200: None}, openapi_extra=...)`."""
    return {
        "responses": {
            200: {"description": description, "content": {kind: dict(BINARY) for kind in content_types}}
        }
    }
