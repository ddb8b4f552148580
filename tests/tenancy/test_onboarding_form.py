"""The configuration form: generated from PartnerConfig's schema (django-jsonform), in sections,
with colour pickers, sanitised HTML, per-field messages, and JSON import/export."""

import base64
import html
import json
import re
from typing import Any

import pytest
from django.test import Client
from pydantic import BaseModel

from accounts.models import User
from common.partner_config import Colors, Pages, PartnerConfig, config_normalise
from tenants.config_form import SECTIONS, config_form_schema, config_group, config_ungroup
from tenants.demo import DEMO_PARTNERS
from tenants.models import Partner
from tests.staff_login import client_staff_login


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def widget_config(page: str) -> dict[str, Any]:
    match = re.search(r'data-django-jsonform="([^"]+)"', page)
    assert match, "no django-jsonform widget on the page"
    return json.loads(html.unescape(match.group(1)))  # type: ignore[no-any-return]


def add(client: Client, config: dict[str, Any] | str, **fields: str) -> Any:
    data = {
        "subdomain": "formular",
        "name": "Formular GmbH",
        "kind": "standard",
        "frontend_active": "on",
        "config": config if isinstance(config, str) else json.dumps(config),
        "config_import": "",
        "custom_domain": "",
        **fields,
    }
    return client.post("/admin/tenants/partner/add/", data, HTTP_HOST="localhost")


def test_every_configuration_field_is_in_exactly_one_section() -> None:
    paths = [path for _, _, section_paths in SECTIONS for path in section_paths]
    expected = [name for name in PartnerConfig.model_fields if name != "pages"] + [
        f"pages.{name}" for name in Pages.model_fields
    ]

    assert sorted(paths) == sorted(expected)


@pytest.mark.parametrize("demo", DEMO_PARTNERS, ids=lambda d: d["subdomain"])
def test_grouping_is_lossless(demo: dict[str, Any]) -> None:
    config = config_normalise(demo["config"])

    grouped = config_group(config)

    assert config_normalise(config_ungroup(json.loads(json.dumps(grouped)))) == config
    # base64 HTML appears decoded in the form, as stored: reflowed into paragraphs
    assert grouped["rechtliches"]["termsdetails"]["text"].startswith("<p>Teilnahmebedingungen")


def test_the_schema_has_sections_colour_pickers_and_text_areas() -> None:
    schema = config_form_schema()

    assert list(schema["keys"]) == [key for key, _, _ in SECTIONS]
    assert schema["keys"]["marke"]["title"] == "Marke"
    assert schema["keys"]["marke"]["keys"]["colors"]["keys"]["button"]["format"] == "color"
    assert schema["keys"]["rechtliches"]["keys"]["impressum_details"]["widget"] == "textarea"
    assert schema["keys"]["ablauf"]["keys"]["authentication_flow"]["choices"] == [
        {"title": "Link per E-Mail", "value": "link"},
        {"title": "Code per E-Mail", "value": "otp"},
    ]
    assert schema["keys"]["jahre"]["keys"]["fees"]["type"] == "array"
    assert schema["keys"]["texte"]["keys"]["finish"]["keys"]["countdown_seconds"]["maximum"] == 600


def _untitled(model: type[BaseModel], prefix: str = "") -> list[str]:
    missing = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        if not info.title:
            missing.append(path)
        annotation = info.annotation
        for candidate in (annotation, *getattr(annotation, "__args__", ())):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                missing += _untitled(candidate, f"{path}.")
    return missing


def test_every_field_has_a_german_label_in_the_schema_and_the_form_shows_it() -> None:
    # one source: the schema's title and description are the form's label and help text
    assert _untitled(PartnerConfig) == []
    schema = config_form_schema()
    link = schema["keys"]["marke"]["keys"]["colors"]["keys"]["link"]
    assert link["title"] == Colors.model_fields["link"].title == "Links"
    assert link["help_text"] == Colors.model_fields["link"].description
    assert schema["keys"]["auszahlung"]["keys"]["payout_account"]["keys"]["iban"]["title"] == "IBAN"
    assert schema["keys"]["jahre"]["keys"]["fees"]["items"]["title"] == "Preis"
    assert [title for _, title, _ in SECTIONS] == [
        "Marke", "Texte", "Rechtliche Seiten", "Jahre und Preise", "Auszahlungskonto",
        "Anmeldung und Kundenportal", "E-Mails",
    ]  # fmt: skip

    # no schema key is shown as a label: every title is words, not a snake_case key
    def titles(node: dict[str, Any]) -> list[str]:
        found = [node["title"]]
        for child in node.get("keys", {}).values():
            found += titles(child)
        if "items" in node:
            found += titles(node["items"])
        for choice in node.get("choices", []):
            found.append(choice["title"])
        return found

    def helps(node: dict[str, Any]) -> list[str]:
        found = [node[key] for key in ("help_text", "description") if key in node]
        for child in [*node.get("keys", {}).values(), *([node["items"]] if "items" in node else [])]:
            found += helps(child)
        return found

    shown = titles(schema)
    assert [title for title in shown if re.search(r"[a-z]_[a-z]|^[a-z]+$", title)] == []
    # help texts are the fields' German descriptions, never a model's English docstring
    assert [text for text in helps(schema) if re.search(r"\b(the|and|of|is)\b", text)] == []


@pytest.mark.django_db
def test_the_add_page_shows_the_generated_form(staff: Client) -> None:
    page = staff.get("/admin/tenants/partner/add/", HTTP_HOST="localhost").content.decode()

    config = widget_config(page)
    assert config["schema"]["keys"]["marke"]["keys"]["colors"]["keys"]["circle"]["format"] == "color"
    assert "django_jsonform/react-json-form.js" in page
    assert 'name="config_import"' in page


@pytest.mark.django_db
def test_a_partner_is_created_from_the_forms_sections(staff: Client) -> None:
    # given the form's data as the widget posts it
    grouped = config_group(config_normalise({}))
    grouped["marke"]["page_title"] = "Formular – THG"
    grouped["marke"]["colors"]["button"] = "#1d4ed8"
    grouped["rechtliches"]["termsdetails"]["text"] = "<p>AGB</p><script>alert(1)</script>"
    grouped["rechtliches"]["impressum_details"] = '<p onclick="x()">Impressum</p>'
    grouped["marke"]["logo"] = ""

    # when
    response = add(staff, grouped)

    # then the configuration is stored in its own shape, HTML cleaned, base64 encoded again
    assert response.status_code == 302
    config = Partner.objects.get(subdomain="formular").config
    assert config["page_title"] == "Formular – THG"
    assert config["colors"]["button"] == "#1d4ed8"
    assert base64.b64decode(config["pages"]["termsdetails"]["text"]).decode() == "<p>AGB</p>"
    assert config["impressum_details"] == "<p>Impressum</p>"
    assert config["logo"] is None


@pytest.mark.django_db
def test_the_console_stores_pasted_texts_reflowed_and_shows_them_so(staff: Client) -> None:
    # given terms and a FAQ answer pasted from a document, hard breaks mid-sentence (issue 51)
    grouped = config_group(config_normalise({}))
    grouped["rechtliches"]["termsdetails"]["text"] = "Die Quote für das gewählte\nQuotenjahr.\n\nZweitens."
    grouped["texte"]["faq"] = [{"question": "Was?", "answer": "Die Prämie für das gewählte\nQuotenjahr."}]

    assert add(staff, grouped).status_code == 302

    # then the change page's form shows what is stored and served: the sentences whole
    partner = Partner.objects.get(subdomain="formular")
    page = staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    shown = json.loads(widget_config(page)["data"])  # the widget's data, as a JSON string
    assert (
        shown["rechtliches"]["termsdetails"]["text"]
        == "<p>Die Quote für das gewählte Quotenjahr.</p><p>Zweitens.</p>"
    )
    assert partner.config["pages"]["faq"][0]["answer"] == "<p>Die Prämie für das gewählte Quotenjahr.</p>"


@pytest.mark.django_db
def test_messages_are_put_on_the_fields_of_the_form(staff: Client) -> None:
    grouped = config_group(config_normalise({}))
    grouped["marke"]["colors"]["text"] = "#dddddd"
    grouped["texte"]["finish"]["redirect_url"] = "ftp://x"
    grouped["marke"]["item_alignment"] = "justify"

    response = add(staff, grouped)

    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    errors = widget_config(response.content.decode())["errorMap"]
    assert any("Zu wenig Kontrast" in m for m in errors["marke§colors§text"])
    assert errors["texte§finish§redirect_url"] == ["Bitte eine http(s)-Adresse angeben."]
    assert errors["marke§item_alignment"] == [
        "„justify“ ist nicht möglich. Bitte eine der angebotenen Möglichkeiten wählen: "
        "Links („left“), Mittig („center“) oder Rechts („right“)."
    ]
    assert (
        "Texte › Abschlussseite › Weiterleitung nach Abschluss (URL): Bitte eine http(s)-Adresse angeben."
        in page
    )
    # the form keeps what was typed
    assert widget_config(response.content.decode())["data"]
    assert not Partner.objects.filter(subdomain="formular").exists()


@pytest.mark.django_db
def test_json_import_replaces_the_form_and_export_gives_it_back(staff: Client) -> None:
    imported = {"page_title": "Importiert", "colors": {"button": "#123456"}, "authentication_flow": "otp"}

    response = add(staff, config_group(config_normalise({})), config_import=json.dumps(imported))

    assert response.status_code == 302
    partner = Partner.objects.get(subdomain="formular")
    assert partner.config["page_title"] == "Importiert"
    exported = staff.get(f"/admin/tenants/partner/{partner.pk}/export/", HTTP_HOST="localhost")
    assert exported["Content-Disposition"] == 'attachment; filename="formular-v1.json"'
    assert json.loads(exported.content) == partner.config


@pytest.mark.django_db
def test_an_imports_wrong_choices_are_named_by_their_german_labels(staff: Client) -> None:
    imported = {
        "gender_option": 4,
        "pages": {"payment": {"payment_option": "CASH"}},
        "partneradvertisement": {"type": "video"},
        "font_family": "Comic Sans",
    }

    response = add(staff, config_group(config_normalise({})), config_import=json.dumps(imported))

    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert (
        "Anmeldung und Kundenportal › Angebotene Anreden: „4“ ist nicht möglich. Bitte eine der angebotenen "
        "Möglichkeiten wählen: Frau, Herr („1“), Frau, Herr, divers („2“) oder Frau, Herr, divers, keine "
        "Angabe („3“)." in page
    )
    assert (
        "Auszahlungskonto › Auszahlungsseite › Auszahlungsart: „CASH“ ist nicht möglich. Bitte eine der angebotenen "
        "Möglichkeiten wählen: Keine Auszahlungsdaten abfragen („NONE“), Bankkonto („BANK“), Ladekarte "
        "(„CHARGECARD“), Bankkonto oder Ladekarte („BANKORCHARGECARD“) oder Bankkonto, Ladekarte optional "
        "(„BANKANDOPTIONALCHARGECARD“)." in page
    )
    assert (
        "„video“ ist nicht möglich. Bitte eine der angebotenen Möglichkeiten wählen: Bild („image“)" in page
    )
    # a font has no other name: its own, quoted
    assert (
        "„Comic Sans“ ist nicht möglich. Bitte eine der angebotenen Möglichkeiten wählen: „Open Sans“" in page
    )
    assert "'BANK'" not in page and "Input should be" not in page
    assert not Partner.objects.filter(subdomain="formular").exists()


@pytest.mark.django_db
def test_a_broken_import_is_refused_with_its_position(staff: Client) -> None:
    response = add(staff, "{}", config_import='{"page_title": }')

    assert response.status_code == 200
    assert "Kein gültiges JSON" in html.unescape(response.content.decode())
