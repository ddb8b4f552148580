"""Request shapes of the registration flow's calls that read their form by hand."""

from __future__ import annotations

from typing import Any

from registrations.models import BevRegistration

# The scan upload reads request.POST/FILES itself (the size is checked before the body is
# parsed), so ninja cannot infer its body: this is what the endpoint reads.
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["partner", "zlb_scan"],
                    "properties": {
                        "partner": {"type": "string", "description": "The subdomain of this site's partner."},
                        "zlb_scan": {
                            "type": "string",
                            "format": "binary",
                            "description": "Image or PDF of the registration certificate, at most 10 MB.",
                        },
                        "registration_years": {
                            "type": "string",
                            "description": "Comma-separated quota years offered by the partner, e.g. 2025,2026.",
                        },
                        "source": {
                            "type": "string",
                            "enum": [choice.value for choice in BevRegistration.Source],
                        },
                        "skip_classifier": {"type": "string", "enum": ["true", "false"]},
                    },
                }
            }
        },
    }
}
