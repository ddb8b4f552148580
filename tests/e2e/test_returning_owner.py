"""A returning owner in Chromium (issue 21): a second vehicle in the same browser, from the
portal's "Neue Registrierung": the e-mail and the billing data are filled in, the IBAN only
masked, nothing of the first vehicle leaks into the second, both end on their own card."""

from __future__ import annotations

import re

import requests
from playwright.sync_api import Browser, Page, Route, expect

from tests.conftest import start_server
from tests.e2e.conftest import PHONE, SCAN_CHECK_MS
from tests.e2e.flow_helpers import axe_check, document, upload
from tests.e2e.test_portal import PASSWORD, PartnerUrl, register_and_sign_up


def test_a_second_vehicle_in_the_same_browser_is_prefilled_and_its_own(
    phone: Page, partner_url: PartnerUrl
) -> None:
    errors: list[str] = []
    phone.on("pageerror", lambda error: errors.append(str(error)))
    register_and_sign_up(phone, partner_url)
    first = set(re.findall(r"\b\d{6}\b", phone.get_by_test_id("registration-card").first.inner_text()))

    phone.get_by_test_id("new-registration").click()
    expect(phone).to_have_url(re.compile(r"/terms"))
    # a new registration starts clean: no ticks of the first one
    expect(phone.get_by_test_id("check-terms")).not_to_be_checked()
    phone.get_by_test_id("check-terms").check()
    phone.get_by_test_id("terms-submit").click()
    # logged in through the portal: no second login, straight to the upload
    expect(phone).to_have_url(re.compile(r"/upload"))
    upload(phone, document("zlb-second-vehicle.jpg", seed=11))
    phone.get_by_test_id("validation-next").click(timeout=SCAN_CHECK_MS)

    # the billing data of the first vehicle, the IBAN masked; nothing typed
    expect(phone.get_by_test_id("billing-first_name")).to_have_value("Anna")
    expect(phone.get_by_test_id("billing-last_name")).not_to_have_value("")
    iban = phone.get_by_test_id("billing-account_iban")
    expect(iban).not_to_have_value(re.compile(r"0532 ?0130"))  # never the full stored IBAN
    axe_check(phone, "billing prefilled")
    phone.get_by_test_id("billing-review").click()
    expect(phone.get_by_test_id("billing-summary")).to_be_visible()
    # The wait overlay shows 3 s before the portal loads: the portal's page is held back until
    # axe has read the overlay (a held navigation keeps the current page alive).
    held: list[Route] = []
    portal = re.compile(r"/portal/registrations$")
    phone.route(
        portal,
        lambda route: held.append(route) if route.request.is_navigation_request() else route.continue_(),
    )
    phone.get_by_test_id("billing-submit").click()
    # Read through the page itself: Playwright's locators wait for the held navigation.
    # The message is announced: a visible status with text, not inside an aria-hidden backdrop.
    phone.wait_for_function(
        """() => {
          const status = document.querySelector('[data-testid=portal-wait] [role=status]');
          return Boolean(status && status.offsetParent && status.textContent.trim()
            && !status.closest('[aria-hidden=true]'));
        }"""
    )
    axe_check(phone, "portal wait overlay", settle=False)
    while not held:
        phone.wait_for_timeout(100)
    held[0].continue_()
    phone.unroute(portal)

    expect(phone).to_have_url(portal, timeout=15_000)
    cards = phone.get_by_test_id("registration-card")
    expect(cards).to_have_count(2, timeout=10_000)
    texts = [cards.nth(index).inner_text() for index in range(2)]
    numbers = [set(re.findall(r"\b\d{6}\b", text)) for text in texts]
    assert numbers[0] and numbers[1] and numbers[0] != numbers[1], texts
    assert first in numbers, (first, numbers)  # the first vehicle's card is unchanged
    assert errors == []


def test_a_new_device_waits_for_the_resend_with_a_countdown(
    browser: Browser, phone: Page, partner_url: PartnerUrl
) -> None:
    """The portal's code step (a new device) offers 'Code erneut senden' only after the minute,
    counting down visibly instead of failing twice."""
    address = register_and_sign_up(phone, partner_url)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="de-DE")
    page = context.new_page()  # another device: no device cookie, so the e-mailed code is asked
    page.goto(partner_url("stadtwerk", "/portal/auth/login"))
    page.get_by_test_id("portal-username").fill(address)
    page.get_by_test_id("portal-password").fill(PASSWORD)
    page.get_by_test_id("portal-login").click()
    resend = page.get_by_test_id("portal-otp-resend")
    expect(resend).to_be_disabled(timeout=15_000)
    expect(resend).to_have_text(re.compile(r"Code erneut senden \(in \d+ s\)"))
    first = int(re.findall(r"\d+", resend.inner_text())[0])
    page.wait_for_timeout(2_100)
    assert int(re.findall(r"\d+", resend.inner_text())[0]) < first  # it counts down
    axe_check(page, "portal code step with countdown", settle=False)
    context.close()


def test_failures_of_others_behind_one_address_never_block_a_right_password(
    browser: Browser, phone: Page, partner_url: PartnerUrl
) -> None:
    """An office behind one address (a proxy that the server trusts, as in production): 25
    failed logins of other people from there, then a colleague's right password in Chromium
    goes on to the e-mailed code, not to 'wait'."""
    address = register_and_sign_up(phone, partner_url)
    process, port = start_server(
        workers=1,
        extra_env={
            "TRUSTED_PROXIES": "1",
            "LOGIN_SENDS_PER_ADDRESS_HOUR": "100000",
            "UPLOAD_LIMIT_PER_ADDRESS": "100000",
        },
    )
    office = {"X-Forwarded-For": "198.51.100.23"}
    try:
        base = f"http://stadtwerk.localhost:{port}"
        for index in range(25):
            sprayed = requests.post(
                f"http://127.0.0.1:{port}/api/auth/user/login/",
                json={"username": f"kollege{index}@example.org", "password": "Falsch-123!", "recaptcha": "x"},
                headers={**office, "Host": f"stadtwerk.localhost:{port}"},
                timeout=30,
            )
            assert sprayed.status_code in (401, 429), sprayed.text
        assert sprayed.status_code == 429  # the address is throttled for failing attempts by now
        context = browser.new_context(
            viewport=PHONE, is_mobile=True, locale="de-DE", extra_http_headers=office
        )
        page = context.new_page()
        page.goto(f"{base}/portal/auth/login")
        page.get_by_test_id("portal-username").fill(address)
        page.get_by_test_id("portal-password").fill(PASSWORD)
        page.get_by_test_id("portal-login").click()
        # the colleague is not told to wait: the code step (failures came from this address)
        expect(page.get_by_test_id("portal-otp")).to_be_visible(timeout=15_000)
        context.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
