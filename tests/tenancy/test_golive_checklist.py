"""The go-live checklist (issue 49): "Aktivieren" is refused over HTTP while the imprint, the
privacy text, the terms, a price for each open quota year or the payout account is missing,
with a German message naming what; once everything is published and priced, it switches the
site on."""

import base64
import html
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import User
from common.partner_config import PartnerConfig
from quota.models import FeeTableVersion
from tenants.models import ConsoleAuditEntry, Partner
from tenants.quota_years import open_years
from tests.staff_login import client_staff_login
from tests.tenancy.console_form import partner_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def text(response: Any) -> str:
    """The page as read: tags taken out, white space collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def messages_after(client: Client, response: Any) -> str:
    assert response.status_code == 302, text(response)[-2000:]
    return text(client.get(response["Location"], HTTP_HOST="localhost"))


def test_activation_is_refused_until_the_checklist_is_complete(staff: Client) -> None:
    # a new partner from the console starts inactive, whatever the post says
    created = staff.post(
        "/admin/tenants/partner/add/",
        {
            "subdomain": "startklar",
            "name": "Startklar GmbH",
            "kind": "standard",
            "frontend_active": "on",
            "config": "{}",
            "config_import": "",
            "custom_domain": "",
            "note": "",
        },
        HTTP_HOST="localhost",
    )
    assert created.status_code == 302
    partner = Partner.objects.get(subdomain="startklar")
    assert partner.frontend_active is False
    years = open_years(timezone.localdate(), PartnerConfig())
    assert years  # the calendar has an open year on every day but a few
    activate = f"/admin/tenants/partner/{partner.pk}/activate/"

    # the partner's page lists what is missing
    page = text(staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost"))
    assert "Go-live-Checkliste · Website nicht aktiv" in page
    for label in ("Impressum", "Datenschutzerklärung", "Teilnahmebedingungen", "Auszahlungskonto"):
        assert f"{label} fehlt" in page
    assert f"Preistabelle für {', '.join(map(str, years))} fehlt" in page

    # when: "Aktivieren" on an empty partner
    page = messages_after(staff, staff.post(activate, HTTP_HOST="localhost"))

    # then: refused, every missing item named
    assert (
        "Aktivieren nicht möglich, es fehlt: Impressum, Datenschutzerklärung, Teilnahmebedingungen, "
        f"Preistabelle für {', '.join(map(str, years))}, Auszahlungskonto." in page
    )
    partner.refresh_from_db()
    assert partner.frontend_active is False

    # the legal pages and the account in a draft: not live yet, so still refused
    config = {
        **partner.config,
        "show_impressum": True,
        "impressum_details": "<p>Startklar GmbH, Hauptstraße 1, 10115 Berlin</p>",
        "payout_account": {"name": "Startklar GmbH", "iban": "DE89 3704 0044 0532 0130 00", "bic": ""},
    }
    config["pages"] = {
        **config["pages"],
        "termsdetails": {"text": b64("<p>Teilnahmebedingungen der Startklar GmbH</p>"), "file": None},
        "privacydetails": {"text": b64("<p>Datenschutz bei Startklar</p>"), "file": None},
    }
    saved = staff.post(
        f"/admin/tenants/partner/{partner.pk}/change/", partner_form(partner, config), HTTP_HOST="localhost"
    )
    assert saved.status_code == 302, text(saved)[-2000:]
    page = messages_after(staff, staff.post(activate, HTTP_HOST="localhost"))
    assert "Impressum (nur im Entwurf: erst veröffentlichen)" in page
    assert "Auszahlungskonto (nur im Entwurf: erst veröffentlichen)" in page

    # published: only the prices are missing
    staff.post(f"/admin/tenants/partner/{partner.pk}/publish/", HTTP_HOST="localhost")
    page = messages_after(staff, staff.post(activate, HTTP_HOST="localhost"))
    assert f"Aktivieren nicht möglich, es fehlt: Preistabelle für {', '.join(map(str, years))}." in page
    partner.refresh_from_db()
    assert partner.frontend_active is False

    # the partner admin's fee table (quota.FeeTableVersion) prices the open years
    with schema_context(partner.schema_name):
        FeeTableVersion.objects.create(
            number=1,
            valid_from=timezone.now(),
            rows=[
                {
                    "legislation_year": year,
                    "vehicle_class": "M1",
                    "private_payout": "80.00",
                    "business_net": "80.00",
                    "business_vat": "plus_vat",
                    "vat_percentage": "19.00",
                }
                for year in years
            ],
        )

    # when
    page = messages_after(staff, staff.post(activate, HTTP_HOST="localhost"))

    # then: live, logged, and the checklist all done
    assert "Startklar GmbH ist aktiv" in page
    assert "Go-live-Checkliste · Website aktiv" in page and "fehlt" not in page.split("Go-live")[1][:600]
    partner.refresh_from_db()
    assert partner.frontend_active is True
    assert ConsoleAuditEntry.objects.filter(partner_label="startklar", action="activate").count() == 1
    assert Client().get("/api/configs/startklar/", HTTP_HOST="startklar.localhost").json()["frontend_active"]


def test_a_price_in_the_configuration_counts_too_and_a_partner_host_cannot_activate(staff: Client) -> None:
    from tenants.services import partner_provision

    years = open_years(timezone.localdate(), PartnerConfig())
    partner = partner_provision(
        subdomain="konfig",
        name="Konfig AG",
        frontend_active=False,
        config={
            "show_impressum": True,
            "impressum_details": "<p>Konfig AG</p>",
            "pages": {
                "termsdetails": {"file": "/media/konfig/agb.pdf"},
                "privacydetails": {"file": "/media/konfig/datenschutz.pdf"},
            },
            "payout_account": {"name": "Konfig AG", "iban": "DE89370400440532013000"},
            "fees": [{"legislation_year": year, "vehicle_class": "M1", "client_fee": "75"} for year in years],
        },
    )

    # not from the partner's own host
    refused = staff.post(f"/admin/tenants/partner/{partner.pk}/activate/", HTTP_HOST="konfig.localhost")
    assert refused.status_code in {302, 403}
    partner.refresh_from_db()
    assert partner.frontend_active is False

    page = messages_after(
        staff, staff.post(f"/admin/tenants/partner/{partner.pk}/activate/", HTTP_HOST="localhost")
    )

    assert "Konfig AG ist aktiv" in page
    partner.refresh_from_db()
    assert partner.frontend_active is True
