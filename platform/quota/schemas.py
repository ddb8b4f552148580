"""Request shapes of the portal's calls that read their form by hand."""

from __future__ import annotations

from typing import Any

# The resubmit is a PUT with a form body, which Django does not parse and ninja cannot
# infer: this is what the endpoint reads (as multipart or urlencoded form).
_RESUBMIT_FORM: dict[str, Any] = {
    "type": "object",
    "required": ["period"],
    "properties": {
        "period": {"type": "integer", "minimum": 0, "description": "The new quota year."},
        "email_promotion_opt_in": {"type": "boolean", "default": False},
        "free_text": {"type": "string", "maxLength": 2000, "default": ""},
    },
}
RESUBMIT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": _RESUBMIT_FORM},
            "application/x-www-form-urlencoded": {"schema": _RESUBMIT_FORM},
        },
    }
}
