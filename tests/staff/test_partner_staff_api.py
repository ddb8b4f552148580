"""Partner-area staff and audit (docs/partner-api.md, "Staff and audit"): partner admins invite
by e-mail (branded mail, set-password link valid 72 h, once), change roles and deactivate, never
themselves and never the last active partner admin; every write is in the audit log with
before/after. Roles: only partner admins reach staff/ and audit/. Through HTTP."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_otp.oath import totp
from django_tenants.utils import schema_context

from accounts.models import User
from staff import services
from staff.errors import StaffError
from staff.models import AuditEntry, StaffInvite, StaffMember
from tenants.middleware import partner_site_url
from tenants.models import Partner
from tests.partner_staff import csrf_refresh, partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
SCHEMA = "p_autohaus"
API = "/api/partner/"

_capture: list[Any] = []


@pytest.fixture(autouse=True)
def _mails_at_once(django_capture_on_commit_callbacks: Any) -> Iterator[None]:
    """A call's mails go out when its transaction commits, as in the server."""
    _capture.append(django_capture_on_commit_callbacks)
    yield
    _capture.pop()


def committed(call: Callable[[], Any]) -> Any:
    with _capture[-1](execute=True):
        return call()


@pytest.fixture
def autohaus() -> Partner:
    return Partner.objects.get(subdomain="autohaus")


def signed_in(partner: Partner, role: str, email: str | None = None) -> tuple[Client, StaffMember]:
    member, password = staff_member(partner, role, email=email)
    return partner_session(Client(enforce_csrf_checks=True), HOST, member, password), member


@pytest.fixture
def chef(autohaus: Partner) -> tuple[Client, StaffMember]:
    return signed_in(autohaus, "partner_admin", "chefin@autohaus.example")


def call(client: Client, method: str, path: str, body: dict[str, Any] | None = None, **extra: Any) -> Any:
    kwargs: dict[str, Any] = {"HTTP_HOST": HOST, **extra}
    if body is not None:
        kwargs.update(data=body, content_type="application/json")
    return getattr(client, method.lower())(API + path, **kwargs)


def invite_key(message: Any) -> str:
    match = re.search(r"/partner/invite/([A-Za-z0-9_-]+)", str(message.body))
    assert match, message.body
    return match.group(1)


def open_client(host: str = HOST) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.get(API + "auth/csrf/", HTTP_HOST=host)
    csrf_refresh(client)
    return client


# --- Roles ------------------------------------------------------------------------------------------

# (method, path, body) of each staff/audit call; {viewer} is a member id filled in per test.
ADMIN_CALLS = [
    ("GET", "staff/", None),
    ("POST", "staff/", {"email": "rolle@autohaus.example", "name": "Rolle", "role": "viewer"}),
    ("PATCH", "staff/{viewer}/", {"role": "back_office"}),
    ("GET", "audit/", None),
]


@pytest.mark.parametrize("role", ["viewer", "back_office"])
@pytest.mark.parametrize("method,path,body", ADMIN_CALLS, ids=[f"{m} {p}" for m, p, _ in ADMIN_CALLS])
def test_staff_and_audit_are_for_partner_admins_only(
    autohaus: Partner, role: str, method: str, path: str, body: dict[str, Any] | None
) -> None:
    client, _ = signed_in(autohaus, role)
    viewer, _ = staff_member(autohaus, "viewer")

    refused = call(client, method, path.format(viewer=viewer.pk), body)

    assert refused.status_code == 403
    assert refused.json() == {"detail": "Dafür fehlt Ihnen die Berechtigung.", "error_code": "STAFF403"}
    english = call(client, method, path.format(viewer=viewer.pk), body, HTTP_ACCEPT_LANGUAGE="en")
    assert english.json()["detail"] == "You are not allowed to do this."


@pytest.mark.parametrize("method,path,body", ADMIN_CALLS, ids=[f"{m} {p}" for m, p, _ in ADMIN_CALLS])
def test_a_partner_admin_may_make_every_staff_call(
    chef: tuple[Client, StaffMember], autohaus: Partner, method: str, path: str, body: dict[str, Any] | None
) -> None:
    client, _ = chef
    viewer, _ = staff_member(autohaus, "viewer")
    response = call(client, method, path.format(viewer=viewer.pk), body)
    assert response.status_code in (200, 201), response.content


@pytest.mark.parametrize("method,path,body", ADMIN_CALLS, ids=[f"{m} {p}" for m, p, _ in ADMIN_CALLS])
def test_no_session_is_401(autohaus: Partner, method: str, path: str, body: dict[str, Any] | None) -> None:
    response = call(open_client(), method, path.format(viewer=1), body)
    assert response.status_code == 401
    assert response.json()["detail"] == "Bitte melden Sie sich an."


@pytest.mark.parametrize(
    "method,path,body",
    [c for c in ADMIN_CALLS if c[0] != "GET"],
    ids=[f"{m} {p}" for m, p, _ in ADMIN_CALLS if m != "GET"],
)
def test_unsafe_calls_need_the_csrf_header(
    chef: tuple[Client, StaffMember], autohaus: Partner, method: str, path: str, body: dict[str, Any] | None
) -> None:
    client, _ = chef
    viewer, _ = staff_member(autohaus, "viewer")
    del client.defaults["HTTP_X_CSRFTOKEN"]

    response = call(client, method, path.format(viewer=viewer.pk), body)

    assert response.status_code == 403 and response.json()["error_code"] == "CSRF001"
    with schema_context(SCHEMA):
        assert not StaffInvite.objects.filter(email="rolle@autohaus.example").exists()
        assert StaffMember.objects.get(pk=viewer.pk).role == "viewer"


def test_every_role_reads_me(autohaus: Partner) -> None:
    for role in ("viewer", "back_office", "partner_admin"):
        client, member = signed_in(autohaus, role)
        assert call(client, "GET", "me/").json()["role"] == role


# --- Invite -------------------------------------------------------------------------------------------


def test_an_invite_made_on_a_development_port_links_to_that_port(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    """`make run` serves *.localhost on port 8000: the mailed link keeps it (it pointed at port 80)."""
    client, _ = chef
    mail.outbox.clear()

    invited = committed(
        lambda: call(
            client,
            "POST",
            "staff/",
            {"email": "port@autohaus.example", "name": "Pia Port", "role": "viewer"},
            HTTP_HOST=f"{HOST}:8000",
        )
    )

    assert invited.status_code == 201, invited.content
    (message,) = mail.outbox
    assert f"http://{HOST}:8000/partner/invite/{invite_key(message)}" in message.body


def test_invite_mail_set_password_enrol_and_sign_in(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    client, admin = chef
    mail.outbox.clear()

    invited = committed(
        lambda: call(
            client,
            "POST",
            "staff/",
            {"email": "Neu@Autohaus.example", "name": "Nora Neu", "role": "back_office"},
        )
    )

    assert invited.status_code == 201
    assert invited.json()["email"] == "neu@autohaus.example" and invited.json()["role"] == "back_office"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["neu@autohaus.example"]
    assert message.subject == "Ihre Einladung in den Partnerbereich – Autohaus Sonnenschein"
    key = invite_key(message)
    # the link is built from the partner's configured domain; the mail is branded (HTML + logo)
    assert f"{partner_site_url(autohaus)}partner/invite/{key}" in message.body
    html = str(message.alternatives[0][0])  # type: ignore[attr-defined]
    assert "Einladung annehmen" in html and "Autohaus Sonnenschein" in html and "72 Stunden" in html
    with schema_context(SCHEMA):
        row = StaffInvite.objects.get(email="neu@autohaus.example")
        assert key not in row.key_hash and row.sealed == ""  # no key in clear, the sealed link cleared
        assert abs(row.expires_at - row.created_at - timedelta(hours=72)) < timedelta(seconds=5)

    newcomer = open_client()
    shown = newcomer.get(API + f"auth/invite/{key}/", HTTP_HOST=HOST)
    assert shown.status_code == 200
    assert shown.json() == {"email": "neu@autohaus.example", "partner_name": "Autohaus Sonnenschein"}

    weak = call(newcomer, "POST", f"auth/invite/{key}/", {"password": "password"})
    assert weak.status_code == 400 and weak.json()["password"]["error_code"] == "PASSWORD001"
    assert "Passwort" in weak.json()["password"]["message"]

    step = call(newcomer, "POST", f"auth/invite/{key}/", {"password": "Neu-im-Team-2026!"})
    assert step.status_code == 200 and step.json()["step"] == "enrol"
    assert call(newcomer, "GET", "me/").status_code == 401  # not before the second factor
    secret = step.json()["enrolment"]["secret"]
    code = totp(base64.b32decode(secret + "=" * (-len(secret) % 8)))
    enrolled = call(newcomer, "POST", "auth/enrol/", {"token": f"{code:06d}"})
    assert enrolled.status_code == 200, enrolled.content
    csrf_refresh(newcomer)
    assert enrolled.json()["me"] == {
        "id": enrolled.json()["me"]["id"],
        "email": "neu@autohaus.example",
        "name": "Nora Neu",
        "role": "back_office",
        "language": "de",
        "digest_enabled": True,  # the daily mail digest (issue 49): on for a new member
    }
    assert call(newcomer, "GET", "me/").status_code == 200

    with schema_context(SCHEMA):
        member = StaffMember.objects.get(user__email="neu@autohaus.example")
        assert member.invited_by_id == admin.pk and member.user.is_staff
        actions = list(
            AuditEntry.objects.filter(object_id__in=[str(row.pk), str(member.pk)]).values_list(
                "action", flat=True
            )
        )
        assert sorted(actions) == ["staff.invite", "staff.invite_accept"]

    # used once
    assert newcomer.get(API + f"auth/invite/{key}/", HTTP_HOST=HOST).status_code == 404
    again = call(open_client(), "POST", f"auth/invite/{key}/", {"password": "Noch-ein-Versuch-2026!"})
    assert again.status_code == 404 and again.json()["error_code"] == "INVITE001"


def test_an_expired_invite_is_404(chef: tuple[Client, StaffMember]) -> None:
    client, _ = chef
    committed(
        lambda: call(
            client, "POST", "staff/", {"email": "alt@autohaus.example", "name": "Alt", "role": "viewer"}
        )
    )
    key = invite_key(mail.outbox[-1])
    with schema_context(SCHEMA):
        StaffInvite.objects.filter(email="alt@autohaus.example").update(
            expires_at=timezone.now() - timedelta(seconds=1)
        )

    assert open_client().get(API + f"auth/invite/{key}/", HTTP_HOST=HOST).status_code == 404
    response = call(open_client(), "POST", f"auth/invite/{key}/", {"password": "Spaet-dran-2026!"})
    assert response.status_code == 404
    with schema_context(SCHEMA):
        assert not User.objects.filter(email="alt@autohaus.example").exists()


def test_a_tampered_invite_key_is_404(chef: tuple[Client, StaffMember]) -> None:
    client, _ = chef
    committed(
        lambda: call(
            client, "POST", "staff/", {"email": "echt@autohaus.example", "name": "Echt", "role": "viewer"}
        )
    )
    key = invite_key(mail.outbox[-1])
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")

    assert open_client().get(API + f"auth/invite/{tampered}/", HTTP_HOST=HOST).status_code == 404
    assert (
        call(open_client(), "POST", f"auth/invite/{tampered}/", {"password": "Gefaelscht-2026!"}).status_code
        == 404
    )


def test_an_invite_is_for_its_partner_only(chef: tuple[Client, StaffMember]) -> None:
    client, _ = chef
    committed(
        lambda: call(client, "POST", "staff/", {"email": "a@autohaus.example", "name": "A", "role": "viewer"})
    )
    key = invite_key(mail.outbox[-1])
    assert (
        open_client("stadtwerk.localhost")
        .get(API + f"auth/invite/{key}/", HTTP_HOST="stadtwerk.localhost")
        .status_code
        == 404
    )


def test_a_new_invite_replaces_the_open_one(chef: tuple[Client, StaffMember]) -> None:
    client, _ = chef
    body = {"email": "zweimal@autohaus.example", "name": "Zwei", "role": "viewer"}
    committed(lambda: call(client, "POST", "staff/", body))
    first = invite_key(mail.outbox[-1])
    committed(lambda: call(client, "POST", "staff/", body))
    second = invite_key(mail.outbox[-1])

    assert open_client().get(API + f"auth/invite/{first}/", HTTP_HOST=HOST).status_code == 404
    assert open_client().get(API + f"auth/invite/{second}/", HTTP_HOST=HOST).status_code == 200


def test_an_invite_to_an_owner_or_a_member_is_refused(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    client, _ = chef
    with schema_context(SCHEMA):
        User.objects.create_user(username="kunde@example.de", email="kunde@example.de")
    member, _ = staff_member(autohaus, "viewer", email="schon@autohaus.example")
    for email in ("KUNDE@example.de", "schon@autohaus.example"):
        response = call(client, "POST", "staff/", {"email": email, "name": "X", "role": "viewer"})
        assert response.status_code == 400
        assert response.json() == {
            "email": {
                "error_code": "STAFF001",
                "message": "Diese E-Mail-Adresse gehört schon zu einem Konto dieses Partners.",
            }
        }


@pytest.mark.parametrize(
    "body,field",
    [
        ({"email": "kein-at", "name": "X", "role": "viewer"}, "email"),
        ({"email": "x@autohaus.example", "name": "X", "role": "superuser"}, "role"),
        ({"email": "x@autohaus.example", "name": "", "role": "viewer"}, "name"),
    ],
)
def test_invalid_invites_name_the_field(
    chef: tuple[Client, StaffMember], body: dict[str, str], field: str
) -> None:
    client, _ = chef
    response = call(client, "POST", "staff/", body)
    assert response.status_code == 400 and field in response.json()


# --- Staff list, role changes, deactivation ------------------------------------------------------


def test_the_staff_list_shows_members_and_open_invites(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    client, admin = chef
    viewer, _ = staff_member(autohaus, "viewer", email="liste@autohaus.example")
    committed(
        lambda: call(
            client, "POST", "staff/", {"email": "offen@autohaus.example", "name": "Offen", "role": "viewer"}
        )
    )

    body = call(client, "GET", "staff/").json()

    by_email = {row["email"]: row for row in body["results"]}
    assert body["count"] == len(body["results"])
    assert by_email["liste@autohaus.example"]["role"] == "viewer"
    assert by_email["chefin@autohaus.example"]["has_second_factor"] is True
    assert by_email["backoffice@autohaus.example"]["role"] == "partner_admin"  # the demo back office
    assert [invite["email"] for invite in body["invites"]] == ["offen@autohaus.example"]


def test_a_role_change_is_audited_with_before_and_after(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    client, admin = chef
    viewer, _ = staff_member(autohaus, "viewer", email="aufstieg@autohaus.example")

    response = call(client, "PATCH", f"staff/{viewer.pk}/", {"role": "back_office"})

    assert response.status_code == 200 and response.json()["role"] == "back_office"
    with schema_context(SCHEMA):
        entry = AuditEntry.objects.get(action="staff.role_change", object_id=str(viewer.pk))
        assert entry.actor_id == admin.user_id and "chefin@autohaus.example" in entry.actor_label
        assert entry.object_type == "staff.staffmember"
        assert entry.before == {
            "email": "aufstieg@autohaus.example",
            "name": "aufstieg",
            "role": "viewer",
            "is_active": True,
        }
        assert entry.after == {**entry.before, "role": "back_office"}


def test_nobody_changes_themselves(chef: tuple[Client, StaffMember]) -> None:
    client, admin = chef
    for body in ({"role": "viewer"}, {"is_active": False}):
        response = call(client, "PATCH", f"staff/{admin.pk}/", body)
        assert response.status_code == 400 and response.json()["error_code"] == "STAFF003"
    with schema_context(SCHEMA):
        assert StaffMember.objects.get(pk=admin.pk).role == "partner_admin"
        assert (
            not AuditEntry.objects.filter(object_id=str(admin.pk), action__startswith="staff.")
            .exclude(action="staff.invite")
            .exists()
        )


def test_the_last_active_partner_admin_stays(autohaus: Partner) -> None:
    member, _ = staff_member(autohaus, "partner_admin", email="letzte@autohaus.example")
    with schema_context(SCHEMA):
        # every other partner admin of the demo partner is gone for this test
        StaffMember.objects.filter(role="partner_admin").exclude(pk=member.pk).update(is_active=False)
        member = StaffMember.objects.select_related("user").get(pk=member.pk)
        for change in ({"role": "viewer"}, {"is_active": False}):
            with pytest.raises(StaffError) as refused:
                services.staff_member_update(member=member, actor=None, **change)  # type: ignore[arg-type]
            assert refused.value.code == "STAFF002"
        assert StaffMember.objects.get(pk=member.pk).role == "partner_admin"
        # with a second admin the first may step down
        other, _ = staff_member(autohaus, "partner_admin")
        services.staff_member_update(member=member, actor=other, role="viewer")
        assert StaffMember.objects.get(pk=member.pk).role == "viewer"


def test_two_admins_cannot_remove_each_other_to_none(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    """Through HTTP: admin A demotes admin B; B's session ends at once (staff.sessions)."""
    client_a, admin_a = chef
    client_b, admin_b = signed_in(autohaus, "partner_admin")
    assert call(client_a, "PATCH", f"staff/{admin_b.pk}/", {"role": "viewer"}).status_code == 200
    refused = call(client_b, "PATCH", f"staff/{admin_a.pk}/", {"role": "viewer"})
    assert refused.status_code == 401
    assert call(client_b, "GET", "me/").status_code == 401


def test_deactivation_and_reactivation_are_audited(
    chef: tuple[Client, StaffMember], autohaus: Partner
) -> None:
    client, _ = chef
    viewer, _ = staff_member(autohaus, "viewer")
    assert call(client, "PATCH", f"staff/{viewer.pk}/", {"is_active": False}).json()["is_active"] is False
    assert call(client, "PATCH", f"staff/{viewer.pk}/", {"is_active": True}).json()["is_active"] is True
    with schema_context(SCHEMA):
        entries = AuditEntry.objects.filter(object_id=str(viewer.pk)).order_by("pk")
        assert [(e.action, (e.before or {})["is_active"], (e.after or {})["is_active"]) for e in entries] == [
            ("staff.deactivate", True, False),
            ("staff.activate", False, True),
        ]


def test_an_unknown_member_is_404(chef: tuple[Client, StaffMember]) -> None:
    client, _ = chef
    assert call(client, "PATCH", "staff/999999/", {"role": "viewer"}).status_code == 404


# --- Audit list ---------------------------------------------------------------------------------------


def test_the_audit_list_pages_and_filters(chef: tuple[Client, StaffMember], autohaus: Partner) -> None:
    client, admin = chef
    viewers = [staff_member(autohaus, "viewer")[0] for _ in range(3)]
    for viewer in viewers:
        call(client, "PATCH", f"staff/{viewer.pk}/", {"role": "back_office"})
    with schema_context(SCHEMA):
        from staff.audit import audit_record

        audit_record(actor=None, action="system.test", object_type="x", object_id="1", after={"n": 1})

    first = call(client, "GET", "audit/?page=1&page_size=2&action=staff.role_change").json()
    second = call(client, "GET", "audit/?page=2&page_size=2&action=staff.role_change").json()

    assert first["count"] == 3 and first["page_size"] == 2 and len(first["results"]) == 2
    assert len(second["results"]) == 1
    ids = [row["object_id"] for row in first["results"] + second["results"]]
    assert ids == [str(v.pk) for v in reversed(viewers)]  # newest first
    row = first["results"][0]
    assert row["actor_id"] == admin.user_id and row["before"]["role"] == "viewer"
    assert set(row) == {
        "id",
        "actor",
        "actor_id",
        "action",
        "object_type",
        "object_id",
        "before",
        "after",
        "created_at",
    }

    by_actor = call(client, "GET", f"audit/?actor={admin.user_id}").json()
    assert by_actor["count"] == 3
    system = call(client, "GET", "audit/?action=system.test").json()["results"]
    assert [(r["actor"], r["actor_id"]) for r in system] == [("System", None)]
    today = timezone.localdate().isoformat()
    assert (
        call(
            client, "GET", f"audit/?created_from={today}&created_to={today}&action=staff.role_change"
        ).json()["count"]
        == 3
    )
    assert call(client, "GET", "audit/?created_to=2000-01-01").json()["count"] == 0
    assert call(client, "GET", "audit/?page_size=101").status_code == 400


def test_the_onboarding_console_invites_the_first_admin_from_the_public_host(autohaus: Partner) -> None:
    """staff_invite works from the public schema (the onboarding console) for the partner's schema."""
    from django.db import connection

    connection.set_schema_to_public()  # type: ignore[attr-defined]
    mail.outbox.clear()

    invite = committed(
        lambda: services.staff_invite(
            partner=autohaus,
            email="erste@autohaus.example",
            name="Erste Admin",
            role="partner_admin",
            invited_by=None,
        )
    )

    assert connection.schema_name == "public"  # type: ignore[attr-defined]
    with schema_context(SCHEMA):
        assert StaffInvite.objects.get(pk=invite.pk).role == "partner_admin"
        assert AuditEntry.objects.get(action="staff.invite", object_id=str(invite.pk)).actor_label == "System"
    assert "Sie wurden in den Partnerbereich von Autohaus Sonnenschein eingeladen" in mail.outbox[-1].body
    assert (
        open_client().get(API + f"auth/invite/{invite_key(mail.outbox[-1])}/", HTTP_HOST=HOST).status_code
        == 200
    )
