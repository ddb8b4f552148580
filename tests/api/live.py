"""Talking to a gunicorn test server (tests/conftest.py start_server) as a client would:
raw bytes where http.client would correct the request, and a token of a committed owner."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from tenants.models import Partner

HOST = "autohaus.localhost"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        assert self.headers.get("content-type", "").startswith("application/json"), (
            self.headers,
            self.body[:300],
        )
        return json.loads(self.body)


def raw_request(
    port: int, head: str, body: bytes = b"", *, send_body: bool = True, timeout: float = 20
) -> Answer:
    """One request as bytes (head without the final blank line); the answer parsed."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n\r\n" + (body if send_body else b""))
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                header_bytes, _, rest = data.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in header_bytes.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    None,
                )
                if length is not None and len(rest) >= length:
                    break
                if rest.endswith(b"0\r\n\r\n"):
                    break
    header_bytes, _, rest = data.partition(b"\r\n\r\n")
    lines = header_bytes.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        rest = _dechunk(rest)
    return Answer(int(lines[0].split()[1]), headers, rest)


def _dechunk(data: bytes) -> bytes:
    body = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        body, data = body + data[:size], data[size + 2 :]
    return body


def request(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    content_type: str | None = None,
    token: str | None = None,
    host: str = HOST,
    extra: str = "",
) -> Answer:
    head = f"{method} {path} HTTP/1.1\nHost: {host}\nConnection: close"
    if content_type is not None:
        head += f"\nContent-Type: {content_type}"
    if token is not None:
        head += f"\nAuthorization: Bearer {token}"
    if body or method in {"POST", "PUT", "PATCH"}:
        head += f"\nContent-Length: {len(body)}"
    if extra:
        head += "\n" + extra
    return raw_request(port, head, body)


def committed_owner_tokens(django_db_blocker: Any, email: str = "live-owner@example.org") -> dict[str, str]:
    """Tokens of an owner of the demo partner `autohaus`, committed so a server process sees it."""
    with django_db_blocker.unblock():
        assert connection.settings_dict["NAME"].startswith("test_")
        partner = Partner.objects.get(subdomain="autohaus")
        with schema_context(partner.schema_name):
            user, _ = User.objects.get_or_create(username=email, defaults={"email": email})
            return tokens_issue(user=user, partner=partner)
