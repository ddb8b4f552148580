"""Signed, expiring preview links: the real site of a partner before it goes live (frontend_active
off) or with a configuration draft before it is published.

The link is `https://{partner host}/?thg_preview=<token>`. The token is signed with SECRET_KEY
(django.core.signing, its own salt) and carries the partner, the draft (or none: the published
configuration) and its expiry; it is valid only on that partner's host. The first request
trades it for an HttpOnly cookie, so the single-page app's own calls (config, login, upload)
carry it too. tenants.active lets such requests through a deactivated partner, and the config
call answers with the draft.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core import signing
from django.http import HttpRequest

if TYPE_CHECKING:
    from tenants.models import ConfigVersion, Partner

SALT = "tenants.preview"
QUERY = "thg_preview"
COOKIE = "thg_preview"
PREVIEW_INVALID = "Dieser Vorschau-Link ist ungültig oder abgelaufen."


def preview_max_age() -> int:
    return int(getattr(settings, "PARTNER_PREVIEW_MAX_AGE", 7 * 24 * 3600))


@dataclass(frozen=True)
class PreviewGrant:
    partner_id: int
    draft_id: int | None
    expires_at: int  # unix seconds
    token: str


def preview_token_make(
    *, partner: Partner, draft: ConfigVersion | None = None, max_age: int | None = None
) -> str:
    expires = int(time.time()) + (preview_max_age() if max_age is None else max_age)
    payload = {"p": partner.pk, "d": draft.pk if draft is not None else None, "e": expires}
    return signing.dumps(payload, salt=SALT, compress=False)


def preview_token_read(token: str, *, partner: Partner) -> PreviewGrant | None:
    """The grant of a token for this partner, or None: tampered, expired, another partner's."""
    try:
        payload: Any = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    if not isinstance(payload, dict) or payload.get("p") != partner.pk:
        return None
    expires = payload.get("e")
    if not isinstance(expires, int) or expires < time.time():
        return None
    draft = payload.get("d")
    return PreviewGrant(
        partner_id=partner.pk,
        draft_id=draft if isinstance(draft, int) else None,
        expires_at=expires,
        token=token,
    )


def preview_url(
    *, partner: Partner, draft: ConfigVersion | None = None, request: HttpRequest | None = None
) -> str:
    from tenants.middleware import partner_site_url

    return f"{partner_site_url(partner, request)}?{QUERY}={preview_token_make(partner=partner, draft=draft)}"


def request_preview(request: HttpRequest) -> PreviewGrant | None:
    """The valid preview this request carries (set by tenants.active), or None."""
    grant = getattr(request, "preview", None)
    return grant if isinstance(grant, PreviewGrant) else None


def preview_config(partner: Partner, grant: PreviewGrant) -> dict[str, Any] | None:
    """The configuration a preview shows: its draft, or the published one; None when the
    draft was published or discarded since the link was made."""
    if grant.draft_id is None:
        return partner.config
    from tenants.models import ConfigVersion

    draft = ConfigVersion.objects.filter(
        pk=grant.draft_id, partner_id=partner.pk, published_at__isnull=True
    ).first()
    return draft.config if draft is not None else None
