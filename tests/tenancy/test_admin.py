"""Partner onboarding in the admin of the public host goes through partner_provision."""

import html

import pytest
from django.test import Client

from accounts.models import User
from tenants.models import Partner
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def add_partner(client: Client, **fields: str) -> object:
    data = {
        "subdomain": "admin-neu",
        "name": "Über Admin",
        "kind": "wallbox",
        "frontend_active": "on",
        "config": '{"colors": {"button": "#1d4ed8"}}',
        "custom_domain": "",
        **fields,
    }
    return client.post("/admin/tenants/partner/add/", data, HTTP_HOST="localhost")


def test_the_admin_provisions_a_partner_with_schema_and_domain(staff: Client) -> None:
    response = add_partner(staff, custom_domain="thg.admin-neu.example")

    assert response.status_code == 302  # type: ignore[attr-defined]
    partner = Partner.objects.get(subdomain="admin-neu")
    assert partner.schema_name == "p_admin_neu"
    assert partner.config["colors"]["button"] == "#1d4ed8"
    assert partner.config["font_family"] == "Open Sans"
    assert set(partner.domains.values_list("domain", flat=True)) == {
        "admin-neu.localhost",
        "thg.admin-neu.example",
    }


def test_the_admin_shows_configuration_errors_per_field(staff: Client) -> None:
    response = add_partner(staff, config='{"colors": {"button": "nope"}, "item_alignment": "justify"}')

    assert response.status_code == 200  # type: ignore[attr-defined]
    page = response.content.decode()  # type: ignore[attr-defined]
    assert "Marke › Farben › Schaltfläche: Bitte eine Farbe als #rgb, #rrggbb oder #rrggbbaa angeben." in page
    assert (
        "Marke › Ausrichtung der Überschriften: „justify“ ist nicht möglich. Bitte eine der angebotenen "
        "Möglichkeiten wählen: Links („left“), Mittig („center“) oder Rechts („right“)."
        in html.unescape(page)
    )
    assert not Partner.objects.filter(subdomain="admin-neu").exists()


def test_the_admin_refuses_a_duplicate_subdomain(staff: Client) -> None:
    response = add_partner(staff, subdomain="wallbox")

    assert "Partner with this Subdomain already exists" in response.content.decode()  # type: ignore[attr-defined]


def test_partners_are_not_managed_from_a_partner_host(staff: Client) -> None:
    response = staff.get("/admin/tenants/partner/", HTTP_HOST="autohaus.localhost")

    assert response.status_code in {302, 403}
