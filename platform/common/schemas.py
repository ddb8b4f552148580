"""API answer shapes every app shares (the kernel's error shapes, DESIGN.md Layout)."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class DetailOut(Schema):
    """A message, with the error code of the catalogue where the answer has one."""

    detail: str
    # Left out of the body when there is none, never sent as null: the owner's calls answer
    # `{"detail": "..."}` (the specs' shape), and the API's own error handlers leave it out the
    # same way (common.errors.ERROR_DETAIL_SCHEMA), so one client type reads them all. The
    # document says so too: a string when present, no null and no default.
    error_code: str | SkipJsonSchema[None] = Field(
        None, exclude_if=lambda code: code is None, json_schema_extra=_no_default
    )
