"""Secrets stay out of queues and logs (issue 13, item 6): mail tasks carry row ids, the access
and request logs carry no token-bearing query strings, the default run prints no codes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import mail
from django.test import Client
from huey.contrib.djhuey import HUEY
from huey.signals import SIGNAL_ENQUEUED

from accounts.models import LoginCode, LoginLink, User
from tests.accounts.conftest import last_mail_code, last_mail_link, solve_bot_check

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
VERIFY_URL = "http://autohaus.localhost:8000/verify-email?campaign=herbst"


@pytest.fixture
def queued() -> Iterator[list[bytes]]:
    """Each task message exactly as huey would write it to Redis or SQLite."""
    messages: list[bytes] = []

    def enqueued(signal: str, task: Any) -> None:
        messages.append(HUEY.serialize_task(task))

    HUEY.signal(SIGNAL_ENQUEUED)(enqueued)
    yield messages
    HUEY.disconnect_signal(enqueued, SIGNAL_ENQUEUED)


@pytest.fixture
def post(client: Client, django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """POST through the real middleware; the call's mail tasks run when it commits, as in the server."""

    def call(path: str, payload: dict[str, Any]) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, payload, content_type="application/json", HTTP_HOST=HOST)

    return call


def assert_only_ids(messages: list[bytes], *secrets: str) -> None:
    assert messages, "no task was queued"
    for message in messages:
        for secret in secrets:
            assert secret.encode() not in message
        # the arguments are the schema and a row id, nothing else
        task = HUEY.deserialize_task(message)
        assert task.args[0] == "p_autohaus"
        assert all(isinstance(arg, int) for arg in task.args[1:2])


def test_a_login_code_task_carries_the_row_id_not_the_code(post: Any, queued: list[bytes]) -> None:
    assert (
        post("/api/auth/registration/otp/", {"email": "anna@example.org", "partner": "autohaus"}).status_code
        == 200
    )
    code = last_mail_code()
    assert_only_ids(queued, code)
    assert HUEY.deserialize_task(queued[0]).args == ("p_autohaus", LoginCode.objects.get().pk)
    # and the database keeps neither the code nor its sealed copy once the mail went out
    row = LoginCode.objects.get()
    assert row.sealed == "" and code not in row.code_hash


def test_a_login_link_task_carries_the_row_id_not_the_link(post: Any, queued: list[bytes]) -> None:
    body = {"email": "anna@example.org", "partner": "autohaus", "verify_email_url": VERIFY_URL}
    assert post("/api/auth/registration/email/", body).status_code == 200
    key = parse_qs(urlsplit(last_mail_link()).query)["key"][0]
    assert_only_ids(queued, key)
    assert LoginLink.objects.get().sealed == ""
    # the mailed link still logs in
    assert post("/api/auth/registration/email/verify/", {"key": key}).status_code == 200


def test_the_portal_check_reset_and_signup_tasks_carry_no_secret(
    client: Client, post: Any, queued: list[bytes]
) -> None:
    User.objects.create_user(username="paula@example.de", email="paula@example.de", password="Geheim-123!")
    login = post(
        "/api/auth/user/login/",
        {"username": "paula@example.de", "password": "Geheim-123!", "recaptcha": solve_bot_check(client)},
    )
    assert login.json()["recaptcha_extra_check"] is True
    code = last_mail_code()

    assert (
        post("/api/auth/user/password-reset/verify-email/", {"email": "paula@example.de"}).status_code == 200
    )
    reset = parse_qs(urlsplit(last_mail_link()).query)

    User.objects.create_user(username="flow@example.de", email="flow@example.de")
    body = {"email": "flow@example.de", "partner": "autohaus", "verify_email_url": VERIFY_URL}
    assert post("/api/end_user_portal/email_register/", body).status_code == 200
    signup_key = parse_qs(urlsplit(last_mail_link()).query)["key"][0]

    assert len(queued) == 3
    assert_only_ids(queued, code, reset["token"][0], signup_key)
    # the reset link made in the task works
    assert (
        client.get(
            f"/api/auth/user/password-reset/verify/{reset['token'][0]}/{reset['id'][0]}/", HTTP_HOST=HOST
        ).json()["email"]
        == "paula@example.de"
    )


def test_a_replaced_code_is_not_mailed_by_a_late_worker(client: Client, queued: list[bytes]) -> None:
    """A worker that gets to an old task after a newer code exists sends nothing stale."""
    from accounts.services import _code_issue
    from accounts.tasks import mail_login_code

    old = _code_issue(email="anna@example.org", purpose=LoginCode.Purpose.REGISTRATION)
    _code_issue(email="anna@example.org", purpose=LoginCode.Purpose.REGISTRATION)
    mail_login_code("p_autohaus", old.pk)
    assert not mail.outbox
    old.refresh_from_db()
    assert old.sealed == ""


@pytest.mark.parametrize("echo", [None, "1"])
def test_the_outbox_prints_codes_only_with_mail_echo(
    post: Any, settings: Any, tmp_path: Any, capsys: Any, monkeypatch: Any, echo: str | None
) -> None:
    # given the default run's mail backend
    settings.EMAIL_BACKEND = "common.mail.OutboxBackend"
    settings.MAIL_DIR = tmp_path
    settings.MAIL_QUIET = False
    if hasattr(settings, "MAIL_ECHO"):
        del settings.MAIL_ECHO
    if echo is None:
        monkeypatch.delenv("MAIL_ECHO", raising=False)
    else:
        monkeypatch.setenv("MAIL_ECHO", echo)

    # when a code is mailed
    assert (
        post("/api/auth/registration/otp/", {"email": "anna@example.org", "partner": "autohaus"}).status_code
        == 200
    )

    # then the mail is in var/mail either way, and on stdout only with MAIL_ECHO=1
    (saved,) = tmp_path.glob("*.eml")
    body = saved.read_bytes().decode()
    code = re.search(r"\b(\d{6})\b", body)
    assert code is not None
    printed = capsys.readouterr().out
    assert (code.group(1) in printed) is (echo == "1")


SECRET = "s3cr3t-K3y-0f-a-l0gin-link"


def test_the_request_log_carries_no_query_string_or_reset_token(client: Client, caplog: Any) -> None:
    with caplog.at_level("INFO", logger="thg.request"):
        client.get(f"/api/auth/user/password-reset/verify/{SECRET}/MQ/?key={SECRET}", HTTP_HOST=HOST)
        client.get(f"/verify-email?campaign=herbst&key={SECRET}", HTTP_HOST=HOST)
        client.get(f"/no-such-page/?token={SECRET}", HTTP_HOST=HOST)
    lines = [record for record in caplog.records if record.name == "thg.request"]
    assert len(lines) == 3
    for record in lines:
        assert SECRET not in str(vars(record))


def test_djangos_4xx_lines_carry_no_reset_token_in_either_log_format(client: Client, caplog: Any) -> None:
    import logging

    from common.logs import JsonFormatter, PartnerFilter

    with caplog.at_level("WARNING", logger="django.request"):
        response = client.get(f"/api/auth/user/password-reset/verify/{SECRET}/MQ/", HTTP_HOST=HOST)
    assert response.status_code == 400
    (record,) = [record for record in caplog.records if record.name == "django.request"]
    # what the console handler writes (settings.LOGGING: PartnerFilter, then json or text;
    # the console handler's filter has already run on this very record)
    assert PartnerFilter().filter(record)
    text = logging.Formatter("%(levelname)s %(name)s [%(partner)s] %(message)s").format(record)
    json_line = JsonFormatter().format(record)
    for line in (text, json_line):
        assert SECRET not in line and "password-reset/verify/[redacted]/" in line


@pytest.mark.parametrize(
    ("url", "logged"),
    [
        (f"/portal/auth/reset-password?token={SECRET}&id=MQ", "/portal/auth/reset-password?[redacted]"),
        (
            f"/api/auth/user/password-reset/verify/{SECRET}/MQ/",
            "/api/auth/user/password-reset/verify/[redacted]/",
        ),
        (
            f"/api/auth/user/password-reset/verify{SECRET}/MQ/",
            "/api/auth/user/password-reset/verify/[redacted]/",
        ),
        (
            f"https://autohaus.example/verify-email?key={SECRET}#top",
            "https://autohaus.example/verify-email?[redacted]",
        ),
        ("/api/partner/config/", "/api/partner/config/"),
    ],
)
def test_urls_are_redacted_for_logs(url: str, logged: str) -> None:
    from common.logs import url_redact

    assert url_redact(url) == logged


def test_make_serve_and_the_image_use_the_redacting_access_logger() -> None:
    from tests.conftest import ROOT

    serve = (ROOT / "Makefile").read_text().split("\nserve:", 1)[1].split("\n\n", 1)[0]
    assert "--access-logfile -" in serve and "--logger-class common.logs.AccessLogger" in serve
    assert 'logger_class = "common.logs.AccessLogger"' in (ROOT / "deploy" / "gunicorn.conf.py").read_text()


def test_gunicorns_access_log_drops_tokens(django_db_setup: None, tmp_path: Any) -> None:
    """A gunicorn served with the flags of `make serve`, its access log in a file."""
    import os
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    from tests.conftest import ROOT, _free_port, database_url

    port, log = _free_port(), tmp_path / "access.log"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "1",
        "HUEY_IMMEDIATE": "1",
        "MAIL_DIR": str(tmp_path / "mail"),
        "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
    }
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "config.wsgi:application", "--chdir", str(ROOT / "platform")),
            *("--bind", f"127.0.0.1:{port}", "--workers", "1", "--no-control-socket"),
            *("--access-logfile", str(log), "--logger-class", "common.logs.AccessLogger"),
        ],
        env=env,
        cwd=ROOT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        paths = [
            f"/portal/auth/reset-password?token={SECRET}&id=MQ",
            f"/api/auth/user/password-reset/verify/{SECRET}/MQ/",
            "/api/partner/config/",
        ]
        deadline = time.monotonic() + 30
        for path in paths:
            request = urllib.request.Request(
                base + path,
                headers={
                    "Host": f"autohaus.localhost:{port}",
                    "Referer": f"{base}/verify-email?key={SECRET}",
                },
            )
            while True:
                try:
                    urllib.request.urlopen(request, timeout=60).close()
                    break
                except urllib.error.HTTPError:
                    break  # an answer, whatever its status, is logged
                except OSError:
                    assert time.monotonic() < deadline, "gunicorn did not start"
                    time.sleep(0.2)
        while time.monotonic() < deadline and len(log.read_text().splitlines()) < len(paths):
            time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=10)
    lines = log.read_text().splitlines()
    assert len(lines) == len(paths), lines
    assert SECRET not in log.read_text()
    assert '"GET /portal/auth/reset-password?[redacted] HTTP/1.1"' in lines[0]
    assert "/verify-email?[redacted]" in lines[0]  # the Referer
