from __future__ import annotations

import pytest
from django.test import Client

from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db


def test_smoke() -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    member, password = staff_member(partner)
    client = partner_session(Client(enforce_csrf_checks=True), "autohaus.localhost", member, password)
    me = client.get("/api/partner/me/", HTTP_HOST="autohaus.localhost")
    assert me.status_code == 200, me.content
    assert me.json()["role"] == "partner_admin"
