"""Growing delays after failed logins, counted in the shared cache: the one mechanism behind
the portal login (accounts.services) and the admin login (staff.services)."""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone


def failure_key(scope: str, schema: str, kind: str, value: str) -> str:
    """The counter of one username or client address; the value only as a keyed hash."""
    digest = hmac.new(settings.SECRET_KEY.encode(), value.encode(), hashlib.sha256).hexdigest()
    return f"{scope}:{schema}:{kind}:{digest}"


def failure_wait(key: str, free: int) -> int:
    """Seconds the next attempt has to wait: past the free tries each attempt waits twice as
    long as the one before (1 s, 2 s, 4 s ...), capped at LOGIN_MAX_DELAY."""
    count, last = cache.get(key, (0, 0.0))
    if int(count) < free:
        return 0
    delay = min(2 ** (int(count) - free), settings.LOGIN_MAX_DELAY.total_seconds())
    return max(0, int(float(last) + delay - timezone.now().timestamp() + 0.999))


def failure_record(*keys: str) -> None:
    now = timezone.now().timestamp()
    window = int(settings.LOGIN_MAX_DELAY.total_seconds()) * 4
    for key in keys:
        count, _ = cache.get(key, (0, 0.0))
        cache.set(key, (int(count) + 1, now), timeout=window)
