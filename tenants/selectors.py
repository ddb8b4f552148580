"""Partner reads."""

from __future__ import annotations

import json
import threading
from typing import Any

from tenants.config_schema import config_public
from tenants.models import Partner
from themes.compiler import COMPILER_VERSION, theme_compile, theme_compile_json

_payload_lock = threading.Lock()
# (partner id, config version) -> (etag, body). Bounded by the number of partners a
# process serves; an old version is replaced when the partner changes.
_payloads: dict[int, tuple[int, str, bytes]] = {}


def _config_fields(partner: Partner) -> dict[str, Any]:
    return {
        **config_public(partner.config),
        "frontend_active": partner.frontend_active,
        "subdomain": partner.subdomain,
        "name": partner.name,
        "kind": partner.kind,
    }


def partner_config(partner: Partner) -> dict[str, Any]:
    """The configuration answer of `GET /api/configs/{subdomain}/`."""
    return {**_config_fields(partner), "theme": theme_compile(partner.config, partner.kind)}


def partner_config_payload(partner: Partner) -> tuple[str, bytes]:
    """The serialised answer and its ETag, built once per partner and configuration version."""
    cached = _payloads.get(partner.pk)
    if cached is not None and cached[0] == partner.config_version:
        return cached[1], cached[2]
    fields = json.dumps(_config_fields(partner), ensure_ascii=False, separators=(",", ":"))
    # The compiled bundle is spliced in as the cached JSON text it already is.
    body = f'{fields[:-1]},"theme":{theme_compile_json(partner.config, partner.kind)}}}'.encode()
    etag = f'"{partner.pk}-{partner.config_version}-{COMPILER_VERSION}"'
    with _payload_lock:
        _payloads[partner.pk] = (partner.config_version, etag, body)
    return etag, body
