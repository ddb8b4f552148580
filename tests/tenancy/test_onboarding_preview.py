"""Signed, expiring preview links: the real site of an inactive partner or of a draft; refused
when expired, for another partner, or tampered with. The partner list links Open and Preview."""

import html
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from tenants.models import Partner
from tenants.preview import COOKIE, preview_token_make
from tenants.services import config_draft_save, partner_provision
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db

HOST = "vorab.localhost"


@pytest.fixture
def partner() -> Partner:
    return partner_provision(
        subdomain="vorab", name="Vorab GmbH", config={"page_title": "Vorab – live"}, frontend_active=False
    )


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def config_call(client: Client, query: str = "", host: str = HOST, sub: str = "vorab") -> Any:
    return client.get(f"/api/configs/{sub}/{query}", HTTP_HOST=host)


def test_an_inactive_partner_is_closed_without_a_link(client: Client, partner: Partner) -> None:
    assert config_call(client).json()["frontend_active"] is False
    refused = client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=HOST)
    assert refused.status_code == 403 and refused.json()["error_code"] == "PARTNER_INACTIVE"


def test_a_preview_link_opens_the_real_site_and_leaves_a_cookie(client: Client, partner: Partner) -> None:
    token = preview_token_make(partner=partner)

    # the link's first request
    first = config_call(client, f"?thg_preview={token}")

    assert first.status_code == 200
    body = first.json()
    assert body["frontend_active"] is True and body["preview"] is True
    assert body["page_title"] == "Vorab – live"
    assert first["Cache-Control"] == "no-store"
    cookie = first.cookies[COOKIE]
    assert cookie.value == token and cookie["httponly"] and cookie["samesite"] == "Lax"
    # the app's later calls carry only the cookie: they pass the inactive gate (401: no login)
    assert config_call(client).json()["frontend_active"] is True
    assert client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=HOST).status_code == 401
    # the back office stays closed
    assert client.get("/admin/", HTTP_HOST=HOST).status_code == 403
    # and visitors without the cookie still see the closed site
    assert config_call(Client()).json()["frontend_active"] is False


def test_a_draft_preview_shows_the_draft_the_live_site_does_not(client: Client, partner: Partner) -> None:
    draft = config_draft_save(
        partner=partner, config={**partner.config, "page_title": "Vorab – Entwurf"}, author=None
    )
    token = preview_token_make(partner=partner, draft=draft)

    preview = config_call(client, f"?thg_preview={token}").json()

    assert preview["page_title"] == "Vorab – Entwurf"
    assert preview["theme"]["texts"]["de"]["welcome.title"] == partner.config["pages"]["welcome"]["title"]
    assert config_call(Client()).json()["page_title"] == "Vorab – live"


def test_a_draft_preview_ends_when_the_draft_is_gone(client: Client, partner: Partner) -> None:
    draft = config_draft_save(partner=partner, config={**partner.config, "page_title": "Weg"}, author=None)
    token = preview_token_make(partner=partner, draft=draft)
    draft.delete()

    response = config_call(client, f"?thg_preview={token}")

    assert response.status_code == 404 and response.json()["error_code"] == "PREVIEW_INVALID"


def test_an_expired_link_is_refused(client: Client, partner: Partner) -> None:
    token = preview_token_make(partner=partner, max_age=-1)

    response = client.get(f"/?thg_preview={token}", HTTP_HOST=HOST)
    api = config_call(client, f"?thg_preview={token}")

    assert response.status_code == 403
    assert "Vorschau-Link ist ungültig oder abgelaufen" in response.content.decode()
    assert api.status_code == 403 and api.json()["error_code"] == "PREVIEW_INVALID"
    assert COOKIE not in response.cookies


def test_another_partners_link_is_refused(client: Client, partner: Partner) -> None:
    other = Partner.objects.get(subdomain="inaktiv")
    token = preview_token_make(partner=other)

    response = config_call(client, f"?thg_preview={token}")
    # nor does a cookie of partner B open partner A
    client.cookies[COOKIE] = token
    cookie_only = client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=HOST)

    assert response.status_code == 403 and response.json()["error_code"] == "PREVIEW_INVALID"
    assert cookie_only.status_code == 403 and cookie_only.json()["error_code"] == "PARTNER_INACTIVE"


@pytest.mark.parametrize("where", ["payload", "signature", "truncated"])
def test_a_tampered_link_is_refused(client: Client, partner: Partner, where: str) -> None:
    token = preview_token_make(partner=partner)
    if where == "payload":
        token = ("A" if token[0] != "A" else "B") + token[1:]
    elif where == "signature":
        token = token[:-1] + ("A" if token[-1] != "A" else "B")
    else:
        token = token[:-5]

    response = config_call(client, f"?thg_preview={token}")

    assert response.status_code == 403 and response.json()["error_code"] == "PREVIEW_INVALID"


def test_the_partner_list_shows_status_kind_domains_registrations_and_links(
    staff: Client, partner: Partner
) -> None:
    page = html.unescape(staff.get("/admin/tenants/partner/", HTTP_HOST="localhost").content.decode())

    assert "vorab.localhost" in page and "inaktiv" in page and "aktiv" in page
    assert 'href="http://vorab.localhost/"' in page and ">Öffnen<" in page and ">Vorschau<" in page
    assert "Registrierungen" in page

    filtered = staff.get("/admin/tenants/partner/?status=inactive", HTTP_HOST="localhost").content.decode()
    assert "Vorab GmbH" in filtered and "Autohaus Sonnenschein" not in filtered
    searched = staff.get("/admin/tenants/partner/?q=vorab.localhost", HTTP_HOST="localhost").content.decode()
    assert "Vorab GmbH" in searched and "Voltbox" not in searched


def test_the_list_costs_the_same_queries_for_more_partners(staff: Client, partner: Partner) -> None:
    def list_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert staff.get("/admin/tenants/partner/", HTTP_HOST="localhost").status_code == 200
        return len(queries)

    before = list_queries()
    partner_provision(subdomain="mehr-1", name="Mehr 1")
    partner_provision(subdomain="mehr-2", name="Mehr 2")

    assert list_queries() == before


def test_the_console_makes_preview_links(staff: Client, partner: Partner) -> None:
    draft = config_draft_save(
        partner=partner, config={**partner.config, "page_title": "Aus der Konsole"}, author=None
    )

    response = staff.get(f"/admin/tenants/partner/{partner.pk}/preview/?draft=1", HTTP_HOST="localhost")

    assert response.status_code == 302
    url = urlsplit(response["Location"])
    assert url.netloc == HOST
    token = parse_qs(url.query)["thg_preview"][0]
    visitor = Client()
    assert (
        visitor.get(f"/api/configs/vorab/?thg_preview={token}", HTTP_HOST=HOST).json()["page_title"]
        == "Aus der Konsole"
    )
    change = html.unescape(
        staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    )
    assert 'id="draft-preview-link"' in change and "?thg_preview=" in change
    assert json.loads(json.dumps(draft.config))["page_title"] == "Aus der Konsole"
