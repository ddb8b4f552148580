"""In-memory partner lookup for every request: no database query on a hit.

Each process keeps a bounded map of hostnames and subdomains to partners. A change to a
partner or domain bumps a version number in the shared cache (Redis in production, a
file cache in the default run); processes compare it at most once per CHECK_INTERVAL and
drop their map when it moved. The process that made the change drops its map at once.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from django.apps import apps
from django.core.cache import cache

if TYPE_CHECKING:
    from tenants.models import Partner

VERSION_KEY = "tenants:directory:version"
CHECK_INTERVAL = 1.0
MAX_ENTRIES = 10_000

_MISSING = object()


class PartnerDirectory:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_host: OrderedDict[str, Partner | None] = OrderedDict()
        self._by_subdomain: OrderedDict[str, Partner | None] = OrderedDict()
        self._version: object = None
        self._checked_at = 0.0

    def by_host(self, host: str) -> Partner | None:
        self._refresh()
        return self._get(self._by_host, host.lower(), self._load_host)

    def by_subdomain(self, subdomain: str) -> Partner | None:
        self._refresh()
        return self._get(self._by_subdomain, subdomain.lower(), self._load_subdomain)

    def invalidate(self) -> None:
        """Forget every partner here and tell the other processes to do the same."""
        try:
            cache.incr(VERSION_KEY)
        except ValueError:
            cache.set(VERSION_KEY, 1, timeout=None)
        self.clear()

    def clear(self) -> None:
        with self._lock:
            self._by_host.clear()
            self._by_subdomain.clear()
            self._checked_at = 0.0

    def _refresh(self) -> None:
        now = time.monotonic()
        if now - self._checked_at < CHECK_INTERVAL:
            return
        version = cache.get(VERSION_KEY)
        with self._lock:
            if version != self._version:
                self._by_host.clear()
                self._by_subdomain.clear()
                self._version = version
            self._checked_at = now

    def _get(self, table: OrderedDict[str, Partner | None], key: str, load: object) -> Partner | None:
        with self._lock:
            found = table.get(key, _MISSING)
            if found is not _MISSING:
                table.move_to_end(key)
                return found  # type: ignore[return-value]
        partner = load(key)  # type: ignore[operator]
        with self._lock:
            table[key] = partner
            if len(table) > MAX_ENTRIES:
                table.popitem(last=False)
        return partner  # type: ignore[no-any-return]

    @staticmethod
    def _load_host(host: str) -> Partner | None:
        # The models by name: tenants.models imports this module (its saves tell the directory).
        Domain = apps.get_model("tenants", "Domain")  # noqa: N806
        # A custom domain is served only once verified (tenants.domains).
        domain = (
            Domain.objects.select_related("tenant").filter(domain=host, verified_at__isnull=False).first()
        )
        return domain.tenant if domain else None

    @staticmethod
    def _load_subdomain(subdomain: str) -> Partner | None:
        Partner = apps.get_model("tenants", "Partner")  # noqa: N806
        return Partner.objects.filter(subdomain=subdomain).first()


directory = PartnerDirectory()
