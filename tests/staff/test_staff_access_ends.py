"""Access ends when it should (issue 47, item 4): open invites are withdrawn by a partner admin;
a member who loses admin access takes the invites it sent with it; staff sessions end after 30
minutes without a request and 12 hours after the login; a role or password change ends the
member's sessions. Through HTTP (the partner area's calls, every middleware)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from staff.models import AuditEntry, StaffInvite, StaffMember
from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member
from tests.staff.test_partner_staff_api import (
    HOST,
    SCHEMA,
    _mails_at_once,  # noqa: F401 - the autouse fixture: mails go out at commit
    call,
    committed,
    invite_key,
    open_client,
    signed_in,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def partner() -> Partner:
    return Partner.objects.get(subdomain="autohaus")


@pytest.fixture
def admin(partner: Partner) -> tuple[Client, StaffMember]:
    return signed_in(partner, "partner_admin", "chefin@autohaus.example")


def _invite(client: Client, email: str, role: str = "partner_admin") -> tuple[int, str]:
    answer = committed(lambda: call(client, "POST", "staff/", {"email": email, "name": "Neu", "role": role}))
    assert answer.status_code == 201, answer.content
    return answer.json()["id"], invite_key(mail.outbox[-1])


def _opens(key: str) -> bool:
    shown = open_client().get(f"/api/partner/auth/invite/{key}/", HTTP_HOST=HOST).status_code
    accepted = call(
        open_client(), "POST", f"auth/invite/{key}/", {"password": "Neu-im-Team-2026!"}
    ).status_code
    assert (shown == 200) == (accepted == 200), (shown, accepted)
    return shown == 200


def test_a_partner_admin_withdraws_an_open_invite(admin: tuple[Client, StaffMember]) -> None:
    client, _ = admin
    invite_id, key = _invite(client, "zurueck@autohaus.example")
    assert [row["id"] for row in call(client, "GET", "staff/").json()["invites"]] == [invite_id]

    revoked = call(client, "DELETE", f"staff/invites/{invite_id}/")

    assert revoked.status_code == 204
    assert call(client, "GET", "staff/").json()["invites"] == []
    assert not _opens(key)
    with schema_context(SCHEMA):
        assert StaffInvite.objects.get(pk=invite_id).sealed == ""
        entry = AuditEntry.objects.get(action="staff.invite_revoke")
        assert entry.object_id == str(invite_id) and entry.before == {
            "email": "zurueck@autohaus.example",
            "role": "partner_admin",
        }
    # once is enough: withdrawn, used or unknown is 404
    again = call(client, "DELETE", f"staff/invites/{invite_id}/")
    assert again.status_code == 404 and again.json()["detail"] == "Nicht gefunden."


def test_only_partner_admins_withdraw_invites(admin: tuple[Client, StaffMember], partner: Partner) -> None:
    client, _ = admin
    invite_id, key = _invite(client, "bleibt@autohaus.example")
    for role in ("viewer", "back_office"):
        other, _ = signed_in(partner, role)
        assert call(other, "DELETE", f"staff/invites/{invite_id}/").status_code == 403
    assert _opens(key)


def test_an_invite_ends_with_its_senders_admin_access(
    admin: tuple[Client, StaffMember], partner: Partner
) -> None:
    # given two admins; the second one invites a partner admin and a viewer
    client, _ = admin
    second, password = staff_member(partner, "partner_admin", email="zweite@autohaus.example")
    second_client = partner_session(Client(enforce_csrf_checks=True), HOST, second, password)
    _, admin_key = _invite(second_client, "neuer-admin@autohaus.example")
    _, viewer_key = _invite(second_client, "neuer-viewer@autohaus.example", role="viewer")
    _, own_key = _invite(client, "von-chefin@autohaus.example")

    # when the first deactivates the second
    assert call(client, "PATCH", f"staff/{second.pk}/", {"is_active": False}).status_code == 200

    # then neither invite of the second makes anybody a member; the first's own invite still does
    assert not _opens(admin_key) and not _opens(viewer_key)
    assert _opens(own_key)
    with schema_context(SCHEMA):
        assert not StaffMember.objects.filter(user__email__startswith="neuer-").exists()


def test_an_invite_whose_sender_lost_access_otherwise_opens_nothing(
    admin: tuple[Client, StaffMember], partner: Partner
) -> None:
    """Also for a sender demoted (no longer partner admin) and one deactivated by other means."""
    client, _ = admin
    second, password = staff_member(partner, "partner_admin", email="zweite@autohaus.example")
    _, key = _invite(
        partner_session(Client(enforce_csrf_checks=True), HOST, second, password), "x@autohaus.example"
    )
    assert call(client, "PATCH", f"staff/{second.pk}/", {"role": "viewer"}).status_code == 200
    assert not _opens(key)
    with schema_context(SCHEMA):
        StaffInvite.objects.filter(email="x@autohaus.example").update(
            expires_at=timezone.now() + timedelta(hours=1)
        )
    assert not _opens(key)  # the sender's role is checked when the link is used, too


def test_a_staff_session_idles_out_after_30_minutes(admin: tuple[Client, StaffMember]) -> None:
    client, _ = admin
    start = timezone.now()
    with freeze_time(start + timedelta(minutes=29)):
        assert call(client, "GET", "me/").status_code == 200
    with freeze_time(start + timedelta(minutes=58)):
        assert call(client, "GET", "me/").status_code == 200  # 29 minutes after the last request
    with freeze_time(start + timedelta(minutes=89)):
        assert call(client, "GET", "me/").status_code == 401
    # ended, not paused: the same cookie is nobody now
    with freeze_time(start + timedelta(minutes=90)):
        assert call(client, "GET", "me/").status_code == 401


def test_a_staff_session_ends_12_hours_after_the_login(admin: tuple[Client, StaffMember]) -> None:
    client, _ = admin
    start = timezone.now()
    minute = 0
    while minute < 12 * 60 - 20:
        minute += 20
        with freeze_time(start + timedelta(minutes=minute)):
            assert call(client, "GET", "me/").status_code == 200, minute
    with freeze_time(start + timedelta(hours=12, minutes=1)):
        assert call(client, "GET", "me/").status_code == 401


def test_the_session_lengths_come_from_the_environment(
    settings: Any, admin: tuple[Client, StaffMember]
) -> None:
    client, _ = admin
    settings.STAFF_SESSION_IDLE = timedelta(minutes=5)
    with freeze_time(timezone.now() + timedelta(minutes=6)):
        assert call(client, "GET", "me/").status_code == 401


def test_a_role_change_ends_the_members_sessions(admin: tuple[Client, StaffMember], partner: Partner) -> None:
    admin_client, _ = admin
    member, password = staff_member(partner, "back_office")
    phone = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    desk = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    assert call(phone, "GET", "me/").json()["role"] == "back_office"

    assert call(admin_client, "PATCH", f"staff/{member.pk}/", {"role": "viewer"}).status_code == 200

    assert call(phone, "GET", "me/").status_code == 401
    assert call(desk, "GET", "me/").status_code == 401
    # a new login has the new role
    fresh = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    assert call(fresh, "GET", "me/").json()["role"] == "viewer"
    # and the admin's own session is untouched
    assert call(admin_client, "GET", "me/").status_code == 200


def test_a_password_change_ends_the_members_other_sessions(partner: Partner) -> None:
    member, password = staff_member(partner, "viewer")
    phone = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    with schema_context(SCHEMA):
        user = member.user
        user.set_password("Ganz-neues-Passwort-47!")
        user.save()
    assert call(phone, "GET", "me/").status_code == 401


def test_a_deactivation_ends_the_sessions_even_after_a_reactivation(
    admin: tuple[Client, StaffMember], partner: Partner
) -> None:
    admin_client, _ = admin
    member, password = staff_member(partner, "viewer")
    phone = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    assert call(admin_client, "PATCH", f"staff/{member.pk}/", {"is_active": False}).status_code == 200
    assert call(admin_client, "PATCH", f"staff/{member.pk}/", {"is_active": True}).status_code == 200
    assert call(phone, "GET", "me/").status_code == 401
