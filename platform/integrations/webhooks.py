"""Webhooks: the address check (no reach into private networks), the signature, one request,
and the events read from the records the other apps keep.

Signature: every request carries `X-THG-Timestamp` (Unix seconds) and `X-THG-Signature:
v1=<hex>`, the HMAC-SHA256 under the endpoint's secret of `<timestamp>.<body>`. A receiver
recomputes it over the raw body and refuses a timestamp older than five minutes (a replay).
`X-THG-Event` names the event, `X-THG-Delivery` the delivery (the same on every retry: a
receiver may use it to drop a repeat).

Addresses: https (http only in the development run, WEBHOOK_HTTP_ALLOWED), no user or
password in the URL, and every address the host name resolves to must be public: private,
loopback, link-local, shared and reserved ranges are refused (SSRF), at creation and again at
every request, which goes to the address just checked (a DNS answer that changes in between
cannot redirect it). Redirects are not followed. WEBHOOK_TIMEOUT bounds connecting and each
read; at most 1 KB of the answer is read and nothing of it is kept but its status.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from integrations.errors import URL_INVALID, URL_NOT_HTTPS, URL_PRIVATE, IntegrationError

USER_AGENT = "THG-Quote-Webhooks/1"


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    address: str  # the checked address the request goes to


def url_check(url: str) -> Target:
    """The URL's target, or IntegrationError (field `url`) why it may not be one."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise IntegrationError(URL_INVALID, field="url") from None
    if parts.scheme not in {"https", "http"} or not parts.hostname or len(url) > 500:
        raise IntegrationError(URL_INVALID, field="url")
    if parts.username or parts.password or parts.fragment:
        raise IntegrationError(URL_INVALID, field="url")
    if parts.scheme == "http" and not settings.WEBHOOK_HTTP_ALLOWED:
        raise IntegrationError(URL_NOT_HTTPS, field="url")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise IntegrationError(URL_INVALID, field="url") from None
    addresses = [str(entry[4][0]) for entry in found]
    if not addresses:
        raise IntegrationError(URL_INVALID, field="url")
    if not settings.WEBHOOK_PRIVATE_ALLOWED and not all(_public(address) for address in addresses):
        raise IntegrationError(URL_PRIVATE, field="url")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path, addresses[0])


def signature(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=ssl.create_default_context())
        self._address = target.address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        # Certificate checked against the host name, as for a request to the name itself.
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    error: str
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def send(*, url: str, secret: str, event_type: str, delivery_id: str, payload: dict[str, Any]) -> Outcome:
    """One signed POST of the payload; never raises for the receiver's sake."""
    started = time.monotonic()

    def outcome(status: int | None, error: str) -> Outcome:
        return Outcome(status, error[:300], int((time.monotonic() - started) * 1000))

    try:
        target = url_check(url)
    except IntegrationError as refused:
        return outcome(None, f"Adresse abgelehnt ({refused.code})")
    body = body_of(payload)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-THG-Event": event_type,
        "X-THG-Delivery": delivery_id,
        "X-THG-Timestamp": str(timestamp),
        "X-THG-Signature": f"v1={signature(secret, timestamp, body)}",
    }
    timeout = float(settings.WEBHOOK_TIMEOUT)
    connection = _PinnedHTTPS(target, timeout) if target.scheme == "https" else _PinnedHTTP(target, timeout)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(1024)
        return outcome(response.status, "" if 200 <= response.status < 300 else f"HTTP {response.status}")
    except TimeoutError:
        return outcome(None, "Zeitüberschreitung")
    except ssl.SSLError as failed:
        return outcome(None, f"TLS-Fehler ({failed.reason or type(failed).__name__})")
    except (OSError, http.client.HTTPException) as failed:
        return outcome(None, f"Verbindung fehlgeschlagen ({type(failed).__name__})")
    finally:
        connection.close()
