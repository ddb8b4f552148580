"""Custom domains (issue 47, item 5): the platform's own names (localhost, PUBLIC_HOSTS,
BASE_DOMAIN and any name under it, another partner's host) are refused; a name is normalised
(case, trailing dot, IDNA) before the uniqueness check, so a variant of a taken name is a form
error, never a 500. Through the onboarding console (HTTP) and the provisioning service."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from accounts.models import User
from tenants.models import Domain, Partner
from tenants.services import partner_provision
from tests.staff_login import client_staff_login
from tests.tenancy.console_form import partner_form

pytestmark = pytest.mark.django_db
PLATFORM = "Diese Domain gehört zur Plattform und kann keine Domain eines Partners sein."
TAKEN = "Diese Domain ist schon vergeben."


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.fixture
def partner() -> Partner:
    return partner_provision(subdomain="sonne", name="Sonne GmbH", custom_domain="thg.sonne.example")


def add_domain(staff: Client, partner: Partner, domain: str) -> Any:
    data = partner_form(
        partner,
        partner.config,
        **{"domains-TOTAL_FORMS": "1", "domains-0-domain": domain, "domains-0-tenant": str(partner.pk)},
    )
    return staff.post(f"/admin/tenants/partner/{partner.pk}/change/", data, HTTP_HOST="localhost")


@pytest.mark.parametrize(
    "domain",
    ["localhost", "LOCALHOST.", "127.0.0.1", "autohaus.localhost", "Wallbox.Localhost", "neu.localhost"],
)
def test_the_platforms_own_names_are_refused(staff: Client, partner: Partner, domain: str) -> None:
    response = add_domain(staff, partner, domain)

    assert response.status_code == 200
    assert PLATFORM in html.unescape(response.content.decode())
    assert set(partner.domains.values_list("domain", flat=True)) == {"sonne.localhost", "thg.sonne.example"}


def test_the_base_domain_and_public_hosts_of_a_deployment_are_refused(
    partner: Partner, settings: Any
) -> None:
    settings.BASE_DOMAIN = "thg-plattform.de"
    settings.PUBLIC_HOSTS = ["thg-plattform.de", "console.thg-betrieb.de"]
    for name in ("thg-plattform.de", "autohaus.thg-plattform.de", "Console.THG-Betrieb.de."):
        with pytest.raises(ValidationError) as refused:
            Domain(domain=name, tenant=partner).full_clean()
        assert refused.value.message_dict["domain"] == [PLATFORM], name
    # the partner's own host under the base domain is its own
    Domain(domain="sonne.thg-plattform.de", tenant=partner).clean()
    with pytest.raises(ValidationError) as refused:
        partner_provision(subdomain="neu", name="Neu", custom_domain="www.thg-plattform.de")
    assert refused.value.message_dict == {"custom_domain": [PLATFORM]}


@pytest.mark.parametrize("domain", ["THG.Sonne.Example", "thg.sonne.example.", " thg.SONNE.example "])
def test_a_variant_of_a_taken_name_is_a_form_error(staff: Client, partner: Partner, domain: str) -> None:
    other = partner_provision(subdomain="mond", name="Mond GmbH")

    response = add_domain(staff, other, domain)

    assert response.status_code == 200
    assert TAKEN in html.unescape(response.content.decode())
    assert list(other.domains.values_list("domain", flat=True)) == ["mond.localhost"]


def test_a_name_is_stored_lower_case_without_the_dot_and_as_idna(staff: Client, partner: Partner) -> None:
    response = add_domain(staff, partner, "THG.Müller-Autos.DE.")

    assert response.status_code == 302, html.unescape(response.content.decode())[-3000:]
    assert Domain.objects.filter(tenant=partner, domain="thg.xn--mller-autos-thb.de").exists()
    # and the same name in Unicode is then taken
    again = add_domain(staff, partner_provision(subdomain="mond", name="Mond"), "thg.müller-autos.de")
    assert TAKEN in html.unescape(again.content.decode())


def test_a_new_partners_custom_domain_passes_the_same_rules(staff: Client) -> None:
    base = {"name": "Neu", "kind": "standard", "frontend_active": "on", "config": "{}"}
    refused = staff.post(
        "/admin/tenants/partner/add/", {**base, "subdomain": "neu", "custom_domain": "Autohaus.Localhost"},
        HTTP_HOST="localhost",
    )  # fmt: skip
    assert refused.status_code == 200 and PLATFORM in html.unescape(refused.content.decode())
    assert not Partner.objects.filter(subdomain="neu").exists()
    bad = staff.post(
        "/admin/tenants/partner/add/", {**base, "subdomain": "neu", "custom_domain": "nicht gültig!"},
        HTTP_HOST="localhost",
    )  # fmt: skip
    assert bad.status_code == 200 and "gültigen Domainnamen" in html.unescape(bad.content.decode())
