"""What owners notice on their screens (issue 51), in Chromium against the running server: the
heading a screen focuses for screen readers shows no ring when the page was opened without a
key (a mail link, a redirect) and shows one after a key press; the error colour a field shows
stays clearly apart from the partner's primary for every demo partner. (The logo's text
height, the advertisement against the title and the title's dot are checked on every screen
by flow_helpers.layout_check, which axe_check runs.)"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tenants.demo import DEMO_PARTNERS
from tests.e2e.flow_helpers import layout_check
from themes.perceptual import STATUS_DISTANCE, colour_distance

PartnerUrl = Callable[..., str]
ACTIVE = [p for p in DEMO_PARTNERS if p["frontend_active"]]

FOCUSED_HEADING = """() => {
  const el = document.activeElement;
  if (!el || el.tagName !== 'H1') return null;
  const style = getComputedStyle(el);
  return { text: el.textContent, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
}"""


def hex_of(css: str) -> str:
    red, green, blue = (int(v) for v in re.findall(r"\d+", css)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


@pytest.mark.parametrize("path", ["/portal", "/portal/registrations", "/upload"])
def test_a_page_opened_without_a_click_focuses_its_title_without_a_ring(
    phone: Page, partner_url: PartnerUrl, path: str
) -> None:
    # a redirect moves the screen on (no session: to the portal's login, to the welcome)
    phone.goto(partner_url("autohaus", path))
    phone.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'H1'")

    heading = phone.evaluate(FOCUSED_HEADING)

    assert heading is not None
    assert heading["outline"] == "none" or heading["width"] == 0, heading
    layout_check(phone, f"arrived at {path}")


def test_a_title_reached_by_keyboard_shows_its_ring(phone: Page, partner_url: PartnerUrl) -> None:
    phone.goto(partner_url("autohaus", "/portal/auth/login"))
    link = phone.get_by_role("link", name="Konto mit Ihrer E-Mail-Adresse anlegen")
    link.focus()

    phone.keyboard.press("Enter")

    phone.wait_for_url("**/portal/auth/verify-email*")
    phone.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'H1'")
    heading = phone.evaluate(FOCUSED_HEADING)
    assert heading is not None and heading["outline"] == "solid" and heading["width"] >= 2, heading


@pytest.mark.parametrize("demo", ACTIVE, ids=[p["subdomain"] for p in ACTIVE])
def test_the_error_colour_is_clearly_apart_from_the_partners_primary(
    phone: Page, partner_url: PartnerUrl, demo: dict[str, Any]
) -> None:
    phone.goto(partner_url(demo["subdomain"], "/portal/auth/login"))
    submit = phone.get_by_test_id("portal-login")

    submit.click()  # empty fields: each says it is required, in the error colour

    helper = phone.locator(".MuiFormHelperText-root.Mui-error").first
    expect(helper).to_be_visible()
    error = hex_of(helper.evaluate("(el) => getComputedStyle(el).color"))
    primary = hex_of(submit.evaluate("(el) => getComputedStyle(el).backgroundColor"))
    assert primary == demo["config"]["colors"]["button"]
    assert colour_distance(error, primary) >= STATUS_DISTANCE, (error, primary)
