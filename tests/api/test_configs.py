import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from common.partner_config import PRIVATE_KEYS
from tenants.models import Partner
from tenants.preview import preview_token_make
from tenants.schemas import PartnerConfigOut
from tenants.services import partner_update
from themes.compiler import theme_compile

pytestmark = pytest.mark.django_db


def get_config(client: Client, host: str, subdomain: str, **headers: str):  # type: ignore[no-untyped-def]
    return client.get(f"/api/configs/{subdomain}/", HTTP_HOST=host, headers=headers)


def test_the_config_call_returns_the_configuration_and_the_compiled_theme(client: Client) -> None:
    response = get_config(client, "wallbox.localhost:8000", "wallbox")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    partner = Partner.objects.get(subdomain="wallbox")
    assert body["kind"] == "wallbox"
    assert body["frontend_active"] is True
    assert body["colors"] == partner.config["colors"]
    assert body["pages"]["welcome"]["title"] == "Voltbox THG-Bonus"
    assert body["theme"] == theme_compile(partner.config, "wallbox")
    assert body["theme"]["tokens"]["headerImage"].startswith("data:image/svg+xml")


def test_an_unchanged_configuration_answers_304_to_its_etag(client: Client) -> None:
    first = get_config(client, "autohaus.localhost", "autohaus")

    again = get_config(client, "autohaus.localhost", "autohaus", If_None_Match=first["ETag"])

    assert again.status_code == 304
    assert again["ETag"] == first["ETag"]
    assert again.content == b""


def test_a_changed_configuration_gets_a_new_etag_and_body(
    client: Client, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    first = get_config(client, "autohaus.localhost", "autohaus")
    partner = Partner.objects.get(subdomain="autohaus")

    with django_capture_on_commit_callbacks(execute=True):
        partner_update(partner=partner, config={**partner.config, "page_title": "Neu"})
    changed = get_config(client, "autohaus.localhost", "autohaus", If_None_Match=first["ETag"])

    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    assert changed.json()["page_title"] == "Neu"


def test_a_deactivated_partner_is_served_with_frontend_active_false(client: Client) -> None:
    response = get_config(client, "inaktiv.localhost", "inaktiv")

    assert response.status_code == 200
    assert response.json()["frontend_active"] is False


def test_a_partner_host_never_serves_another_partners_configuration(client: Client) -> None:
    other = get_config(client, "autohaus.localhost", "stadtwerk")
    by_header = get_config(client, "autohaus.localhost", "stadtwerk", X_Subdomain="stadtwerk")

    assert other.status_code == 404
    assert other.json() == {"detail": "Partner not found."}
    # A header naming another partner than the host's is refused outright (issue 13).
    assert by_header.status_code == 400
    assert by_header.json() == {"detail": "X-SUBDOMAIN does not match this host."}
    assert "Stadtwerke" not in by_header.content.decode()


def test_on_the_shared_host_the_path_decides(client: Client) -> None:
    response = get_config(client, "localhost", "stadtwerk")
    missing = get_config(client, "localhost", "gibtsnicht")

    assert response.status_code == 200
    assert response.json()["name"] == "Stadtwerke Musterstadt"
    assert missing.status_code == 404


def test_repeated_calls_use_no_database_query(client: Client, django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    get_config(client, "stadtwerk.localhost", "stadtwerk")

    with django_assert_num_queries(0):
        response = get_config(client, "stadtwerk.localhost", "stadtwerk")

    assert response.status_code == 200
    assert json.loads(response.content)["subdomain"] == "stadtwerk"


def test_the_openapi_schema_lists_the_config_call(client: Client) -> None:
    schema = client.get("/api/openapi.json", HTTP_HOST="autohaus.localhost").json()

    assert "/api/configs/{subdomain}/" in schema["paths"]
    for path in (
        "/api/auth/user/login/",
        "/api/auth/2fa/otp/verify/",
        "/api/auth/user/password-reset/complete/",
        "/api/end_user_portal/quota_applications/",
        "/api/end_user_portal/quota_applications/{application_id}/duplicate_for_new_period/",
    ):
        assert path in schema["paths"], path
    docs = client.get("/api/docs", HTTP_HOST="autohaus.localhost")
    assert docs.status_code == 200
    assert b"cdn.jsdelivr" not in docs.content


def test_a_configuration_that_is_no_partner_yet_is_compiled_for_a_preview(client: Client) -> None:
    body = {"kind": "wallbox", "name": "Solar GmbH", "config": {"colors": {"button": "#aa0000"}}}
    response = client.post(
        "/api/config_previews/", body, content_type="application/json", HTTP_HOST="localhost"
    )

    assert response.status_code == 200
    preview = response.json()
    assert preview["kind"] == "wallbox" and preview["name"] == "Solar GmbH"
    assert preview["theme"]["tokens"]["button"] == "#aa0000"
    assert preview["theme"]["flags"]["isWallbox"] is True


def test_a_preview_of_an_invalid_configuration_lists_the_schema_messages(client: Client) -> None:
    body = {"config": {"colors": {"button": "red"}, "font_family": "Comic Sans", "typo": 1}}
    response = client.post(
        "/api/config_previews/", body, content_type="application/json", HTTP_HOST="localhost"
    )

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors["colors.button"] == ["Bitte eine Farbe als #rgb, #rrggbb oder #rrggbbaa angeben."]
    assert "font_family" in errors and "typo" in errors


def test_the_config_answer_is_gzipped_for_a_browser_that_accepts_it(client: Client) -> None:
    """On every first screen's critical path: compressed as the assets are (issue 15)."""
    import gzip

    plain = get_config(client, "autohaus.localhost", "autohaus")
    packed = get_config(client, "autohaus.localhost", "autohaus", Accept_Encoding="gzip, deflate, br")

    assert "Content-Encoding" not in plain and plain["Vary"].endswith("Accept-Encoding")
    assert packed["Content-Encoding"] == "gzip" and packed["Vary"] == plain["Vary"]
    assert json.loads(gzip.decompress(packed.content)) == plain.json()
    assert len(packed.content) < len(plain.content) / 2
    # Another representation: a weak validator, which answers 304 to itself.
    assert packed["ETag"] == f"W/{plain['ETag']}"
    again = get_config(
        client, "autohaus.localhost", "autohaus", Accept_Encoding="gzip", If_None_Match=packed["ETag"]
    )
    assert again.status_code == 304


# ---------------------------------------------------------------- the declared answer (issue 50)

ROOT = Path(__file__).resolve().parents[2]


def _shape(value: Any) -> Any:
    """The keys of an answer, all the way down."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return None


def assert_declared(body: dict[str, Any]) -> None:
    """The answer is PartnerConfigOut (the web app's generated type): every declared key there
    with its type (model_validate raises otherwise), and no key the declaration lacks."""
    declared = PartnerConfigOut.model_validate(body)
    assert _shape(declared.model_dump(mode="json", exclude_unset=True)) == _shape(body)


@pytest.mark.parametrize("subdomain", ["autohaus", "stadtwerk", "wallbox", "inaktiv"])
def test_the_config_answer_is_the_declared_schema(client: Client, subdomain: str) -> None:
    response = get_config(client, f"{subdomain}.localhost", subdomain)

    assert response.status_code == 200
    body = response.json()
    assert_declared(body)
    assert not PRIVATE_KEYS & body.keys()
    assert body["quota_years"]["open_years"] and "preview" not in body


def test_a_preview_links_answer_is_the_declared_schema(client: Client) -> None:
    partner = Partner.objects.get(subdomain="stadtwerk")
    token = preview_token_make(partner=partner)

    response = client.get(f"/api/configs/stadtwerk/?thg_preview={token}", HTTP_HOST="stadtwerk.localhost")

    assert response.status_code == 200
    body = response.json()
    assert body["preview"] is True
    assert_declared(body)


def test_a_designer_previews_answer_is_the_declared_schema(client: Client) -> None:
    body = {"kind": "utility", "config": {"invoicing": {"legal_name": "Solar GmbH"}}}

    response = client.post(
        "/api/config_previews/", body, content_type="application/json", HTTP_HOST="localhost"
    )

    assert response.status_code == 200
    preview = response.json()
    assert_declared(preview)
    # as before: no quota years (no partner, no calendar asked), no preview flag; and as the
    # config call: nothing the partner keeps to itself
    assert not ({"quota_years", "preview"} | PRIVATE_KEYS) & preview.keys()


def test_a_configuration_saved_before_a_field_existed_answers_its_default(client: Client) -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    old = json.loads(json.dumps(partner.config))
    del old["partneradvertisement"]["headline"]
    del old["pages"]["finish"]
    Partner.objects.filter(pk=partner.pk).update(config=old, config_version=partner.config_version + 1)

    body = get_config(client, "autohaus.localhost", "autohaus").json()

    assert body["partneradvertisement"]["headline"] == ""
    assert body["pages"]["finish"]["title"] == "Vielen Dank für Ihre Registrierung!"
    assert_declared(body)


@pytest.mark.parametrize(
    "fixture",
    [
        *sorted((ROOT / "storybook" / "fixtures").glob("*.json")),
        *sorted((ROOT / "web" / "src" / "test" / "fixtures").glob("config-*.json")),
    ],
    ids=lambda path: path.name,
)
def test_the_web_fixtures_are_config_answers(fixture: Path) -> None:
    """Storybook and Vitest render from these as the app from the config call: the same type,
    unchecked in the browser (web/src/api/config.ts), so it is checked here."""
    body = json.loads(fixture.read_text(encoding="utf-8"))

    assert_declared(body)
