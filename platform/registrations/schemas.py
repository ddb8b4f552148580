"""Shapes of the registration flow's calls: the scan upload's form (read by hand), the answers."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import Field

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


# ---------------------------------------------------------------- answers


class ScanConstraintsOut(Schema):
    min_size: int = Field(description="Width and height of a scan, in pixels, each at least")
    max_pixels: int = Field(description="Width times height, at most")


class RegistrationConstraintsOut(Schema):
    zlb_scan_constraints: ScanConstraintsOut


class SystemConstraintsOut(Schema):
    bev_registration: RegistrationConstraintsOut


class RegistrationCreatedOut(Schema):
    id: int
    sequence: int
    uuid: str


class RegistrationLockedOut(Schema):
    id: int
    sequence: int
    locked_at: str


class DeviceInfoCreatedOut(Schema):
    id: int
