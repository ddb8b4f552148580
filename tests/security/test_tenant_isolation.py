"""A partner's host, header or schema never reaches another partner's data."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context

pytestmark = pytest.mark.django_db


def test_rows_written_in_one_partners_schema_stay_there() -> None:
    with schema_context("p_autohaus"):
        ContentType.objects.create(app_label="probe", model="only_in_autohaus")
        assert connection.schema_name == "p_autohaus"  # type: ignore[attr-defined]

    with schema_context("p_stadtwerk"):
        assert not ContentType.objects.filter(app_label="probe").exists()
    with schema_context("p_autohaus"):
        assert ContentType.objects.filter(app_label="probe").exists()


def test_a_header_naming_another_partner_on_a_partner_host_is_refused(client: Client) -> None:
    response = client.get(
        "/api/configs/autohaus/", HTTP_HOST="autohaus.localhost", headers={"X-Subdomain": "wallbox"}
    )

    assert response.status_code == 400
    assert response.json() == {"detail": "X-SUBDOMAIN does not match this host."}


@pytest.mark.parametrize(
    "host", ["evil.example", "autohaus.localhost.evil.example", "p_autohaus", "[::1]:8000"]
)
def test_unknown_hosts_reach_no_view(client: Client, host: str) -> None:
    api = client.get("/api/configs/autohaus/", HTTP_HOST=host)
    page = client.get("/", HTTP_HOST=host)

    assert api.status_code == 404
    assert api.json() == {"detail": "Partner not found."}
    assert page.status_code == 404


@pytest.mark.parametrize("subdomain", ["AUTOHAUS", "autohaus%00", "../stadtwerk", "autohaus;drop"])
def test_odd_subdomains_in_the_path_answer_json(client: Client, subdomain: str) -> None:
    response = client.get(f"/api/configs/{subdomain}/", HTTP_HOST="autohaus.localhost")

    assert response["Content-Type"] == "application/json"
    assert response.status_code in {200, 404}
    if response.status_code == 200:
        assert response.json()["subdomain"] == "autohaus"


def test_unknown_api_paths_answer_json_404(client: Client) -> None:
    response = client.get("/api/nothing-here/", HTTP_HOST="autohaus.localhost")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}
