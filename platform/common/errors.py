"""API error shapes shared by every app: field errors as {"field": ["message"]}."""

from __future__ import annotations

from typing import Any


class FieldError(Exception):
    """One invalid input field, answered 400 {field: [message]}."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def field_errors(errors: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Pydantic/ninja validation errors keyed by the field they concern."""
    shaped: dict[str, list[str]] = {}
    for error in errors:
        location = [
            str(part)
            for part in error.get("loc", ())
            if part not in {"body", "payload", "query", "form", "path", "file"}
        ]
        field = location[0] if location else "non_field_errors"
        message = str(error.get("msg", "Ungültige Eingabe."))
        message = message.removeprefix("Value error, ")
        if error.get("type") == "missing":
            message = "Eingabe erforderlich."
        shaped.setdefault(field, []).append(message)
    return shaped


# The error shapes as OpenAPI schemas: config.api adds them to every operation that can
# answer them (the API's exception handlers and common.api_errors answer outside the
# endpoints' own declarations).
ERROR_DETAIL_SCHEMA: dict[str, Any] = {
    "title": "ErrorDetail",
    "type": "object",
    "required": ["detail"],
    "properties": {"detail": {"type": "string"}, "error_code": {"type": "string"}},
}
FIELD_ERRORS_SCHEMA: dict[str, Any] = {
    "title": "FieldErrors",
    "description": "Messages per invalid input field.",
    "type": "object",
    "minProperties": 1,
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}
