"""The registration flow's error paths in Chromium against the running server
(spec/registration-flow.md): a wrong code, images that are too small or no document, a wrong
IBAN or VAT ID, a deactivated partner, the guards of the flow's addresses, and the accessibility
of the screens the whole flows (test_registration_flow.py) do not pass. A file of its own so the
e2e round's workers share the flow's tests (pytest-xdist hands out whole files)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Request, expect

from tests.e2e.conftest import SCAN_CHECK_MS
from tests.e2e.flow_helpers import (
    IBAN,
    accept_terms,
    axe_check,
    document,
    fill_person,
    log_in,
    new_address,
    patch_config,
    upload,
)

PartnerUrl = Callable[..., str]


def test_a_wrong_code_is_ungueltiger_code(phone: Page, partner_url: PartnerUrl) -> None:
    phone.goto(partner_url("stadtwerk", "/terms"))
    accept_terms(phone)
    phone.get_by_test_id("login-email").fill(new_address())
    phone.get_by_test_id("login-submit").click()
    phone.get_by_test_id("code-input").fill("000000")
    expect(phone.get_by_text("Ungültiger Code")).to_be_visible()
    expect(phone).to_have_url(re.compile(r"/codevalidation"))


def _logged_in_upload(page: Page, partner_url: PartnerUrl) -> None:
    patch_config(page, authentication_flow="otp")
    page.goto(partner_url("autohaus", "/terms"))
    accept_terms(page)
    log_in(page, new_address(), "otp")


def test_a_too_small_image_gets_imgc001_with_its_numbers(desktop: Page, partner_url: PartnerUrl) -> None:
    _logged_in_upload(desktop, partner_url)
    upload(desktop, document("zlb-small.jpg", size=(420, 300)))
    expect(desktop.get_by_test_id("scan-error")).to_have_text(
        "Die Bildauflösung muss größer als 500x500 Pixel sein. Insgesamt darf das Bild nicht mehr als "
        "25.000.000 Pixel haben. Das hochgeladene Bild hat folgende Auflösung: 420x300 Pixel"
    )


def test_a_non_document_is_refused_twice_then_accepted_for_the_back_office(
    desktop: Page, partner_url: PartnerUrl
) -> None:
    _logged_in_upload(desktop, partner_url)
    uploads: list[str] = []

    def remember(request: Request) -> None:
        if request.url.endswith("/api/bev_registrations/") and request.method == "POST":
            uploads.append((request.post_data_buffer or b"").decode("latin-1"))

    desktop.on("request", remember)
    holiday = document("holiday.jpg", kind="photo")
    for _ in range(2):
        upload(desktop, holiday)
        expect(desktop.get_by_test_id("scan-error")).to_contain_text(
            re.compile("Bild nicht als ZLB klassifiziert|nicht als Zulassungsbescheinigung")
        )
        expect(desktop.get_by_test_id("upload-choose")).to_be_enabled()
    expect(desktop.get_by_test_id("scan-retry-hint")).to_be_visible()
    upload(desktop, holiday)
    expect(desktop).to_have_url(re.compile(r"/validation/\d+"), timeout=SCAN_CHECK_MS)
    assert ["skip_classifier" in body for body in uploads] == [False, False, True]


def _to_billing(page: Page, partner_url: PartnerUrl) -> None:
    _logged_in_upload(page, partner_url)
    upload(page, document("zlb-a.jpg"))
    page.get_by_test_id("validation-next").click(timeout=SCAN_CHECK_MS)
    expect(page).to_have_url(re.compile(r"/billing"))


def test_an_invalid_iban_is_refused(phone: Page, partner_url: PartnerUrl) -> None:
    _to_billing(phone, partner_url)
    fill_person(phone)
    phone.get_by_test_id("billing-account_name").fill("Anna Muster")
    phone.get_by_test_id("billing-account_iban").fill("DE89 3704 0044 0532 0130 01")
    expect(phone.get_by_test_id("billing-account_iban")).to_have_value("DE89370400440532013001")
    phone.get_by_test_id("billing-review").click()
    expect(phone.get_by_test_id("error-account_iban")).to_have_text("IBAN ist nicht gültig")
    expect(phone.get_by_test_id("billing-summary")).to_have_count(0)


def test_a_business_owner_with_a_vat_id(desktop: Page, partner_url: PartnerUrl) -> None:
    _to_billing(desktop, partner_url)
    fill_person(desktop)
    desktop.get_by_test_id("billing-vehicle_owner_type-business").check()
    desktop.get_by_test_id("billing-is_vat_mandatory-yes").check()
    desktop.get_by_test_id("billing-name_of_business").fill("Muster Logistik GmbH")
    desktop.get_by_test_id("billing-vat_number").fill("DE136695976")
    desktop.get_by_test_id("billing-account_name").fill("Muster Logistik GmbH")
    desktop.get_by_test_id("billing-account_name").focus()  # leaving the VAT field checks it
    expect(desktop.get_by_test_id("vat-valid")).to_be_visible()
    desktop.get_by_test_id("billing-account_iban").fill(IBAN)
    desktop.get_by_test_id("billing-review").click()
    expect(desktop.get_by_test_id("billing-summary")).to_contain_text("Muster Logistik GmbH")
    desktop.get_by_test_id("billing-submit").click()
    expect(desktop).to_have_url(re.compile(r"/finish"))


def test_a_wrong_vat_id_blocks_the_summary(desktop: Page, partner_url: PartnerUrl) -> None:
    _to_billing(desktop, partner_url)
    fill_person(desktop)
    desktop.get_by_test_id("billing-vehicle_owner_type-business").check()
    desktop.get_by_test_id("billing-is_vat_mandatory-yes").check()
    desktop.get_by_test_id("billing-name_of_business").fill("Muster GmbH")
    desktop.get_by_test_id("billing-vat_number").fill("DE123456789")
    desktop.get_by_test_id("billing-account_name").focus()
    expect(desktop.get_by_text("Ungültige USt. ID")).to_be_visible()


def test_the_deactivated_partner(phone: Page, partner_url: PartnerUrl) -> None:
    for path in ("/", "/terms", "/b2b/login", "/billing"):
        phone.goto(partner_url("inaktiv", path))
        expect(phone.get_by_text("Diese Website ist nicht aktiv.")).to_be_visible()
        expect(phone.get_by_test_id("welcome-start")).to_have_count(0)


def test_the_query_is_kept_and_guards_hold(phone: Page, partner_url: PartnerUrl) -> None:
    phone.goto(partner_url("autohaus", "/billing?campaign=q1"))
    expect(phone).to_have_url(re.compile(r"/terms\?campaign=q1$"))
    phone.goto(partner_url("autohaus", "/login?campaign=q1"))
    expect(phone).to_have_url(re.compile(r"/terms\?campaign=q1$"))
    phone.goto(partner_url("autohaus", "/b2b/upload?campaign=q1"))
    expect(phone).to_have_url(re.compile(r"/b2b/login\?campaign=q1$"))


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_the_other_screens_are_accessible(
    request: pytest.FixtureRequest, partner_url: PartnerUrl, viewport: str
) -> None:
    page: Page = request.getfixturevalue(viewport)
    for subdomain, path in [
        ("autohaus", "/faq"),
        ("autohaus", "/termsdetails"),
        ("autohaus", "/privacydetails"),
        ("stadtwerk", "/terms"),
        ("wallbox", "/"),
        ("autohaus", "/b2b/welcome"),
        ("autohaus", "/welcome"),
        ("inaktiv", "/"),
    ]:
        page.goto(partner_url(subdomain, path))
        page.locator("main, [role=alert]").first.wait_for()
        axe_check(page, f"{subdomain}{path}")
    page.goto(partner_url("stadtwerk", "/codevalidation?email=anna%40example.org"))
    page.get_by_test_id("code-input").fill("999999")
    expect(page.get_by_text("Ungültiger Code")).to_be_visible()
    axe_check(page, "code validation with error")
