"""Scan images for their owner only: short-lived URLs signed for one partner, registration,
image and owner. An <img> cannot send the bearer token, so the URL itself is the proof.
Both kinds name the redacted display copy ("scan") and its small version ("resized"): no
URL ever serves the original (registrations.redaction)."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from django.core import signing

from registrations.models import BevRegistration
from tenants.models import Partner

ImageKind = Literal["scan", "resized"]
URL_LIFETIME = timedelta(hours=1)


def _salt(partner: Partner) -> str:
    return f"scan-url:{partner.schema_name}"


def scan_url(*, partner: Partner, registration: BevRegistration, kind: ImageKind) -> str:
    token = signing.dumps({"r": registration.pk, "k": kind, "o": registration.owner_id}, salt=_salt(partner))
    return f"/api/bev_registrations/images/{token}/"


def scan_token_read(*, partner: Partner, token: str) -> tuple[int, ImageKind, int] | None:
    """(registration id, kind, owner id) of a valid, unexpired token of this partner."""
    try:
        data = signing.loads(token, salt=_salt(partner), max_age=URL_LIFETIME)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("k") not in ("scan", "resized"):
        return None
    return int(data["r"]), data["k"], int(data["o"])
