"""Drafts, published versions, readable diffs and rollback in the console; the config call's
ETag follows the published version."""

import html
import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from tenants.models import ConfigVersion, Partner
from tenants.services import partner_provision
from tests.staff_login import client_staff_login
from tests.tenancy.console_form import partner_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.fixture(autouse=True)
def _commits(monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    """Each console POST runs its on_commit callbacks (the partner directory's invalidation)
    when it ends, as the real commit at the end of a request would."""
    post = Client.post

    def committed_post(self: Client, *args: object, **kwargs: object) -> object:
        with django_capture_on_commit_callbacks(execute=True):
            return post(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Client, "post", committed_post)


@pytest.fixture
def partner() -> Partner:
    return partner_provision(
        subdomain="solar", name="Solar GmbH", kind="wallbox", config={"page_title": "Solar – THG"}
    )


def change(client: Client, partner: Partner, config: dict, **fields: str) -> object:  # type: ignore[type-arg]
    data = partner_form(partner, config, **fields)
    return client.post(f"/admin/tenants/partner/{partner.pk}/change/", data, HTTP_HOST="localhost")


def config_call(client: Client, **headers: str) -> Any:
    """The partner's site as a visitor's browser asks it: a jar of its own (the test client keeps
    one jar for every host, and the partner host ends a session cookie it does not know, the
    platform admin's among them; a browser keeps cookies per host)."""
    return Client().get("/api/configs/solar/", HTTP_HOST="solar.localhost", **headers)  # type: ignore[arg-type]


def page(response: object) -> str:
    return " ".join(html.unescape(response.content.decode()).split())  # type: ignore[attr-defined]


def test_provisioning_publishes_version_1(partner: Partner) -> None:
    version = ConfigVersion.objects.get(partner=partner)

    assert (version.number, partner.published_version) == (1, 1)
    assert version.config == partner.config
    assert version.published_at is not None


def test_an_edit_is_a_draft_until_published_then_a_new_version(staff: Client, partner: Partner) -> None:
    # given the live site and its ETag
    before = config_call(staff)
    etag = before["ETag"]  # type: ignore[index]
    assert '"v1-' in etag.replace(f'"{partner.pk}-', '"')

    # when the console saves an edit
    edited = {**partner.config, "page_title": "Solar – Ihre Prämie"}
    response = change(staff, partner, edited, note="Neuer Titel")

    # then the live site is unchanged and the draft is shown with its diff
    assert response.status_code == 302  # type: ignore[attr-defined]
    assert config_call(staff, HTTP_IF_NONE_MATCH=etag).status_code == 304  # type: ignore[attr-defined]
    draft = ConfigVersion.objects.get(partner=partner, published_at__isnull=True)
    assert draft.config["page_title"] == "Solar – Ihre Prämie"
    assert draft.author.username == "onboarding"  # type: ignore[union-attr]
    form = page(staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost"))
    assert "Entwurf, noch nicht veröffentlicht" in form
    assert "Solar – THG" in form and "Solar – Ihre Prämie" in form  # before and after in the diff
    assert "<td>Marke › Titel der Website</td>" in form  # the field by its German name

    # when it is published
    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/publish/", {"note": "Titel"}, HTTP_HOST="localhost"
    )

    # then version 2 is live, with a new ETag naming it
    assert response.status_code == 302  # type: ignore[attr-defined]
    partner.refresh_from_db()
    assert partner.published_version == 2
    assert partner.config["page_title"] == "Solar – Ihre Prämie"
    after = config_call(staff, HTTP_IF_NONE_MATCH=etag)
    assert after.status_code == 200  # type: ignore[attr-defined]
    assert json.loads(after.content)["page_title"] == "Solar – Ihre Prämie"  # type: ignore[attr-defined]
    assert after["ETag"] != etag and f'"{partner.pk}-v2-' in after["ETag"]  # type: ignore[index]
    assert not ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).exists()
    history = page(staff.get(f"/admin/tenants/partner/{partner.pk}/versions/", HTTP_HOST="localhost"))
    assert "Version 2 (live)" in history and "onboarding: Titel" in history
    assert "Version 1 –" in history


def test_rollback_publishes_a_copy_of_the_old_version(staff: Client, partner: Partner) -> None:
    change(staff, partner, {**partner.config, "colors": {**partner.config["colors"], "button": "#1d4ed8"}})
    staff.post(f"/admin/tenants/partner/{partner.pk}/publish/", {}, HTTP_HOST="localhost")
    v2_etag = config_call(staff)["ETag"]  # type: ignore[index]

    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/versions/1/rollback/", {}, HTTP_HOST="localhost"
    )

    assert response.status_code == 302  # type: ignore[attr-defined]
    versions = list(ConfigVersion.objects.filter(partner=partner).order_by("number"))
    assert [v.number for v in versions] == [1, 2, 3]
    assert versions[2].config == versions[0].config
    assert versions[2].copied_from == 1
    assert versions[1].config["colors"]["button"] == "#1d4ed8"  # history is never rewritten
    partner.refresh_from_db()
    assert partner.published_version == 3
    assert partner.config == versions[0].config
    live = config_call(staff)
    assert live["ETag"] != v2_etag and f'"{partner.pk}-v3-' in live["ETag"]  # type: ignore[index]
    assert json.loads(live.content)["colors"]["button"] == versions[0].config["colors"]["button"]  # type: ignore[attr-defined]
    history = page(staff.get(f"/admin/tenants/partner/{partner.pk}/versions/", HTTP_HOST="localhost"))
    assert "Zurückgesetzt auf Version 1" in history


def test_a_draft_failing_the_gate_is_not_saved(staff: Client, partner: Partner) -> None:
    response = change(
        staff, partner, {**partner.config, "colors": {**partner.config["colors"], "text": "#cccccc"}}
    )

    assert response.status_code == 200  # type: ignore[attr-defined]
    assert "Marke › Farben › Text: Zu wenig Kontrast" in page(response)
    assert not ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).exists()


def test_discarding_a_draft_keeps_the_live_configuration(staff: Client, partner: Partner) -> None:
    change(staff, partner, {**partner.config, "page_title": "Verworfen"})

    staff.post(f"/admin/tenants/partner/{partner.pk}/discard/", {}, HTTP_HOST="localhost")

    assert not ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).exists()
    partner.refresh_from_db()
    assert partner.config["page_title"] == "Solar – THG"


def test_name_and_switches_are_saved_directly(staff: Client, partner: Partner) -> None:
    # the site's switch is no field of the form any more ("Deaktivieren" beside the checklist)
    response = change(staff, partner, partner.config, name="Solar AG", frontend_active="")
    assert response.status_code == 302  # type: ignore[attr-defined]
    partner.refresh_from_db()
    assert (partner.name, partner.frontend_active) == ("Solar AG", True)

    response = staff.post(f"/admin/tenants/partner/{partner.pk}/deactivate/", {}, HTTP_HOST="localhost")

    assert response.status_code == 302  # type: ignore[attr-defined]
    partner.refresh_from_db()
    assert partner.frontend_active is False
    assert not ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).exists()


def test_the_version_pages_need_the_second_factor(client: Client, partner: Partner) -> None:
    User.objects.create_superuser("halb", "halb@example.com", "S3cure-Passw0rd!")
    client.post("/admin/login/", {"username": "halb", "password": "S3cure-Passw0rd!"}, HTTP_HOST="localhost")

    for url in (
        f"/admin/tenants/partner/{partner.pk}/versions/",
        f"/admin/tenants/partner/{partner.pk}/publish/",
    ):
        response = (
            client.post(url, {}, HTTP_HOST="localhost")
            if "publish" in url
            else client.get(url, HTTP_HOST="localhost")
        )
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Partner.objects.get(pk=partner.pk).published_version == 1
