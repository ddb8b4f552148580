"""A key of partner A is nobody anywhere else (issue 49): every staff operation of the partner
API (the matrix of tests/security/test_partner_isolation.py, built from the OpenAPI schema)
with A's write key, aimed at every host that is not A's: never a 2xx, never a byte of A's
data. Control: at home the same key is past authentication, and a partner admin's call
refuses it (403): keys never have a partner admin's rights."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from integrations.models import ApiKey
from integrations.services import api_key_create
from staff.models import AuditEntry, StaffMember
from tenants.models import Partner
from tests.partner_staff import staff_member
from tests.security.test_partner_isolation import ELSEWHERE, HOST_A, OPERATIONS, send

pytestmark = pytest.mark.django_db
ADMIN_ONLY = (
    "/api/partner/integrations/",
    "/api/partner/staff/",
    "/api/partner/audit/",
    "/api/partner/privacy/",
)


@pytest.fixture(scope="module")
def key_a(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """A write key of A, made once and committed (as a real one is), removed afterwards."""
    with django_db_blocker.unblock():
        member, _ = staff_member(Partner.objects.get(subdomain="autohaus"), "partner_admin")
        with schema_context("p_autohaus"):
            row, key = api_key_create(actor=member, name="Isolation", scope="write")
    yield key
    with django_db_blocker.unblock(), schema_context("p_autohaus"):
        AuditEntry.objects.filter(object_type="integrations.apikey", object_id=str(row.pk)).delete()
        ApiKey.objects.filter(pk=row.pk).delete()
        StaffMember.objects.filter(pk=member.pk).delete()
        User.objects.filter(pk=member.user_id).delete()


@pytest.mark.parametrize("target", list(ELSEWHERE))
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op[0]} {op[1]}")
def test_a_key_of_a_is_nobody_elsewhere(operation: tuple[str, str], target: str, key_a: str) -> None:
    method, path = operation
    host, extra = ELSEWHERE[target]

    response = send(Client(enforce_csrf_checks=True), method, path, host, {"X-API-Key": key_a, **extra})

    assert response.status_code in (400, 401, 404), (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    assert b"Autohaus Sonnenschein" not in response.content


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op[0]} {op[1]}")
def test_at_home_the_key_passes_authentication_but_never_as_a_partner_admin(
    operation: tuple[str, str], key_a: str
) -> None:
    method, path = operation

    control = send(Client(enforce_csrf_checks=True), method, path, HOST_A, {"X-API-Key": key_a})

    assert control.status_code != 401, (control.status_code, control.content[:300])
    if path.startswith(ADMIN_ONLY):
        assert control.status_code == 403, (control.status_code, control.content[:300])
