"""API keys of the partner API (issue 49, docs/partner-api.md "API keys"): a partner admin
makes named keys, read or write, shown once and stored as a keyed hash; rotates and revokes
them; sees their last use. A key is accepted beside the staff session, limited by its scope
and a per-minute budget, never a partner admin, never logged, and nothing on another partner's
host. Through HTTP and the real middleware."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context
from freezegun import freeze_time

from common.logs import JsonFormatter, PartnerFilter, url_redact
from integrations.models import ApiKey
from quota.models import QuotaApplication, StatusChange
from staff.models import AuditEntry, StaffMember
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
OTHER_HOST = "stadtwerk.localhost"
API = "/api/partner/"
KEYS = API + "integrations/api_keys/"


@pytest.fixture
def autohaus() -> Partner:
    return Partner.objects.get(subdomain="autohaus")


def session(partner: Partner, role: str, host: str = HOST) -> Client:
    member, password = staff_member(partner, role)
    return partner_session(Client(enforce_csrf_checks=True), host, member, password)


@pytest.fixture
def admin(autohaus: Partner) -> Client:
    return session(autohaus, "partner_admin")


def make_key(admin: Client, scope: str, name: str = "Flottensystem") -> dict[str, Any]:
    response = admin.post(
        KEYS, {"name": name, "scope": scope}, content_type="application/json", HTTP_HOST=HOST
    )
    assert response.status_code == 201, response.content
    return dict(response.json())


def with_key(key: str, method: str, path: str, body: dict[str, Any] | None = None, host: str = HOST) -> Any:
    """A partner system's call: no cookie, no CSRF token, only the key."""
    client = Client(enforce_csrf_checks=True)
    extra: dict[str, Any] = {"HTTP_HOST": host, "HTTP_X_API_KEY": key}
    if body is not None:
        extra.update(data=json.dumps(body), content_type="application/json")
    return getattr(client, method)(path, **extra)


@pytest.fixture
def application() -> QuotaApplication:
    with schema_context("p_autohaus"):
        return ApplicationFactory.create()


def test_a_key_is_shown_once_and_stored_only_as_a_keyed_hash(admin: Client) -> None:
    made = make_key(admin, "read")

    key = made["key"]
    assert key.startswith("thg_") and len(key) > 50
    assert made["name"] == "Flottensystem" and made["scope"] == "read" and made["state"] == "active"
    assert made["key_hint"] == key[:15] + "…"
    listed = admin.get(KEYS, HTTP_HOST=HOST)
    assert listed.status_code == 200
    assert key not in listed.content.decode() and key.split("_", 2)[2] not in listed.content.decode()
    assert listed.json()[0]["key_hint"] == made["key_hint"] and listed.json()[0]["last_used_at"] is None
    with schema_context("p_autohaus"):
        row = ApiKey.objects.get(pk=made["id"])
        assert key.split("_", 2)[2] not in json.dumps([row.prefix, row.secret_hash, row.name])
        assert len(row.secret_hash) == 64
        entry = AuditEntry.objects.get(action="api_key.create", object_id=str(row.pk))
        assert entry.after is not None and entry.after["scope"] == "read"
        assert key.split("_", 2)[2] not in json.dumps(entry.after)


def test_a_read_key_reads_and_cannot_write_a_write_key_writes_without_csrf(
    admin: Client, application: QuotaApplication
) -> None:
    reader, writer = make_key(admin, "read", "Lesen")["key"], make_key(admin, "write", "Schreiben")["key"]
    move = {"ids": [application.pk], "status": "qa_picked_up", "reason": "per API"}

    listed = with_key(reader, "get", API + "quota_applications/")
    refused = with_key(reader, "post", API + "quota_applications/moves/", move)
    moved = with_key(writer, "post", API + "quota_applications/moves/", move)

    assert listed.status_code == 200 and application.pk in [row["id"] for row in listed.json()["results"]]
    assert refused.status_code == 403 and refused.json()["detail"] == "Dafür fehlt Ihnen die Berechtigung."
    assert moved.status_code == 200 and moved.json()["results"][0]["ok"] is True, moved.content
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=application.pk).status == "qa_picked_up"
        change = StatusChange.objects.get(application=application, status="qa_picked_up")
        admin_user = ApiKey.objects.get(name="Schreiben").created_by.user  # type: ignore[union-attr]
        assert change.actor == admin_user
        entry = AuditEntry.objects.get(action="quota_application.move", object_id=str(application.pk))
        assert entry.actor_label.startswith("API-Schlüssel „Schreiben“")


def test_a_key_is_never_a_partner_admin_and_only_the_admin_manages_keys(
    autohaus: Partner, admin: Client
) -> None:
    writer = make_key(admin, "write")["key"]

    assert with_key(writer, "get", KEYS).status_code == 403
    assert with_key(writer, "post", KEYS, {"name": "mehr", "scope": "write"}).status_code == 403
    assert with_key(writer, "get", API + "staff/").status_code == 403
    assert with_key(writer, "get", API + "audit/").status_code == 403
    for role in ("back_office", "viewer"):
        other = session(autohaus, role)
        assert other.get(KEYS, HTTP_HOST=HOST).status_code == 403
        refused = other.post(
            KEYS, {"name": "x", "scope": "read"}, content_type="application/json", HTTP_HOST=HOST
        )
        assert refused.status_code == 403
    assert Client().get(KEYS, HTTP_HOST=HOST).status_code == 401


def test_a_wrong_or_revoked_key_is_refused(admin: Client) -> None:
    made = make_key(admin, "read")
    assert with_key(made["key"], "get", API + "me/").status_code == 200

    revoked = admin.post(f"{KEYS}{made['id']}/revoke/", HTTP_HOST=HOST)

    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"
    refused = with_key(made["key"], "get", API + "quota_applications/")
    assert refused.status_code == 401
    assert refused.json() == {
        "detail": "Dieser API-Schlüssel ist ungültig oder wurde widerrufen.",
        "error_code": "APIKEY001",
    }
    assert with_key(made["key"][:-1] + "x", "get", API + "me/").status_code == 401
    assert with_key("thg_nonsense", "get", API + "me/").status_code == 401
    # a revoked key cannot be rotated back to life
    assert admin.post(f"{KEYS}{made['id']}/rotate/", HTTP_HOST=HOST).status_code == 404


def test_rotation_replaces_the_secret_at_once_and_the_key_acts_for_who_rotated_it(
    autohaus: Partner, admin: Client
) -> None:
    made = make_key(admin, "read")
    second_admin = session(autohaus, "partner_admin")

    rotated = second_admin.post(f"{KEYS}{made['id']}/rotate/", HTTP_HOST=HOST)

    assert rotated.status_code == 200
    new = rotated.json()["key"]
    assert new != made["key"] and rotated.json()["id"] == made["id"] and rotated.json()["rotated_at"]
    assert with_key(made["key"], "get", API + "me/").status_code == 401
    me = with_key(new, "get", API + "me/")
    assert me.status_code == 200 and me.json()["role"] == "viewer"
    with schema_context("p_autohaus"):
        assert AuditEntry.objects.filter(action="api_key.rotate", object_id=str(made["id"])).count() == 1


def test_a_key_rests_while_its_admin_is_no_admin_any_more(admin: Client) -> None:
    made = make_key(admin, "read")
    with schema_context("p_autohaus"):
        key = ApiKey.objects.select_related("created_by").get(pk=made["id"])
        assert key.created_by is not None
        StaffMember.objects.filter(pk=key.created_by.pk).update(role="back_office")

    assert with_key(made["key"], "get", API + "me/").status_code == 401
    with schema_context("p_autohaus"):
        StaffMember.objects.filter(pk=key.created_by.pk).update(role="partner_admin")
    assert with_key(made["key"], "get", API + "me/").status_code == 200


def test_the_last_use_is_shown(admin: Client) -> None:
    made = make_key(admin, "read")
    with freeze_time("2026-06-01 10:00:00"):
        assert with_key(made["key"], "get", API + "quota_applications/").status_code == 200
    with freeze_time("2026-06-01 10:00:30"):  # within a minute: not written again
        assert with_key(made["key"], "get", API + "quota_applications/").status_code == 200

    listed = admin.get(KEYS, HTTP_HOST=HOST).json()

    assert listed[0]["last_used_at"] == "2026-06-01T12:00:00+02:00"


def test_the_rate_limit_answers_429_per_key_until_the_minute_is_over(admin: Client, settings: Any) -> None:
    settings.API_KEY_RATE_PER_MINUTE = 3
    first, second = make_key(admin, "read", "eins")["key"], make_key(admin, "read", "zwei")["key"]

    with freeze_time("2026-06-01 10:00:15"):
        answers = [with_key(first, "get", API + "me/").status_code for _ in range(4)]
        throttled = with_key(first, "get", API + "me/")
        other = with_key(second, "get", API + "me/")
    with freeze_time("2026-06-01 10:01:01"):
        again = with_key(first, "get", API + "me/")

    assert answers == [200, 200, 200, 429]
    assert throttled.status_code == 429 and throttled["Retry-After"] == "45"
    assert throttled.json()["error_code"] == "APIKEY002" and throttled.json()["wait"] == 45
    assert other.status_code == 200
    assert again.status_code == 200


def test_a_key_of_partner_a_is_nobody_on_partner_b(admin: Client) -> None:
    key = make_key(admin, "write")["key"]
    with schema_context("p_stadtwerk"):
        theirs = ApplicationFactory.create()

    assert with_key(key, "get", API + "quota_applications/", host=OTHER_HOST).status_code == 401
    assert with_key(key, "get", f"{API}quota_applications/{theirs.pk}/", host=OTHER_HOST).status_code == 401
    moved = with_key(
        key,
        "post",
        API + "quota_applications/moves/",
        {"ids": [theirs.pk], "status": "qa_picked_up"},
        OTHER_HOST,
    )
    assert moved.status_code == 401
    own = with_key(key, "get", f"{API}quota_applications/{theirs.pk}/")
    assert own.status_code == 404  # on its own host, the other partner's id is nobody's
    with schema_context("p_stadtwerk"):
        assert QuotaApplication.objects.get(pk=theirs.pk).status == "qa_created"


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """Every log line of the calls, formatted as production writes them (JSON, PartnerFilter)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(PartnerFilter())
    root, request_log = logging.getLogger(), logging.getLogger("thg.request")
    old_level, old_request_level = root.level, request_log.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    request_log.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old_level)
    request_log.setLevel(old_request_level)


def test_a_key_is_never_written_to_a_log(admin: Client, log_lines: io.StringIO, settings: Any) -> None:
    settings.API_KEY_RATE_PER_MINUTE = 2
    made = make_key(admin, "read")
    key = made["key"]
    secret = key.split("_", 2)[2]  # the whole secret: token_urlsafe may itself hold "_"

    with_key(key, "get", API + "quota_applications/")
    with_key(key, "post", API + "quota_applications/moves/", {"ids": [1], "status": "qa_entered"})  # 403
    with_key(key, "get", API + "me/")  # 429
    with_key(key[:-2] + "zz", "get", API + "me/")  # 401
    Client().get(API + "quota_applications/?api_key=" + key, HTTP_HOST=HOST)  # in a URL, by mistake
    admin.post(f"{KEYS}{made['id']}/rotate/", HTTP_HOST=HOST)
    # a careless line of some library that logs a request's headers
    logging.getLogger("somelib").warning("headers %s", {"X-API-Key": key})

    written = log_lines.getvalue()
    assert '"route": "/api/partner/quota_applications/"' in written  # the calls were logged
    assert "somelib" in written and "[redacted]" in written
    assert secret not in written and key not in written
    assert url_redact("/api/partner/me/?api_key=" + key) == "/api/partner/me/?[redacted]"
    with schema_context("p_autohaus"):
        audit = json.dumps(list(AuditEntry.objects.values("before", "after", "actor_label")))
        assert secret not in audit
    assert connection.schema_name == "public"  # type: ignore[attr-defined]
