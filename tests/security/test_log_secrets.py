"""No secret in any log (issue 47, item 2): a staff invite, an owner's data export, a password
reset, a login link and signed scan images run through gunicorn as `make serve` runs it (its
access log, Django's request warnings on stderr); afterwards neither log holds any key the run
issued, while both show the requests (with the credential replaced)."""

from __future__ import annotations

import email
import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django_tenants.utils import schema_context

from accounts.tokens import tokens_issue
from registrations.files import scan_url
from tenants.models import Partner
from tenants.services import partner_provision
from tests.conftest import ROOT, _free_port, database_url
from tests.factories import RegistrationFactory, UserFactory
from tests.partner_staff import staff_member, totp_code_for

PASSWORD = "Geheim-Passwort-47!"


@pytest.fixture
def partner(django_db_setup: None, django_db_blocker: Any) -> Iterator[Partner]:
    """A partner of its own with committed rows, as the server process sees them."""
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain=f"logs-{secrets.token_hex(3)}", name="Log Secrets")
    yield partner
    with django_db_blocker.unblock():
        partner.delete(force_drop=True)


@pytest.fixture
def server(partner: Partner, tmp_path: Path) -> Iterator[tuple[str, Path, Path, Path]]:
    """gunicorn with the flags of `make serve`: (base URL, access log, stderr, mail folder)."""
    port, access, errors, mails = (
        _free_port(),
        tmp_path / "access.log",
        tmp_path / "stderr.log",
        tmp_path / "mail",
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "1",
        "HUEY_IMMEDIATE": "1",
        "MAIL_DIR": str(mails),
        "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
    }
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            [
                *(
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "config.wsgi:application",
                    "--chdir",
                    str(ROOT / "platform"),
                ),
                *("--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "2", "--no-control-socket"),
                *("--access-logfile", str(access), "--logger-class", "common.logs.AccessLogger"),
            ],
            env=env,
            cwd=ROOT,
            stderr=stderr,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(base + "/robots.txt", timeout=30)
                break
            except requests.RequestException:  # not listening yet, or a loaded machine
                assert time.monotonic() < deadline and process.poll() is None, "gunicorn did not start"
                time.sleep(0.2)
        yield base, access, errors, mails
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _last_link(mails: Path, pattern: str) -> str:
    """The first URL matching pattern in the newest mail of the folder."""
    newest = max(mails.glob("*.eml"), key=lambda path: path.stat().st_mtime_ns)
    message = email.message_from_bytes(newest.read_bytes())
    text = "\n".join(
        bytes(part.get_payload(decode=True)).decode(part.get_content_charset() or "utf-8")
        for part in message.walk()
        if not part.is_multipart()
    )
    match = re.search(pattern, text)
    assert match, text[:2000]
    return match.group(0)


def test_a_run_of_invites_exports_resets_and_scans_leaves_no_key_in_any_log(
    partner: Partner, server: tuple[str, Path, Path, Path], django_db_blocker: Any
) -> None:
    base, access, errors, mails = server
    host = f"{partner.subdomain}.localhost"
    with django_db_blocker.unblock():
        admin, admin_password = staff_member(partner, "partner_admin")
        with schema_context(partner.schema_name):
            owner = UserFactory.create(email="olga@example.de", username="olga@example.de")
            owner.set_password(PASSWORD)
            owner.save()
            registration = RegistrationFactory.create(owner=owner)
            scan = scan_url(partner=partner, registration=registration, kind="scan")
            admin_email = admin.user.email
            owner_token = tokens_issue(user=owner, partner=partner)["access"]
    issued: list[str] = []
    anon = requests.Session()  # nobody signed in
    anon.headers["Host"] = host
    staff = requests.Session()
    staff.headers["Host"] = host

    # a partner admin signs in and invites a colleague; the colleague opens and uses the link
    staff.get(base + "/api/partner/auth/csrf/")
    staff.headers["X-CSRFToken"] = staff.cookies["csrftoken"] or ""
    assert staff.post(
        base + "/api/partner/auth/login/", json={"username": admin_email, "password": admin_password}
    ).ok
    with django_db_blocker.unblock():
        code = totp_code_for(partner.schema_name, admin.user_id)
    assert staff.post(base + "/api/partner/auth/otp/", json={"token": code}).ok
    staff.headers["X-CSRFToken"] = staff.cookies["csrftoken"] or ""
    invited = staff.post(
        base + "/api/partner/staff/", json={"email": "neu@example.de", "name": "Neu", "role": "viewer"}
    )
    assert invited.status_code == 201, invited.text
    invite = _last_link(mails, r"/partner/invite/[A-Za-z0-9_-]+").rsplit("/", 1)[1]
    issued.append(invite)
    visitor = requests.Session()
    visitor.headers["Host"] = host
    visitor.get(f"{base}/partner/invite/{invite}")
    assert visitor.get(f"{base}/api/partner/auth/invite/{invite}/").status_code == 200
    visitor.get(base + "/api/partner/auth/csrf/")
    visitor.headers["X-CSRFToken"] = visitor.cookies["csrftoken"] or ""
    accepted = visitor.post(
        f"{base}/api/partner/auth/invite/{invite}/", json={"password": "Neu-Passwort-47!x"}
    )
    assert accepted.ok, accepted.text
    # used now: "Not Found" from here on, which Django logs with the path
    assert visitor.get(f"{base}/api/partner/auth/invite/{invite}/").status_code == 404

    # the owner asks for the export and downloads it twice (the second time is a 404)
    owner_headers = {"Host": host, "Authorization": f"Bearer {owner_token}"}
    assert anon.post(base + "/api/end_user_portal/data_export/", headers=owner_headers).status_code == 202
    export = _last_link(mails, r"/api/end_user_portal/data_export/[A-Za-z0-9_-]+/").split("/")[-2]
    issued.append(export)
    assert anon.get(f"{base}/api/end_user_portal/data_export/{export}/").ok
    assert anon.get(f"{base}/api/end_user_portal/data_export/{export}/").status_code == 404

    # a password reset: the mailed page, the check, and the check with a spoiled token
    assert anon.post(
        base + "/api/auth/user/password-reset/verify-email/",
        json={"email": "olga@example.de"},
        headers={"Host": host},
    ).ok
    reset = _last_link(mails, r"/portal/auth/reset-password\?[^\s\"'<>]+")
    token, uid = re.findall(r"(?:token|id)=([^&\s]+)", reset)
    issued += [token]
    anon.get(base + reset)
    assert anon.get(f"{base}/api/auth/user/password-reset/verify/{token}/{uid}/").ok
    anon.get(f"{base}/api/auth/user/password-reset/verify/{token}x/{uid}/")

    # a login link of the registration flow
    assert anon.post(
        base + "/api/auth/registration/email/",
        json={
            "email": "lena@example.de",
            "partner": partner.subdomain,
            "verify_email_url": f"http://{host}/verify-email",
        },
        headers={"Host": host},
    ).ok
    login_key = _last_link(mails, r"key=[A-Za-z0-9_-]+").split("=", 1)[1]
    issued.append(login_key)
    anon.get(f"{base}/verify-email?key={login_key}", headers={"Referer": f"{base}/x?key={login_key}"})

    # a signed scan image (its file is not on disk here: Not Found) and a spoiled one
    scan_token = scan.split("/")[-2]
    issued.append(scan_token)
    anon.get(base + scan)
    anon.get(f"{base}/api/bev_registrations/images/{scan_token}x/")

    # then: the requests are in the logs, the keys are not
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "/images/" not in access.read_text():
        time.sleep(0.1)
    access_log, stderr = access.read_text(), errors.read_text()
    assert "/partner/invite/[redacted]" in access_log
    assert "/api/partner/auth/invite/[redacted]/" in access_log
    assert "/api/end_user_portal/data_export/[redacted]/" in access_log
    assert "/password-reset/verify/[redacted]/" in access_log
    assert "/api/bev_registrations/images/[redacted]/" in access_log
    assert "Not Found: /api/partner/auth/invite/[redacted]/" in stderr, stderr[-3000:]
    assert "Not Found: /api/end_user_portal/data_export/[redacted]/" in stderr
    assert "Not Found: /api/bev_registrations/images/[redacted]/" in stderr
    for key in issued:
        assert len(key) >= 20
        assert key not in access_log, key
        assert key not in stderr, key


@pytest.mark.parametrize(
    ("text", "logged"),
    [
        (
            "Not Found: /api/partner/auth/invite/abcDEF_123-x/",
            "Not Found: /api/partner/auth/invite/[redacted]/",
        ),
        ("GET /partner/invite/abcDEF_123-x HTTP/1.1", "GET /partner/invite/[redacted] HTTP/1.1"),
        ("/api/end_user_portal/data_export/k3y/", "/api/end_user_portal/data_export/[redacted]/"),
        ("/api/bev_registrations/images/eyJy:1a:b/", "/api/bev_registrations/images/[redacted]/"),
        ("/?thg_preview=t0ken&x=1", "/?thg_preview=[redacted]&x=1"),
        ("/api/partner/staff/", "/api/partner/staff/"),
    ],
)
def test_one_redaction_takes_every_credential_out(text: str, logged: str) -> None:
    from common.logs import secrets_redact

    assert secrets_redact(text) == logged
