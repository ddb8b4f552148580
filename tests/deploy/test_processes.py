"""The production processes on this machine: gunicorn with deploy/gunicorn.conf.py and a huey
consumer on Redis, with the real PostgreSQL, S3 in moto and mails written to files."""

from __future__ import annotations

import email
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.utils import timezone

from tenants.quota_years import year_defaults
from tests.deploy.conftest import BUCKET, ROOT, free_port, gunicorn_command, s3_client, wait_for_port
from tests.fixtures.zlb.generate import zlb_document

ALPHA_EMAIL = "jonas.brenner@example.org"
BETA_EMAIL = "mira.albrecht@example.org"
HTTPS = {"X-Forwarded-Proto": "https"}


class Stack:
    def __init__(self, port: int, env: dict[str, str], logs: dict[str, Path]):
        self.base = f"http://127.0.0.1:{port}"
        self.env = env
        self.logs = logs

    def get(self, host: str, path: str, **headers: str) -> requests.Response:
        return requests.get(
            self.base + path, headers={"Host": host, **headers}, allow_redirects=False, timeout=30
        )

    def post(self, host: str, path: str, **kwargs: Any) -> requests.Response:
        headers = {"Host": host, **HTTPS, **kwargs.pop("headers", {})}
        return requests.post(self.base + path, headers=headers, allow_redirects=False, timeout=60, **kwargs)

    def log_lines(self, name: str) -> list[str]:
        return [line for line in self.logs[name].read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def stack(production_db: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs_dir = tmp_path_factory.mktemp("logs")
    port = free_port()
    env = {
        **production_db,
        "WEB_CONCURRENCY": "1",
        "GUNICORN_THREADS": "2",
        # one task per worker process, so the test sees a worker recycled between two mails
        "HUEY_WORKERS": "1",
        "HUEY_WORKER_TYPE": "process",
        "HUEY_MAX_TASKS": "1",
    }
    logs = {"web": logs_dir / "web.log", "worker": logs_dir / "worker.log"}
    with logs["web"].open("w") as web_log, logs["worker"].open("w") as worker_log:
        web = subprocess.Popen(
            gunicorn_command(port), cwd=ROOT, env=env, stdout=web_log, stderr=subprocess.STDOUT
        )
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "run_huey"],
            cwd=ROOT,
            env=env,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, web)
            yield Stack(port, env, logs)
        finally:
            for process in (web, worker):
                process.terminate()
            for process in (web, worker):
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()


def _open_year() -> int:
    """A quota year the law's calendar takes today (this stack's database has the real one)."""
    today = timezone.localdate()
    return today.year if year_defaults(today.year).is_open(today) else today.year + 1


def wait_for_mail(directory: Path, to: str, seconds: float = 30) -> email.message.Message:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for path in sorted(directory.glob("*.eml")) if directory.exists() else []:
            message = email.message_from_bytes(path.read_bytes())
            if message["To"] == to:
                return message
        time.sleep(0.2)
    raise AssertionError(f"no mail to {to} in {directory} after {seconds} s")


def mail_text(message: email.message.Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no text part")


def test_probes_answer_on_the_pod_ip_over_plain_http(stack: Stack) -> None:
    health = stack.get("10.244.3.9:8000", "/healthz")
    ready = stack.get("10.244.3.9:8000", "/readyz")

    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert ready.status_code == 200, ready.text
    assert set(ready.json()["checks"]) == {"database", "redis", "storage"}


def test_hosts_https_and_security_headers(stack: Stack) -> None:
    plain = stack.get("alpha.thg.test", "/api/configs/alpha/")
    secure = stack.get("alpha.thg.test", "/api/configs/alpha/", **HTTPS)
    custom = stack.get("thg.alpha.example", "/api/configs/alpha/", **HTTPS)
    page = stack.get("beta.thg.test", "/", **HTTPS)

    assert (
        plain.status_code == 301 and plain.headers["Location"] == "https://alpha.thg.test/api/configs/alpha/"
    )
    assert secure.status_code == 200 and secure.json()["name"] == "Alpha GmbH"
    assert secure.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert custom.status_code == 200 and custom.json()["subdomain"] == "alpha"
    assert page.status_code == 200 and '<div id="root">' in page.text
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self' https://www.googletagmanager.com;" in policy
    # the built page has no inline script the policy would block
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page.text)
    for host in ("nobody.thg.test", "evil.example", "thg.test.evil.example"):
        assert stack.get(host, "/api/configs/alpha/", **HTTPS).status_code == 404, host


def test_login_mail_by_the_worker_scan_to_s3_and_clean_logs(stack: Stack, moto_endpoint: str) -> None:
    mail_dir = Path(stack.env["MAIL_DIR"])
    # given an owner of partner alpha asks for a code: the web process queues the mail in Redis
    sent = stack.post(
        "alpha.thg.test", "/api/auth/registration/otp/", json={"email": ALPHA_EMAIL, "partner": "alpha"}
    )
    assert sent.status_code == 200, sent.text
    # then the huey consumer (another process) renders and sends it
    message = wait_for_mail(mail_dir, ALPHA_EMAIL)
    code = re.search(r"\b(\d{6})\b", mail_text(message)).group(1)  # type: ignore[union-attr]
    tokens = stack.post(
        "alpha.thg.test", "/api/auth/registration/otp/verify/", json={"email": ALPHA_EMAIL, "otp_code": code}
    ).json()
    # and a second partner's mail goes out after the worker process was recycled
    other = stack.post(
        "beta.thg.test", "/api/auth/registration/otp/", json={"email": BETA_EMAIL, "partner": "beta"}
    )
    assert other.status_code == 200
    wait_for_mail(mail_dir, BETA_EMAIL)

    # when the owner uploads a scan, it lands in the bucket under alpha's prefix
    upload = stack.post(
        "alpha.thg.test",
        "/api/bev_registrations/",
        headers={"Authorization": f"Bearer {tokens['access']}"},
        data={"partner": "alpha", "source": "", "registration_years": str(_open_year())},
        files={"zlb_scan": ("scan.jpg", zlb_document(31)[0], "image/jpeg")},
    )
    assert upload.status_code == 201, upload.text
    listed = s3_client(moto_endpoint).list_objects_v2(Bucket=BUCKET, Prefix="media/p_alpha/scans/")
    uuid = upload.json()[0]["uuid"]
    names = {item["Key"] for item in listed.get("Contents", [])}
    assert {f"media/p_alpha/scans/{uuid}.jpg", f"media/p_alpha/scans/{uuid}-resized.jpg"} <= names

    # then both processes logged JSON lines only, each with its partner, and no personal data
    time.sleep(0.5)
    web_lines = [json.loads(line) for line in stack.log_lines("web")]
    worker_lines = [json.loads(line) for line in stack.log_lines("worker")]
    requests_logged = [line for line in web_lines if line["logger"] == "thg.request"]
    routes = {(line["partner"], line["route"], line["status"]) for line in requests_logged}
    assert ("p_alpha", "/api/bev_registrations/", 201) in routes
    assert ("p_beta", "/api/auth/registration/otp/", 200) in routes
    assert all("partner" in line for line in web_lines + worker_lines)
    executed = {line["partner"] for line in worker_lines if line["message"].startswith("Executing")}
    # (periodic tasks, e.g. the custom-domain check every 5 minutes, may run in between)
    assert {"p_alpha", "p_beta"} <= executed
    assert any("restarting (max tasks)" in line["message"] for line in worker_lines)
    everything = stack.logs["web"].read_text() + stack.logs["worker"].read_text()
    for secret in (ALPHA_EMAIL, BETA_EMAIL, "jonas.brenner", code, tokens["access"]):
        assert secret not in everything
