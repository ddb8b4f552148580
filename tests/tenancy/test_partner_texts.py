"""Partner texts reflow (issue 51): a single line break inside a paragraph is a space, a blank
line parts paragraphs; done where the HTML is sanitised, so whatever is stored and served
flows with the screen."""

from __future__ import annotations

import base64
import importlib
import json

import pytest
from django.apps import apps
from django.test import Client

from common.partner_config import config_normalise, reflow_text
from tenants.demo import TERMS
from tenants.models import ConfigVersion, Partner

HARD_BROKEN = "Wir vermarkten die Quote für das gewählte\nQuotenjahr.\n\nZweiter Absatz\nmit Umbruch."


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def unb64(text: str) -> str:
    return base64.b64decode(text).decode()


def test_single_breaks_become_spaces_and_blank_lines_paragraphs() -> None:
    assert reflow_text(HARD_BROKEN) == (
        "<p>Wir vermarkten die Quote für das gewählte Quotenjahr.</p><p>Zweiter Absatz mit Umbruch.</p>"
    )


def test_a_list_item_keeps_its_own_line_and_the_text_its_inline_markup() -> None:
    text = (
        "Bedingungen:\n1. Erstens gilt diese Bedingung für jedes Fahrzeug, das Sie anmelden, über\n"
        "zwei Zeilen\n2) Zweitens\n- drittens mit <strong>Nachdruck</strong>"
    )

    assert reflow_text(text) == (
        "<p>Bedingungen:<br>1. Erstens gilt diese Bedingung für jedes Fahrzeug, das Sie anmelden, über "
        "zwei Zeilen<br>2) Zweitens<br>- drittens mit <strong>Nachdruck</strong></p>"
    )


def test_a_block_of_short_lines_is_an_address_and_keeps_its_lines() -> None:
    # an impressum typed as plain lines: joining them would run the address into one line
    impressum = (
        "Muster GmbH\nMusterstraße 1\n10115 Berlin\n\nVertreten durch die Geschäftsführerin\nErika Muster"
    )

    assert reflow_text(impressum) == (
        "<p>Muster GmbH<br>Musterstraße 1<br>10115 Berlin</p>"
        "<p>Vertreten durch die Geschäftsführerin Erika Muster</p>"
    )
    # a wrapped paragraph is not a set of lines, however many lines it has
    wrapped = (
        "Wir verarbeiten Ihre E-Mail-Adresse, die Daten Ihres Fahrzeugscheins und\n"
        "Ihre Auszahlungsdaten ausschließlich, um Ihre THG-Quote anzumelden\nund auszuzahlen."
    )
    assert "<br>" not in reflow_text(wrapped)


def test_every_html_text_of_the_configuration_is_reflowed_and_sanitised_in_one_place() -> None:
    config = config_normalise(
        {
            "impressum_details": "Wir vermarkten die Quote für das gewählte\nQuotenjahr.<script>x()</script>",
            "data_privacy_text": HARD_BROKEN,
            "partneradvertisement": {"freetext": HARD_BROKEN},
            "pages": {"faq": [{"question": "Wann?", "answer": HARD_BROKEN}]},
        }
    )

    assert config["impressum_details"] == "<p>Wir vermarkten die Quote für das gewählte Quotenjahr.</p>"
    for text in (
        config["data_privacy_text"],
        config["partneradvertisement"]["freetext"],
        config["pages"]["faq"][0]["answer"],
    ):
        assert text == reflow_text(HARD_BROKEN)
    # a text on one line is left as it was written
    assert config_normalise({"data_privacy_text": "Kurz."})["data_privacy_text"] == "Kurz."


def test_html_with_its_own_structure_keeps_it_and_its_breaks_are_spaces() -> None:
    assert (
        reflow_text("<p>Eins\nzwei</p>\n\n<ul>\n<li>drei</li>\n</ul>")
        == "<p>Eins zwei</p> <ul> <li>drei</li> </ul>"
    )
    assert reflow_text("Adresse<br>\nStraße 1") == "Adresse<br> Straße 1"
    assert reflow_text("") == ""


@pytest.mark.django_db
def test_the_config_call_serves_the_demo_terms_reflowed(client: Client) -> None:
    # given the demo terms as written: hard breaks mid-sentence ("gewählte / Quotenjahr")
    assert "gewählte\nQuotenjahr" in TERMS

    body = client.get("/api/configs/stadtwerk/", HTTP_HOST="stadtwerk.localhost").json()

    terms = unb64(body["pages"]["termsdetails"]["text"])
    assert "\n" not in terms
    assert "für das gewählte Quotenjahr zu vermarkten." in terms
    assert terms.startswith(
        "<p>Teilnahmebedingungen für die Vermarktung der THG-Quote</p><p>1. Sie übertragen"
    )
    assert "zu vermarkten.<br>2. Voraussetzung" in terms


@pytest.mark.django_db
def test_the_designer_preview_shows_the_text_as_it_will_be_stored(client: Client) -> None:
    payload = {"config": {"pages": {"privacydetails": {"text": b64(HARD_BROKEN)}}}}

    response = client.post(
        "/api/config_previews/", json.dumps(payload), content_type="application/json", HTTP_HOST="localhost"
    )

    assert response.status_code == 200
    assert unb64(response.json()["pages"]["privacydetails"]["text"]) == reflow_text(HARD_BROKEN)


@pytest.mark.django_db
def test_the_migration_reflows_texts_stored_before_and_moves_the_config_version_on() -> None:
    # given a partner and a version whose terms were stored with hard breaks (as before)
    partner = Partner.objects.get(subdomain="autohaus")
    config = json.loads(json.dumps(partner.config))
    config["pages"]["termsdetails"]["text"] = b64(HARD_BROKEN)
    Partner.objects.filter(pk=partner.pk).update(config=config)
    version = ConfigVersion.objects.create(partner=partner, config=config)
    before = partner.config_version

    migration = importlib.import_module("tenants.migrations.0007_reflow_partner_texts")
    migration.reflow(apps, None)

    partner.refresh_from_db()
    version.refresh_from_db()
    assert unb64(partner.config["pages"]["termsdetails"]["text"]) == reflow_text(HARD_BROKEN)
    assert unb64(version.config["pages"]["termsdetails"]["text"]) == reflow_text(HARD_BROKEN)
    assert partner.config_version == before + 1


@pytest.mark.django_db
def test_the_config_call_serves_a_faq_answer_saved_in_the_console_reflowed(client: Client) -> None:
    # given an answer pasted with a hard break, saved through the configuration schema
    partner = Partner.objects.get(subdomain="stadtwerk")
    submitted = json.loads(json.dumps(partner.config))
    submitted["pages"]["faq"][0]["answer"] = HARD_BROKEN
    Partner.objects.filter(pk=partner.pk).update(
        config=config_normalise(submitted), config_version=partner.config_version + 1
    )

    body = client.get("/api/configs/stadtwerk/", HTTP_HOST="stadtwerk.localhost").json()

    answer = body["pages"]["faq"][0]["answer"]
    assert (
        answer
        == "<p>Wir vermarkten die Quote für das gewählte Quotenjahr.</p><p>Zweiter Absatz mit Umbruch.</p>"
    )


@pytest.mark.django_db
def test_the_second_migration_reflows_html_texts_stored_before() -> None:
    # given a partner and a draft whose FAQ answer and impressum were stored with hard breaks
    partner = Partner.objects.get(subdomain="autohaus")
    config = json.loads(json.dumps(partner.config))
    config["pages"]["faq"][0]["answer"] = HARD_BROKEN
    config["impressum_details"] = "Muster GmbH\nMusterstraße 1\n10115 Berlin"
    Partner.objects.filter(pk=partner.pk).update(config=config)
    version = ConfigVersion.objects.create(partner=partner, config=config)
    before = partner.config_version

    migration = importlib.import_module("tenants.migrations.0009_reflow_partner_html")
    migration.reflow(apps, None)
    migration.reflow(apps, None)  # again: nothing left to change

    partner.refresh_from_db()
    version.refresh_from_db()
    for stored in (partner.config, version.config):
        assert stored["pages"]["faq"][0]["answer"] == reflow_text(HARD_BROKEN)
        assert stored["impressum_details"] == "<p>Muster GmbH<br>Musterstraße 1<br>10115 Berlin</p>"
    assert partner.config_version == before + 1
