"""Error reporting to Sentry (sentry-sdk), on only when SENTRY_DSN is set.

No personal data leaves: send_default_pii is off (no cookies, user, client address), request
bodies are never sent, and before_send masks e-mail addresses, IBANs and URL secrets (login
keys, reset tokens, codes) in every string of the event, local variables and breadcrumbs
included, with the same rules as the logs (common.logs.redact).
"""

from __future__ import annotations

import hashlib
from typing import Any

from common.logs import redact


def web_release(index_html: bytes) -> str:
    """The web app's release name: a digest of the built index.html, which names every hashed
    entry file, so one build is one release. The browser reports it (tenants.web_views writes it
    into the page) and `make sourcemaps-upload` (deploy/tools/sourcemaps.py) uploads the
    build's source maps under it: both compute it from the same file."""
    return "web@" + hashlib.sha256(index_html).hexdigest()[:12]


def scrub(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item) for item in value]
    return value


def before_send(event: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    return scrub(event)  # type: ignore[no-any-return]


def before_breadcrumb(crumb: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    return scrub(crumb)  # type: ignore[no-any-return]


def init_error_reporting(dsn: str, *, environment: str, release: str, transport: Any = None) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.integrations.huey import HueyIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        release=release or None,
        integrations=[DjangoIntegration(), HueyIntegration()],
        send_default_pii=False,
        max_request_body_size="never",
        before_send=before_send,  # type: ignore[arg-type]
        before_send_transaction=before_send,  # type: ignore[arg-type]
        before_breadcrumb=before_breadcrumb,  # type: ignore[arg-type]
        traces_sample_rate=0.0,
        transport=transport,
    )
