"""The admin's writes on a partner's host are in the partner's audit log, with what changed
before and after, and without the secrets of encrypted or hashed fields."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client as HttpClient
from django_tenants.utils import schema_context

from accounts.models import User
from quota.models import QuotaStatus
from quota.services import back_office_staff_ensure
from staff.admin_audit import MASK, admin_snapshot
from staff.models import AuditEntry
from tests.factories import ApplicationFactory, ClientFactory
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
CHANGELIST = "/admin/quota/quotaapplication/"


@pytest.fixture(autouse=True)
def _in_autohaus() -> Iterator[None]:
    with schema_context("p_autohaus"):
        yield


@pytest.fixture
def staff(client: HttpClient) -> User:
    user = back_office_staff_ensure(username="anna", email="anna@autohaus.example", password="Staff_2026!")
    client_staff_login(client, host=HOST, username="anna", password="Staff_2026!")
    return user


def _inline() -> dict[str, str]:
    return {
        "status_changes-TOTAL_FORMS": "0",
        "status_changes-INITIAL_FORMS": "0",
        "status_changes-MIN_NUM_FORMS": "0",
        "status_changes-MAX_NUM_FORMS": "1000",
    }


def test_a_move_in_the_admin_is_audited(client: HttpClient, staff: User) -> None:
    application = ApplicationFactory.create()
    url = f"{CHANGELIST}{application.pk}/change/"

    moved = client.post(url, {"move_to": QuotaStatus.ENTERED, "reason": "", **_inline()}, HTTP_HOST=HOST)

    assert moved.status_code == 302
    entry = AuditEntry.objects.get(action="admin.change", object_id=str(application.pk))
    assert entry.object_type == "quota.quotaapplication"
    assert entry.actor_id == staff.pk and "anna" in entry.actor_label
    before, after = entry.before or {}, entry.after or {}
    assert before["status"] == QuotaStatus.CREATED and after["status"] == QuotaStatus.ENTERED
    assert "created_at" not in after  # only what changed


def test_secrets_never_reach_the_log() -> None:
    client = ClientFactory.create()
    snapshot = admin_snapshot(client)
    encrypted = [name for name, value in snapshot.items() if value == MASK]
    assert encrypted, snapshot  # the client has encrypted fields, and they are masked
    user = User.objects.create_user(username="x@example.de", email="x@example.de", password="Geheim-2026!")
    assert admin_snapshot(user)["password"] == MASK
