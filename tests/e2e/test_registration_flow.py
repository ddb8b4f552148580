"""The registration flow in Chromium against the running server (spec/registration-flow.md):
every demo partner kind to Finish, once with the code and once with the link, on a phone and
on a desktop; the B2B flow and the keyboard alone. The error paths a user meets are in
test_registration_paths.py."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import FileChooser, Page, expect

from tests.e2e.conftest import SCAN_CHECK_MS
from tests.e2e.flow_helpers import (
    accept_terms,
    axe_check,
    billing,
    code_from,
    document,
    log_in,
    mail_to,
    new_address,
    patch_config,
    upload,
)

PartnerUrl = Callable[..., str]


@pytest.mark.parametrize(
    ("subdomain", "flow", "viewport"),
    [
        ("autohaus", "link", "phone"),
        ("autohaus", "otp", "desktop"),
        ("stadtwerk", "otp", "phone"),
        ("stadtwerk", "link", "desktop"),
        ("wallbox", "link", "desktop"),
        ("wallbox", "otp", "phone"),
    ],
)
def test_the_whole_flow_to_finish(
    request: pytest.FixtureRequest, partner_url: PartnerUrl, subdomain: str, flow: str, viewport: str
) -> None:
    page: Page = request.getfixturevalue(viewport)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The partner's real configuration, with the login method of this run (and Finish
    # instead of the portal, which has its own tests).
    patch_config(page, authentication_flow=flow, end_user_portal_enable=False)
    page.route(
        "https://voltbox.example/**", lambda route: route.fulfill(body="Danke", content_type="text/plain")
    )
    address = new_address()

    page.goto(partner_url(subdomain, "/?campaign=e2e"))
    axe_check(page, "welcome")
    if viewport == "desktop":
        page.get_by_text("Weiter auf Desktop-Computer").click()
    page.get_by_test_id("welcome-start").click()
    page.get_by_test_id("terms-submit").click()  # nothing ticked: the rules speak
    # No year chosen yet: the year message, not the current-year terms message (spec section 5).
    expect(
        page.locator(
            '[data-testid="error-years"], [data-testid="error-currentYear"], [data-testid="error-nextYear"]'
        )
    ).to_be_visible()
    expect(page.get_by_test_id("error-terms")).to_have_count(0)
    axe_check(page, "terms with errors")
    accept_terms(page)
    axe_check(page, "login")
    log_in(page, address, flow)
    axe_check(page, "upload")
    upload(page, document("zlb-a.jpg"))
    expect(page).to_have_url(re.compile(r"/validation/\d+"), timeout=SCAN_CHECK_MS)
    expect(page.get_by_text("Fahrzeugschein erfolgreich registriert")).to_be_visible()
    axe_check(page, "validation")
    page.get_by_test_id("validation-next").click()
    expect(page.get_by_test_id("billing-first_name")).to_be_visible()
    page.get_by_test_id("billing-review").click()  # empty: every field's message
    expect(page.get_by_test_id("error-first_name")).to_be_visible()
    axe_check(page, "billing with errors")
    billing(page, subdomain)

    expect(page).to_have_url(re.compile(r"/finish"))
    expect(page.get_by_test_id("finish-quote")).to_contain_text(re.compile(r"\d{6}"))
    if subdomain != "wallbox":
        axe_check(page, "finish")
    if subdomain == "wallbox":
        expect(page.get_by_test_id("finish-countdown")).to_contain_text("Sekunden")
        page.wait_for_url("https://voltbox.example/danke", timeout=10_000)
    assert errors == []


def test_the_portal_partner_goes_to_the_portal_after_billing(phone: Page, partner_url: PartnerUrl) -> None:
    address = new_address()
    phone.goto(partner_url("stadtwerk", "/terms"))
    accept_terms(phone)
    log_in(phone, address, "otp")
    upload(phone, document("zlb-a.jpg"))
    phone.get_by_test_id("validation-next").click(timeout=SCAN_CHECK_MS)
    billing(phone, "stadtwerk")
    expect(phone.get_by_test_id("portal-wait")).to_be_visible()
    phone.wait_for_url(re.compile(r"/portal/registrations"), timeout=10_000)


def test_the_b2b_flow(desktop: Page, partner_url: PartnerUrl) -> None:
    address = new_address()
    patch_config(desktop, authentication_flow="otp")
    desktop.goto(partner_url("autohaus", "/b2b?campaign=b2b-e2e"))
    expect(desktop).to_have_url(re.compile(r"/b2b/welcome"))
    desktop.get_by_test_id("welcome-start").click()
    log_in(desktop, address, "otp", b2b=True)
    expect(desktop).to_have_url(re.compile(r"/b2b/upload"))
    upload(desktop, document("zlb-a.jpg"))
    expect(desktop).to_have_url(re.compile(r"/b2b/validation"), timeout=SCAN_CHECK_MS)
    desktop.get_by_test_id("validation-next").click()
    expect(desktop).to_have_url(re.compile(r"/b2b/finish\?campaign=b2b-e2e"))
    expect(desktop.get_by_role("heading", level=1)).to_be_visible()


def _tab_to(page: Page, test_id: str, limit: int = 40) -> None:
    """Tab forward until the element with the test id (or its input) has the focus (once the
    screen that holds it is there: a screen's chunk may still be loading)."""
    page.get_by_test_id(test_id).first.wait_for()
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement?.closest('[data-testid]')?.getAttribute('data-testid')"
        )
        if focused == test_id:
            return
    raise AssertionError(f"{test_id} cannot be reached with the Tab key")


def test_the_flow_works_with_the_keyboard_alone(desktop: Page, partner_url: PartnerUrl) -> None:
    patch_config(desktop, authentication_flow="otp")
    desktop.goto(partner_url("autohaus", "/terms"))
    desktop.get_by_test_id("terms-submit").wait_for()
    for check in ("check-currentYear", "check-terms"):
        _tab_to(desktop, check)
        desktop.keyboard.press("Space")
    _tab_to(desktop, "terms-submit")
    desktop.keyboard.press("Enter")
    expect(desktop).to_have_url(re.compile(r"/login"))
    address = new_address()
    _tab_to(desktop, "login-email")
    desktop.keyboard.type(address)
    sent = time.time() - 1
    desktop.keyboard.press("Enter")
    expect(desktop).to_have_url(re.compile(r"/codevalidation"))
    # The code input has the focus on arrival: the six digits are typed straight away.
    expect(desktop.get_by_test_id("code-input")).to_be_focused()
    desktop.keyboard.type(code_from(mail_to(address, after=sent, matching="Bestätigungscode")))
    expect(desktop).to_have_url(re.compile(r"/upload"))
    _tab_to(desktop, "upload-choose")
    chosen: list[FileChooser] = []
    desktop.on("filechooser", lambda chooser: chosen.append(chooser))
    # Playwright turns the chooser interception on without waiting: give it a moment.
    desktop.wait_for_timeout(300)
    desktop.keyboard.press("Enter")
    for _ in range(50):
        if chosen:
            break
        desktop.wait_for_timeout(100)
    assert chosen, "Enter on 'Datei auswählen' opened no file chooser"
    chosen[0].set_files(document("zlb-a.jpg"))
    expect(desktop).to_have_url(re.compile(r"/validation"), timeout=SCAN_CHECK_MS)
