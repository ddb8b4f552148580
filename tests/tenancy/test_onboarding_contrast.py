"""The console refuses colours without enough contrast, per field, with the nearest passing shade."""

import html
import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from accounts.models import User
from tenants.models import Partner
from tenants.services import partner_provision, partner_update
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def test_the_admin_refuses_a_pale_button_and_suggests_a_shade(staff: Client) -> None:
    # given the onboarding team's first try: a 2.1:1 button
    data = {
        "subdomain": "blass",
        "name": "Blass GmbH",
        "kind": "standard",
        "frontend_active": "on",
        "config": '{"colors": {"button": "#a3a3f0"}}',
        "custom_domain": "",
    }

    # when
    response = staff.post("/admin/tenants/partner/add/", data, HTTP_HOST="localhost")

    # then
    page = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert (
        "Marke › Farben › Schaltfläche: Zu wenig Kontrast: Schrift der Schaltfläche auf der Schaltfläche (#ffffff auf #a3a3f0) hat 2,"
        in page
    )
    assert "Nächster passender Farbton: #" in page
    assert not Partner.objects.filter(subdomain="blass").exists()

    # when the suggested shade is taken
    suggestion = page.split("Nächster passender Farbton: ", 1)[1][:7]
    data["config"] = json.dumps({"colors": {"button": suggestion, "desktop_button": suggestion}})
    response = staff.post("/admin/tenants/partner/add/", data, HTTP_HOST="localhost")

    # then
    assert response.status_code == 302
    assert Partner.objects.get(subdomain="blass").config["colors"]["button"] == suggestion


def test_provisioning_and_updates_refuse_it_too() -> None:
    with pytest.raises(ValidationError) as refused:
        partner_provision(subdomain="blass", name="Blass", config={"colors": {"circle": "#ffd700"}})
    assert any("Ziffer (weiß) im Kreis" in m for m in refused.value.message_dict["config"])

    partner = Partner.objects.get(subdomain="autohaus")
    with pytest.raises(ValidationError):
        partner_update(
            partner=partner,
            config={**partner.config, "colors": {**partner.config["colors"], "text": "#bbbbbb"}},
        )
