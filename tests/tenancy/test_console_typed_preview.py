"""The console's side-by-side preview follows the typing (issue 49): the form's unsaved
configuration is checked like a save and shown through a preview link of its own; nothing is
saved, and the link shows only that partner's site."""

import json

import pytest
from django.test import Client

from accounts.models import User
from common.partner_config import config_normalise
from tenants.config_form import config_group
from tenants.models import Partner
from tenants.services import partner_provision
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.fixture
def partner() -> Partner:
    return partner_provision(subdomain="tippen", name="Tippen GmbH", frontend_active=False)


def typed(staff: Client, partner: Partner, title: str, token: str = "", **colors: str) -> dict:  # type: ignore[type-arg]
    form = config_group(config_normalise({}))
    form["marke"]["page_title"] = title
    form["marke"]["colors"].update(colors)
    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/preview/typed/",
        {"config": json.dumps(form), "token": token},
        HTTP_HOST="localhost",
    )
    return {"status": response.status_code, **response.json()}


def shown(token: str, host: str = "tippen.localhost", subdomain: str = "tippen") -> dict:  # type: ignore[type-arg]
    response = Client().get(f"/api/configs/{subdomain}/?thg_preview={token}", HTTP_HOST=host)
    return {"status": response.status_code, **response.json()}


def test_what_is_typed_is_previewed_and_nothing_is_saved(staff: Client, partner: Partner) -> None:
    # when: the form holds a new title, not saved
    first = typed(staff, partner, "Getippt – THG")

    # then: its preview link shows it, on the inactive partner's own host, marked as a preview
    assert first["status"] == 200
    assert first["url"] == f"http://tippen.localhost/?thg_preview={first['token']}"
    answer = shown(first["token"])
    assert answer["status"] == 200 and answer["page_title"] == "Getippt – THG" and answer["preview"] is True
    # nothing saved: no draft, no version, the partner as it was
    partner.refresh_from_db()
    assert partner.config["page_title"] != "Getippt – THG"
    assert not partner.config_versions.filter(published_at__isnull=True).exists()
    assert partner.config_versions.count() == 1

    # when: more is typed: the same preview is updated, not a new one made per keystroke
    second = typed(staff, partner, "Getippt und geändert", token=first["token"])
    assert shown(first["token"])["page_title"] == "Getippt und geändert"
    assert shown(second["token"])["page_title"] == "Getippt und geändert"


def test_a_configuration_that_could_not_be_saved_is_not_previewed(staff: Client, partner: Partner) -> None:
    refused = typed(staff, partner, "Kontrast", button="#ffff00", button_text="#ffffff")

    assert refused["status"] == 400
    assert any(message.startswith("Marke › Farben › ") for message in refused["errors"]), refused
    assert "url" not in refused


def test_the_typed_preview_is_the_consoles_and_that_partners_only(staff: Client, partner: Partner) -> None:
    other = partner_provision(subdomain="anderer", name="Anderer GmbH", frontend_active=False)
    token = typed(staff, partner, "Nur für Tippen")["token"]

    # another partner's host does not take the link
    assert shown(token, host="anderer.localhost", subdomain="anderer")["status"] in {403, 404}
    # only a POST of a signed-in console user makes one; never on a partner's host
    url = f"/admin/tenants/partner/{partner.pk}/preview/typed/"
    assert staff.get(url, HTTP_HOST="localhost").status_code == 405
    assert Client().post(url, {"config": "{}"}, HTTP_HOST="localhost").status_code == 302
    assert staff.post(url, {"config": "{}"}, HTTP_HOST="tippen.localhost").status_code in {302, 403}
    assert other.config_versions.count() == 1
