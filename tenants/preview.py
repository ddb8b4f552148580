"""Signed, expiring preview links: the real site of a partner before it goes live (frontend_active
off) or with a configuration draft before it is published.

The link is `https://{partner host}/?thg_preview=<token>`. The token is signed with SECRET_KEY
(django.core.signing, its own salt) and carries the partner, the draft (or none: the published
configuration) and its expiry; it is valid only on that partner's host. The first request
trades it for an HttpOnly cookie, so the single-page app's own calls (config, login, upload)
carry it too. tenants.active lets such requests through a deactivated partner, and the config
call answers with the draft.

The console's side-by-side preview also shows what is typed before it is saved (a scratch):
the form's configuration, validated like a save, is kept in the cache for an hour under a
random id that only a signed token names; nothing is written to the partner.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.http import HttpRequest
from django_tenants.utils import schema_context

from tenants.middleware import partner_site_url
from tenants.models import ConfigVersion

if TYPE_CHECKING:
    from tenants.models import Partner

SALT = "tenants.preview"
QUERY = "thg_preview"
COOKIE = "thg_preview"
PREVIEW_INVALID = "Dieser Vorschau-Link ist ungültig oder abgelaufen."
SCRATCH_TTL = 3600  # seconds a typed, unsaved configuration stays previewable


def preview_max_age() -> int:
    return int(getattr(settings, "PARTNER_PREVIEW_MAX_AGE", 7 * 24 * 3600))


@dataclass(frozen=True)
class PreviewGrant:
    partner_id: int
    draft_id: int | None
    expires_at: int  # unix seconds
    token: str
    scratch: str | None = None  # the cache id of an unsaved configuration (the console's typing)


def preview_token_make(
    *,
    partner: Partner,
    draft: ConfigVersion | None = None,
    max_age: int | None = None,
    scratch: str | None = None,
) -> str:
    expires = int(time.time()) + (preview_max_age() if max_age is None else max_age)
    payload: dict[str, Any] = {"p": partner.pk, "d": draft.pk if draft is not None else None, "e": expires}
    if scratch is not None:
        payload["s"] = scratch
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
    scratch = payload.get("s")
    return PreviewGrant(
        partner_id=partner.pk,
        draft_id=draft if isinstance(draft, int) else None,
        expires_at=expires,
        token=token,
        scratch=scratch if isinstance(scratch, str) else None,
    )


def preview_url(
    *, partner: Partner, draft: ConfigVersion | None = None, request: HttpRequest | None = None
) -> str:
    return f"{partner_site_url(partner, request)}?{QUERY}={preview_token_make(partner=partner, draft=draft)}"


def _scratch_key(scratch: str) -> str:
    return f"preview-scratch:{scratch}"


def preview_scratch_store(*, partner: Partner, config: dict[str, Any], token: str | None = None) -> str:
    """Keep a validated, unsaved configuration for the preview; the token to show it. The
    scratch of a still valid `token` of this partner is overwritten (one entry per console
    page, however much is typed), else a new one is made."""
    grant = preview_token_read(token, partner=partner) if token else None
    scratch = grant.scratch if grant is not None and grant.scratch else secrets.token_urlsafe(16)
    # in the partner's schema: the cache keys carry it, and the preview's request reads there
    with schema_context(partner.schema_name):
        cache.set(_scratch_key(scratch), config, timeout=SCRATCH_TTL)
    return preview_token_make(partner=partner, max_age=SCRATCH_TTL, scratch=scratch)


def preview_scratch_url(*, partner: Partner, token: str, request: HttpRequest | None = None) -> str:
    return f"{partner_site_url(partner, request)}?{QUERY}={token}"


def request_preview(request: HttpRequest) -> PreviewGrant | None:
    """The valid preview this request carries (set by tenants.active), or None."""
    grant = getattr(request, "preview", None)
    return grant if isinstance(grant, PreviewGrant) else None


def preview_config(partner: Partner, grant: PreviewGrant) -> dict[str, Any] | None:
    """The configuration a preview shows: its scratch, its draft, or the published one; None
    when the draft was published or discarded since the link was made, or the scratch expired."""
    if grant.scratch is not None:
        with schema_context(partner.schema_name):
            scratch: Any = cache.get(_scratch_key(grant.scratch))
        return scratch if isinstance(scratch, dict) else None
    if grant.draft_id is None:
        return partner.config
    draft = ConfigVersion.objects.filter(
        pk=grant.draft_id, partner_id=partner.pk, published_at__isnull=True
    ).first()
    return draft.config if draft is not None else None
