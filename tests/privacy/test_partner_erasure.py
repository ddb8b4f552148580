"""Erasure from the partner area (issue 19): a partner admin erases an owner on a request
received by mail; audited; refused for other roles, without CSRF, and for other partners."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from billing.models import Client as BillingClient
from privacy.models import RetainedPayout
from staff.models import AuditEntry, StaffMember
from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member
from tests.privacy.conftest import HOST, bearer, owner_with_everything

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]
ERASE = "/api/partner/privacy/erasure/"
PREVIEW = "/api/partner/privacy/erasure/preview/"
BODY = {"email": "anna@example.de", "reference": "Brief vom 3. November"}


def signed_in(subdomain: str, role: str) -> tuple[Client, StaffMember]:
    partner = Partner.objects.get(subdomain=subdomain)
    member, password = staff_member(partner, role)
    client = Client(enforce_csrf_checks=True)
    return partner_session(client, f"{subdomain}.localhost", member, password), member


def post(client: Client, path: str, body: dict[str, Any], host: str = HOST, **extra: Any) -> Any:
    return client.post(path, body, content_type="application/json", HTTP_HOST=host, **extra)


@pytest.fixture
def anna() -> User:
    with schema_context("p_autohaus"):
        return owner_with_everything("anna@example.de", "DE89370400440532013000", paid=True)


def test_a_partner_admin_checks_then_erases_and_the_audit_log_says_so(
    anna: User, django_capture_on_commit_callbacks: Any
) -> None:
    client, member = signed_in("autohaus", "partner_admin")

    # the admin checks whom the address belongs to (case and spaces do not matter)
    preview = post(client, PREVIEW, {"email": "  Anna@Example.de "})
    assert preview.status_code == 200, preview.content
    assert preview.json() == {
        "registrations": 1,
        "applications": 1,
        "payout_records_kept": 1,
        "settlement_items_kept": 0,
    }

    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, ERASE, BODY)

    assert response.status_code == 200, response.content
    assert response.json()["detail"] == "Das Kundenkonto und seine Daten wurden gelöscht."
    assert response.json()["counts"]["accounts"] == 1
    with schema_context("p_autohaus"):
        assert not User.objects.filter(pk=anna.pk).exists()
        assert not BillingClient.objects.filter(owner_id=anna.pk).exists()
        assert RetainedPayout.objects.count() == 1  # the payout record, pseudonymised
        entry = AuditEntry.objects.get(action="privacy.erasure")
        assert entry.after is not None
        assert entry.actor_id == member.user_id and entry.object_id == str(anna.pk)
        assert entry.after["reference"] == "Brief vom 3. November"
        assert entry.after["counts"]["payout records kept pseudonymised"] == 1
        # the audit log keeps no address of the erased owner
        assert "anna@example.de" not in str(entry.after) and "anna" not in entry.actor_label
        assert entry.after["pseudonym"] == RetainedPayout.objects.get().pseudonym

    # a second request for the same address finds nobody
    again = post(client, ERASE, BODY)
    assert again.status_code == 404 and again.json()["error_code"] == "PRIV007"


@pytest.mark.parametrize("role", ["back_office", "viewer"])
def test_other_roles_are_refused(anna: User, role: str) -> None:
    client, _ = signed_in("autohaus", role)

    assert post(client, PREVIEW, {"email": BODY["email"]}).status_code == 403
    assert post(client, ERASE, BODY).status_code == 403
    with schema_context("p_autohaus"):
        assert User.objects.filter(pk=anna.pk).exists()
        assert not AuditEntry.objects.filter(action="privacy.erasure").exists()


def test_without_the_csrf_header_nothing_is_erased(anna: User) -> None:
    client, _ = signed_in("autohaus", "partner_admin")
    client.defaults.pop("HTTP_X_CSRFTOKEN")

    response = post(client, ERASE, BODY)

    assert response.status_code == 403
    with schema_context("p_autohaus"):
        assert User.objects.filter(pk=anna.pk).exists()


def test_another_partners_admin_reaches_nobody_here(anna: User) -> None:
    client, _ = signed_in("stadtwerk", "partner_admin")

    # on its own host the address is unknown (another schema), on autohaus's host the session is nobody
    own = post(client, ERASE, BODY, host="stadtwerk.localhost")
    foreign = post(client, ERASE, BODY)

    assert own.status_code == 404 and own.json()["error_code"] == "PRIV007"
    assert foreign.status_code == 401
    with schema_context("p_autohaus"):
        assert User.objects.filter(pk=anna.pk).exists()


def test_staff_accounts_and_owner_tokens_are_refused(anna: User) -> None:
    client, _ = signed_in("autohaus", "partner_admin")
    colleague, _ = staff_member(
        Partner.objects.get(subdomain="autohaus"), "viewer", email="kollege@autohaus.example"
    )

    refused = post(client, ERASE, {**BODY, "email": "kollege@autohaus.example"})
    with schema_context("p_autohaus"):
        token = bearer(anna)
    with_token = post(Client(), ERASE, BODY, headers=token)
    no_reference = post(client, ERASE, {"email": BODY["email"]})

    assert refused.status_code == 403 and refused.json()["error_code"] == "PRIV006"
    assert with_token.status_code == 401
    assert no_reference.status_code == 400
    with schema_context("p_autohaus"):
        assert User.objects.filter(pk__in=[anna.pk, colleague.user_id]).count() == 2
