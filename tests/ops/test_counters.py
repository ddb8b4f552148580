"""The login, throttle and mail counters of /metrics (common.metrics): one admin login that
succeeds, wrong passwords until the growing delay throttles, and a mail the server refuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django_tenants.utils import schema_context
from prometheus_client import REGISTRY

from accounts.mails import mail_send
from accounts.models import User
from quota.services import back_office_staff_ensure

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
PASSWORD = "Staff_2026!"


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def bernd() -> Iterator[User]:
    with schema_context("p_autohaus"):
        yield back_office_staff_ensure(username="bernd", email="bernd@autohaus.example", password=PASSWORD)


def test_admin_logins_count_success_failures_and_throttles(
    client: Client, bernd: User, settings: Any
) -> None:
    before = {
        result: value("thg_logins_total", kind="admin", result=result)
        for result in ("success", "failed", "throttled")
    }

    def attempt(password: str) -> int:
        answer = client.post(
            "/admin/login/",
            {"username": "bernd", "password": password},
            HTTP_HOST=HOST,
            REMOTE_ADDR="10.9.8.7",
        )
        return answer.status_code

    # given one right password and then wrong ones past the free tries
    assert attempt(PASSWORD) == 302
    statuses = [attempt("falsch") for _ in range(settings.ADMIN_LOGIN_FREE_FAILURES + 1)]

    # then each outcome is counted under its kind, the last one as throttled
    assert statuses[-1] == 429
    assert value("thg_logins_total", kind="admin", result="success") - before["success"] == 1
    failed = value("thg_logins_total", kind="admin", result="failed") - before["failed"]
    throttled = value("thg_logins_total", kind="admin", result="throttled") - before["throttled"]
    assert failed == settings.ADMIN_LOGIN_FREE_FAILURES
    assert throttled == 1


def test_mails_count_sent_and_failed_by_template(settings: Any) -> None:
    sent_before = value("thg_mails_total", template="password_reset", result="sent")
    failed_before = value("thg_mails_total", template="password_reset", result="failed")
    arguments: dict[str, Any] = {
        "schema_name": "p_autohaus",
        "to": "klara.kunde@example.org",
        "template": "password_reset",
        "subject": "Passwort zurücksetzen",
        "context": {"link": "https://autohaus.localhost/portal/reset/abc/"},
    }

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail_send(**arguments)
    # a mail server that refuses the connection
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    with pytest.raises(OSError):
        mail_send(**arguments)

    assert len(mail.outbox) == 1
    assert value("thg_mails_total", template="password_reset", result="sent") - sent_before == 1
    assert value("thg_mails_total", template="password_reset", result="failed") - failed_before == 1
