from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from altcha import solve_challenge_v1
from django.core import mail
from django.test import Client

HOST = "autohaus.localhost"


@pytest.fixture
def api(client: Client) -> Callable[..., Any]:
    """POST JSON to the API of a partner host."""

    def post(path: str, payload: dict[str, Any], *, host: str = HOST, **headers: str) -> Any:
        return client.post(path, payload, content_type="application/json", HTTP_HOST=host, headers=headers)

    return post


def solve_bot_check(client: Client, host: str = HOST) -> str:
    """What the portal's invisible bot check sends: a solved challenge of that partner."""
    challenge = client.get("/api/auth/bot-check/challenge/", HTTP_HOST=host).json()
    solution = solve_challenge_v1(
        challenge["challenge"], challenge["salt"], challenge["algorithm"], challenge["maxnumber"]
    )
    assert solution is not None
    payload = {**{k: challenge[k] for k in ("algorithm", "challenge", "salt", "signature")}}
    payload["number"] = solution.number
    return base64.b64encode(json.dumps(payload).encode()).decode()


def last_mail_code() -> str:
    match = re.search(r"\b(\d{6})\b", str(mail.outbox[-1].body))
    assert match, mail.outbox[-1].body
    return match.group(1)


def last_mail_link() -> str:
    match = re.search(r"(https?://\S+)", str(mail.outbox[-1].body))
    assert match, mail.outbox[-1].body
    return match.group(1)


@pytest.fixture(autouse=True)
def _in_autohaus_schema(request: Any) -> Any:
    """The test body reads and writes the schema of the partner its requests go to."""
    from django_tenants.utils import schema_context

    if "db" not in request.fixturenames and not request.node.get_closest_marker("django_db"):
        yield
        return
    with schema_context("p_autohaus"):
        yield
