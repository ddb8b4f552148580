"""API keys: their shape, their keyed hash, and the check of a request that carries one.

A key is `thg_<prefix>_<secret>`: the prefix (10 characters) finds the row and is shown in
the partner area; the secret (43 characters, 256 bits) is stored only as an HMAC-SHA256 under
the server's SECRET_KEY, so a copy of the database holds no usable key. Keys travel in the
`X-API-Key` header, never in a URL; common.logs takes anything shaped like a key out of every
log line as well.

A key acts for the partner admin who made or last rotated it, with the rights of its scope:
`read` as the role viewer, `write` as back office. It never has a partner admin's rights
(keys, webhooks, staff, audit, settlement batches stay with people). It stops working when it
is revoked or rotated, or when that admin is no longer an active partner admin.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import timezone

from integrations.errors import KEY_INVALID, KEY_THROTTLED, refusal
from integrations.models import ApiKey
from staff.models import StaffMember

HEADER = "X-API-Key"
KEY_SHAPE = re.compile(r"^thg_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$")
SCOPE_ROLES = {ApiKey.Scope.READ: StaffMember.Role.VIEWER, ApiKey.Scope.WRITE: StaffMember.Role.BACK_OFFICE}
# last_used_at is written at most this often per key: not one write per call.
LAST_USE_STEP = timedelta(seconds=60)


def key_make() -> tuple[str, str, str]:
    """A new key: (the key to show once, its prefix, the hash to store)."""
    prefix = "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10))
    secret = secrets.token_urlsafe(32)
    return f"thg_{prefix}_{secret}", prefix, key_hash(prefix, secret)


def key_hash(prefix: str, secret: str) -> str:
    return hmac.new(
        settings.SECRET_KEY.encode(), f"api-key:{prefix}:{secret}".encode(), hashlib.sha256
    ).hexdigest()


def key_label(key: ApiKey) -> str:
    return f"thg_{key.prefix}_…"


def _rate_check(request: HttpRequest, key: ApiKey) -> None:
    """At most API_KEY_RATE_PER_MINUTE calls per key and minute (a fixed window in the
    shared cache, whose keys carry the partner's schema): 429 with Retry-After beyond."""
    limit = settings.API_KEY_RATE_PER_MINUTE
    now = timezone.now().timestamp()
    window = int(now // 60)
    counter = f"api-key-rate:{key.pk}:{window}"
    cache.add(counter, 0, timeout=120)
    try:
        count = cache.incr(counter)
    except ValueError:  # expired between add and incr
        cache.set(counter, 1, timeout=120)
        count = 1
    if count > limit:
        wait = max(1, int((window + 1) * 60 - now + 0.999))
        raise refusal(request, KEY_THROTTLED, status=429, wait=wait)


def api_key_member(request: HttpRequest) -> StaffMember:
    """The member a request's key acts as, or a 401 (429 past the key's budget)."""
    match = KEY_SHAPE.match(request.headers.get(HEADER, "").strip())
    key = ApiKey.objects.filter(prefix=match.group(1), revoked_at__isnull=True).first() if match else None
    if match is None or key is None or not hmac.compare_digest(key.secret_hash, key_hash(*match.groups())):
        raise refusal(request, KEY_INVALID, status=401)
    admin = (
        None
        if key.created_by_id is None
        else StaffMember.objects.select_related("user")
        .filter(
            pk=key.created_by_id, is_active=True, role=StaffMember.Role.PARTNER_ADMIN, user__is_active=True
        )
        .first()
    )
    if admin is None:
        raise refusal(request, KEY_INVALID, status=401)
    _rate_check(request, key)
    now = timezone.now()
    if key.last_used_at is None or key.last_used_at < now - LAST_USE_STEP:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    # The admin's row as the calls see it, with the key's rights and the key's name: the audit
    # log reads "API-Schlüssel „name“ <admin's address>" and names the admin's user.
    acting = copy.copy(admin)
    acting.role = SCOPE_ROLES[ApiKey.Scope(key.scope)]
    acting.name = f"API-Schlüssel „{key.name}“"
    acting.api_key = key  # type: ignore[attr-defined]
    acting.save = _not_saved  # type: ignore[method-assign]
    return acting


def _not_saved(*args: object, **kwargs: object) -> None:
    raise RuntimeError("a key's acting member is not a row to save")
