"""Each demo partner's site in Chromium, against a gunicorn server on the test database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tenants.demo import DEMO_PARTNERS

PartnerUrl = Callable[..., str]
ACTIVE = [p for p in DEMO_PARTNERS if p["frontend_active"]]


def rgb(hex_color: str) -> str:
    value = hex_color.lstrip("#")
    red, green, blue = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgb({red}, {green}, {blue})"


@pytest.mark.parametrize("demo", ACTIVE, ids=[p["subdomain"] for p in ACTIVE])
def test_each_partner_shows_its_own_colour_logo_and_title(
    phone: Page, partner_url: PartnerUrl, demo: dict[str, Any]
) -> None:
    errors: list[str] = []
    phone.on("pageerror", lambda error: errors.append(str(error)))

    phone.goto(partner_url(demo["subdomain"]))

    start = phone.get_by_test_id("welcome-start")
    expect(start).to_be_visible()
    expect(start).to_have_text("Start")
    assert start.evaluate("el => getComputedStyle(el).backgroundColor") == rgb(
        demo["config"]["colors"]["button"]
    )
    expect(phone.get_by_test_id("partner-logo").first).to_have_attribute("src", demo["config"]["logo"])
    expect(phone).to_have_title(demo["config"]["page_title"])
    expect(phone.get_by_text(demo["config"]["pages"]["welcome"]["title"])).to_be_visible()
    assert errors == []


def test_the_wallbox_partner_shows_its_header_image_and_text(phone: Page, partner_url: PartnerUrl) -> None:
    wallbox = next(p for p in DEMO_PARTNERS if p["kind"] == "wallbox")

    phone.goto(partner_url("wallbox"))

    header = phone.get_by_test_id("wallbox-header-image")
    expect(header).to_be_visible()
    expect(header).to_have_attribute("src", wallbox["config"]["wallbox"]["header_image"])
    expect(phone.get_by_text(wallbox["config"]["wallbox"]["info_text"])).to_be_visible()


def test_other_partners_show_no_wallbox_header(phone: Page, partner_url: PartnerUrl) -> None:
    phone.goto(partner_url("autohaus"))

    expect(phone.get_by_test_id("welcome-start")).to_be_visible()
    expect(phone.get_by_test_id("wallbox-header-image")).to_have_count(0)


def test_the_deactivated_partner_shows_only_its_text(phone: Page, partner_url: PartnerUrl) -> None:
    for path in ("/", "/terms", "/b2b/login"):
        phone.goto(partner_url("inaktiv", path))

        expect(phone.get_by_text("Diese Website ist nicht aktiv.")).to_be_visible()
        expect(phone.get_by_test_id("welcome-start")).to_have_count(0)


def test_an_unknown_subdomain_gets_404(phone: Page, partner_url: PartnerUrl) -> None:
    response = phone.goto(partner_url("gibt-es-nicht"))

    assert response is not None
    assert response.status == 404


def test_a_partner_host_never_returns_another_partners_config(phone: Page, partner_url: PartnerUrl) -> None:
    phone.goto(partner_url("autohaus"))
    expect(phone.get_by_test_id("welcome-start")).to_be_visible()

    statuses = phone.evaluate(
        """async () => {
            const own = await fetch('/api/configs/autohaus/');
            const other = await fetch('/api/configs/stadtwerk/');
            const header = await fetch('/api/configs/stadtwerk/', {headers: {'X-SUBDOMAIN': 'stadtwerk'}});
            return [own.status, (await own.json()).subdomain, other.status, header.status];
        }"""
    )

    assert statuses == [200, "autohaus", 404, 400]  # a disagreeing X-SUBDOMAIN is refused


def test_the_desktop_welcome_offers_a_qr_code_of_the_current_url(
    desktop: Page, partner_url: PartnerUrl
) -> None:
    desktop.goto(partner_url("autohaus", "/?campaign=herbst"))

    qr = desktop.get_by_test_id("welcome-qr")
    expect(qr).to_be_visible()
    box = qr.bounding_box()
    assert box is not None
    assert (round(box["width"]), round(box["height"])) == (300, 300)
    expect(desktop.get_by_text("Weiter auf Desktop-Computer")).to_be_visible()


def test_the_query_string_is_kept_when_starting(phone: Page, partner_url: PartnerUrl) -> None:
    phone.goto(partner_url("autohaus", "/?campaign=herbst&email=a%40b.de"))

    phone.get_by_test_id("welcome-start").click()

    expect(phone).to_have_url(partner_url("autohaus", "/terms?campaign=herbst&email=a%40b.de"))
