import pytest
from django.test import Client
from django.utils import timezone

from tenants.directory import directory
from tenants.models import Domain, Partner
from tenants.services import partner_update

pytestmark = pytest.mark.django_db


def test_the_header_names_the_partner_on_a_shared_host(client: Client) -> None:
    response = client.get("/api/configs/wallbox/", HTTP_HOST="localhost", headers={"X-Subdomain": "Wallbox"})

    assert response.status_code == 200
    assert response.json()["subdomain"] == "wallbox"


def test_an_unknown_partner_gets_json_404_on_the_api_and_a_plain_page_elsewhere(client: Client) -> None:
    api = client.get("/api/configs/nobody/", HTTP_HOST="nobody.localhost")
    page = client.get("/terms", HTTP_HOST="nobody.localhost")
    header = client.get("/api/configs/nobody/", HTTP_HOST="localhost", headers={"X-Subdomain": "nobody"})

    assert api.status_code == 404
    assert api.json() == {"detail": "Partner not found."}
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")
    assert header.status_code == 404
    assert header.json() == {"detail": "Partner not found."}


def test_a_custom_domain_resolves_to_its_partner(client: Client) -> None:
    partner = Partner.objects.get(subdomain="stadtwerk")
    Domain.objects.create(
        domain="thg.stadtwerke-musterstadt.example",
        tenant=partner,
        is_primary=False,
        verified_at=timezone.now(),
    )
    directory.clear()

    response = client.get("/api/configs/stadtwerk/", HTTP_HOST="thg.stadtwerke-musterstadt.example")

    assert response.status_code == 200


def test_the_public_host_serves_the_platform_admin(client: Client) -> None:
    response = client.get("/admin/login/", HTTP_HOST="localhost")

    assert response.status_code == 200
    assert b"Django" in response.content or b"admin" in response.content


def test_a_cached_partner_is_forgotten_when_it_changes(
    client: Client, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/api/configs/autohaus/", HTTP_HOST="autohaus.localhost").json()["name"] == (
        "Autohaus Sonnenschein"
    )
    partner = Partner.objects.get(subdomain="autohaus")

    with django_capture_on_commit_callbacks(execute=True):
        partner_update(partner=partner, name="Autohaus Mondschein", frontend_active=False)
    body = client.get("/api/configs/autohaus/", HTTP_HOST="autohaus.localhost").json()

    assert body["name"] == "Autohaus Mondschein"
    assert body["frontend_active"] is False
