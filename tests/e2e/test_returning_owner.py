"""A returning owner in Chromium (issue 21): a second vehicle in the same browser, from the
portal's "Neue Registrierung": the e-mail and the billing data are filled in, the IBAN only
masked, nothing of the first vehicle leaks into the second, both end on their own card."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.flow_helpers import axe_check, document, upload
from tests.e2e.test_portal import PartnerUrl, register_and_sign_up


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
    phone.get_by_test_id("validation-next").click(timeout=20_000)

    # the billing data of the first vehicle, the IBAN masked; nothing typed
    expect(phone.get_by_test_id("billing-first_name")).to_have_value("Anna")
    expect(phone.get_by_test_id("billing-last_name")).not_to_have_value("")
    iban = phone.get_by_test_id("billing-account_iban")
    expect(iban).not_to_have_value(re.compile(r"0532 ?0130"))  # never the full stored IBAN
    axe_check(phone, "billing prefilled")
    phone.get_by_test_id("billing-review").click()
    expect(phone.get_by_test_id("billing-summary")).to_be_visible()
    phone.get_by_test_id("billing-submit").click()

    expect(phone).to_have_url(re.compile(r"/portal/registrations$"), timeout=15_000)
    cards = phone.get_by_test_id("registration-card")
    expect(cards).to_have_count(2, timeout=10_000)
    texts = [cards.nth(index).inner_text() for index in range(2)]
    numbers = [set(re.findall(r"\b\d{6}\b", text)) for text in texts]
    assert numbers[0] and numbers[1] and numbers[0] != numbers[1], texts
    assert first in numbers, (first, numbers)  # the first vehicle's card is unchanged
    assert errors == []
