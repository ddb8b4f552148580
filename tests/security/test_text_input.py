"""Issue 13 item 7: control characters, lone surrogates, bidi overrides and emoji in any text
field a client sends are a 400 {"field": [message]} and nothing is stored.

The JSON cases are generated from the API's own OpenAPI schema, so a new text field of a new
operation is covered without touching this file. The billing body is a free object in the
schema; its fields come from billing.validation.TEXT_FIELDS.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.apps import apps
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from billing.validation import TEXT_FIELDS as BILLING_FIELDS
from common.text import INVALID_CHARACTERS, NO_EMOJIS, text_problem
from config.api import api
from tenants.models import Partner
from tests.factories import ApplicationFactory, UserFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"

# name -> (value, message); the surrogate is sent as the raw JSON escape "\ud800".
CONTROL = {
    "nul": ("ab\x00cd", INVALID_CHARACTERS),
    "lone_surrogate": ("ab\ud800cd", INVALID_CHARACTERS),
    "bell": ("ab\x07cd", INVALID_CHARACTERS),
}
# Turns a name around on screen; passwords are never shown, so they may hold it.
DISPLAY = {"bidi_override": ("Erika \u202eannamretsuM", INVALID_CHARACTERS)}
EMOJI = {
    "grinning": ("ab😀", NO_EMOJIS),
    "thumb_skin_tone": ("ab👍🏽", NO_EMOJIS),
    "flag": ("ab🇩🇪", NO_EMOJIS),
    "zwj_family": ("ab👨\u200d👩\u200d👧", NO_EMOJIS),
}
BAD = {**CONTROL, **DISPLAY, **EMOJI}


def _schema() -> dict[str, Any]:
    return api.get_openapi_schema()


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref:
        return dict(schema["components"]["schemas"][ref.rsplit("/", 1)[1]])
    return node


def _is_text(prop: dict[str, Any]) -> bool:
    """A free str; a choice (enum) or a typed string (a pattern: amounts, dates) refuses
    anything else on its own (its type rejects emoji and control characters)."""
    options = [prop, *prop.get("anyOf", [])]
    if any(p.get("type") in ("number", "integer") for p in options):
        return False  # an amount, as a number or its string
    return any(
        p.get("type") == "string" and not {"enum", "const", "pattern", "format"} & p.keys() for p in options
    )


def json_text_fields() -> list[tuple[str, str, str, bool]]:
    """(method, path, field, needs a token) for every str property of every JSON body."""
    schema = _schema()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content or "{" in path:
                continue
            body = _resolve(schema, content["application/json"]["schema"])
            secured = bool(operation.get("security"))
            for field, prop in body.get("properties", {}).items():
                if _is_text(_resolve(schema, prop)):
                    found.append((method, path, field, secured))
    return found


def _billing_fields() -> list[tuple[str, str, str, bool]]:
    return [("post", "/api/clients/", field, True) for field in BILLING_FIELDS]


def _cases() -> Iterator[Any]:
    for method, path, field, secured in [*json_text_fields(), *_billing_fields()]:
        for name, (value, message) in BAD.items():
            if "password" in field and name not in CONTROL:
                continue  # see test_a_password_may_hold_emoji_but_no_control_character
            yield pytest.param(method, path, field, secured, value, message, id=f"{path}:{field}:{name}")


def tenant_rows() -> dict[str, int]:
    """Row count of every model of the apps an end user writes to, in the partner's schema."""
    with schema_context("p_autohaus"):
        return {
            model._meta.label: model._default_manager.count()
            for label in ("accounts", "registrations", "billing", "quota", "staff")
            for model in apps.get_app_config(label).get_models()
        }


@pytest.fixture
def owner() -> User:
    with schema_context("p_autohaus"):
        return UserFactory.create(email="text-owner@example.de")


def bearer(user: User) -> dict[str, Any]:
    with schema_context("p_autohaus"):
        tokens = tokens_issue(user=user, partner=Partner.objects.get(subdomain="autohaus"))
    return {"HTTP_AUTHORIZATION": f"Bearer {tokens['access']}"}


def credentials(client: Client, owner: User, path: str) -> dict[str, Any]:
    """An owner's bearer token; for the partner area a partner admin's session on the client."""
    if not path.startswith("/api/partner/"):
        return bearer(owner)
    member, password = staff_member(Partner.objects.get(subdomain="autohaus"), "partner_admin")
    partner_session(client, HOST, member, password)
    return {}


def test_the_generated_list_covers_every_known_text_field() -> None:
    fields = {(path, field) for _, path, field, _ in json_text_fields()}

    # A sample of each app, so a broken generator cannot pass by finding nothing.
    assert {
        ("/api/auth/registration/otp/", "email"),
        ("/api/auth/registration/otp/", "partner"),
        ("/api/auth/user/login/", "username"),
        ("/api/auth/user/login/", "password"),
        ("/api/auth/user/password-reset/complete/", "password_again"),
        ("/api/end_user_portal/create_account/", "subdomain"),
        ("/api/fe_user_agent_data/", "device_name"),
        ("/api/fe_user_agent_data/", "full_user_agent_string"),
        ("/api/config_previews/", "name"),
    } <= fields
    assert len(fields) >= 25


@pytest.mark.parametrize(("method", "path", "field", "secured", "value", "message"), list(_cases()))
def test_a_bad_character_in_a_json_text_field_is_a_400_and_nothing_is_stored(
    client: Client, owner: User, method: str, path: str, field: str, secured: bool, value: str, message: str
) -> None:
    # given
    headers = credentials(client, owner, path) if secured else {}
    before = tenant_rows()
    # json.dumps writes a lone surrogate as the escape "\ud800", as a hostile client would.
    body = json.dumps({field: value})

    # when
    response = getattr(client, method)(path, body, content_type="application/json", HTTP_HOST=HOST, **headers)

    # then
    assert response.status_code == 400, response.content
    assert response.json()[field] == [message]
    assert tenant_rows() == before
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("name", "value", "message"), [(k, *v) for k, v in BAD.items() if k != "lone_surrogate"]
)
def test_the_vat_check_form_refuses_bad_characters(
    client: Client, owner: User, name: str, value: str, message: str
) -> None:
    response = client.post(
        "/api/clients/validate_vat_number/", {"vat_number": f"DE{value}"}, HTTP_HOST=HOST, **bearer(owner)
    )

    assert response.status_code == 400
    assert response.json() == {"vat_number": [message]}


def _application(owner: User) -> Any:
    with schema_context("p_autohaus"):
        return ApplicationFactory.create(registration__owner=owner)


def _resubmit(client: Client, owner: User, application: Any, value: str) -> Any:
    return client.put(
        f"/api/end_user_portal/quota_applications/{application.pk}/duplicate_for_new_period/",
        f"period={timezone.localdate().year + 1}&free_text={_form_quote(value)}",
        content_type="application/x-www-form-urlencoded",
        HTTP_HOST=HOST,
        **bearer(owner),
    )


FORM_BAD = [pytest.param(*v, id=k) for k, v in BAD.items() if k != "lone_surrogate"]


@pytest.mark.parametrize(("value", "message"), FORM_BAD)
def test_the_resubmit_form_refuses_bad_characters_in_its_free_text(
    client: Client, owner: User, value: str, message: str
) -> None:
    application = _application(owner)
    before = tenant_rows()

    response = _resubmit(client, owner, application, value)

    assert response.status_code == 400
    assert "free_text" in response.json()
    assert tenant_rows() == before


@pytest.mark.parametrize(("value", "message"), FORM_BAD)
def test_the_resubmit_form_names_the_bad_characters(
    client: Client, owner: User, value: str, message: str
) -> None:
    assert _resubmit(client, owner, _application(owner), value).json() == {"free_text": [message]}


@pytest.mark.parametrize("field", ["partner", "source", "registration_years", "skip_classifier"])
@pytest.mark.parametrize(("value", "message"), FORM_BAD)
def test_the_upload_form_refuses_bad_characters(
    client: Client, owner: User, field: str, value: str, message: str
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    before = tenant_rows()
    form = {"partner": "autohaus", "registration_years": str(timezone.localdate().year)}
    form[field] = value if field != "partner" else f"autohaus{value}"

    response = client.post(
        "/api/bev_registrations/",
        {**form, "zlb_scan": SimpleUploadedFile("scan.jpg", b"\xff\xd8" + b"0" * 4000, "image/jpeg")},
        HTTP_HOST=HOST,
        **bearer(owner),
    )

    assert response.status_code == 400
    assert response.json() == {field: [message]}
    assert tenant_rows() == before


def _form_quote(value: str) -> str:
    from urllib.parse import quote

    return quote(value)


def test_line_breaks_are_allowed_in_the_free_text_of_billing_only() -> None:
    assert text_problem("Zeile 1\r\nZeile 2\tx", multiline=True) is None
    assert text_problem("Zeile 1\nZeile 2") == INVALID_CHARACTERS


@pytest.mark.parametrize("text", ["Müller-Lüdenscheidt", "Straße 1/2", "Ørsted ©®™ GmbH", "李小龍", "Ἀθῆναι"])
def test_ordinary_letters_and_signs_pass(text: str) -> None:
    assert text_problem(text) is None


def test_a_password_may_hold_emoji_but_no_control_character(client: Client) -> None:
    # given: an e-mail proven by a login code, as before create_account
    with schema_context("p_autohaus"):
        user = UserFactory.create(email="emoji-pass@example.de")
        user.set_unusable_password()
        user.save()
    headers = bearer(user)

    refused = client.post(
        "/api/end_user_portal/create_account/",
        json.dumps({"password": "Sommer\x00Regen-2024!", "subdomain": "autohaus"}),
        content_type="application/json",
        HTTP_HOST=HOST,
        **headers,
    )

    assert refused.status_code == 400
    assert refused.json()["password"] == [INVALID_CHARACTERS]
    assert text_problem("Sommer😀Regen") == NO_EMOJIS  # ordinary text fields refuse it
    from common.text import password_problem

    assert password_problem("Sommer😀Regen-2024!") is None


@pytest.mark.parametrize(("value", "message"), [pytest.param(*v, id=k) for k, v in CONTROL.items()])
def test_the_b2b_placeholder_client_refuses_control_characters(
    client: Client, owner: User, value: str, message: str
) -> None:
    before = tenant_rows()

    response = client.post(
        "/api/clients/",
        json.dumps({"source": "b2b_fe", "first_name": value}),
        content_type="application/json",
        HTTP_HOST=HOST,
        **bearer(owner),
    )

    assert (response.status_code, response.json()) == (400, {"first_name": [message]})
    assert tenant_rows() == before
