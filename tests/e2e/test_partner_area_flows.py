"""The partner area's paths that begin or end outside it (issue 16), in Chromium against the
running server: a partner admin invites staff, the invited person sets a password, enrols the
authenticator and logs in for the first time; an owner registers through a sub-partner's
`?ref=` link, the back office finds the application under that sub-partner, moves it, and the
owner's portal card shows the move. axe on every screen on the way."""

from __future__ import annotations

import base64
import json
import re
import secrets
import time
from collections.abc import Callable

from django_otp.oath import TOTP
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import DESKTOP
from tests.e2e.flow_helpers import axe_check, mail_to, new_address
from tests.e2e.test_portal import django, register_and_sign_up

PartnerUrl = Callable[..., str]

ADMIN = """
import json
from tenants.models import Partner
from tests.partner_staff import staff_member

member, password = staff_member(Partner.objects.get(subdomain="stadtwerk"), role="ROLE")
print(json.dumps({"email": member.user.email, "password": password, "user_id": member.user_id}))
"""

CODE = """
from tenants.models import Partner
from tests.partner_staff import totp_code_for
print(totp_code_for(Partner.objects.get(subdomain="stadtwerk").schema_name, USER_ID))
"""

ROWS = """
from django_tenants.utils import schema_context
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory

with schema_context(Partner.objects.get(subdomain="stadtwerk").schema_name):
    ApplicationFactory.create_batch(3)
    AuditEntry.objects.create(actor_id=USER_ID, action="sub_partner.create", object_type="sub_partner",
                              object_id="1", after={"name": "Elektro Test"})
"""

SUB_PARTNER = """
from decimal import Decimal
from django_tenants.utils import schema_context
from operations.models import SubPartner
from tenants.models import Partner

with schema_context(Partner.objects.get(subdomain="stadtwerk").schema_name):
    SubPartner.objects.create(name="NAME", referral_key="KEY", fee_share_percent=Decimal("5.00"))
"""


def staff_of_stadtwerk(role: str) -> dict[str, object]:
    return json.loads(django(ADMIN.replace("ROLE", role)).strip().splitlines()[-1])


def log_in(page: Page, partner_url: PartnerUrl, email: str, password: str, code: Callable[[], str]) -> None:
    """The partner area's login: password, then the authenticator's code."""
    page.goto(partner_url("stadtwerk", "/partner/login"))
    page.get_by_test_id("partner-username").fill(email)
    page.get_by_test_id("partner-password").fill(password)
    page.get_by_test_id("partner-login").click()
    page.get_by_test_id("partner-otp").fill(code())
    page.get_by_test_id("partner-otp-submit").click()
    page.wait_for_url(re.compile(r"/partner/(dashboard|applications)"))


def totp(secret: str, *, ahead: int = 0) -> str:
    """What an authenticator app shows for the base32 secret the enrolment screen printed, now
    or `ahead` steps of 30 s later (the server accepts one step of drift, and each step once)."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    generator = TOTP(key, step=30, digits=6)
    generator.time = time.time() + 30 * ahead
    return f"{generator.token():06d}"


def next_code(secret: str, used_at: float) -> str:
    """The authenticator's code after the one it showed at `used_at`: the next step's while that
    step has not begun, else the current one. The server takes each step once and follows the
    app's drift: a code of one step verified in the next (a boundary passed while the page sent
    it) sets the drift to one step back, and then a code one step ahead is refused (django-otp,
    OTP_TOTP_SYNC; the clean-clone CI of c938fee under load)."""
    return totp(secret, ahead=1 if time.time() // 30 == used_at // 30 else 0)


def test_invited_staff_set_a_password_enrol_the_authenticator_and_log_in(
    desktop: Page, browser: Browser, partner_url: PartnerUrl
) -> None:
    admin = staff_of_stadtwerk("partner_admin")
    log_in(
        desktop,
        partner_url,
        str(admin["email"]),
        str(admin["password"]),
        lambda: django(CODE.replace("USER_ID", str(admin["user_id"]))).strip().splitlines()[-1],
    )

    # the partner admin invites a back-office colleague
    address = new_address()
    desktop.get_by_role("link", name="Mitarbeiter").click()
    form = desktop.get_by_test_id("staff-invite-form")
    form.get_by_test_id("invite-name").fill("Bea Backoffice")
    form.get_by_test_id("invite-email").fill(address)
    form.get_by_test_id("invite-role").click()
    desktop.get_by_role("option", name="Backoffice", exact=True).click()
    sent = time.time() - 1
    form.get_by_test_id("invite-send").click()
    expect(desktop.get_by_test_id("staff-invited")).to_be_visible(timeout=20_000)
    axe_check(desktop, "staff with the invite sent")

    # the mail's link opens the invite in another browser
    text = mail_to(address, after=sent)
    match = re.search(r"/partner/invite/([A-Za-z0-9_-]+)", text)
    assert match, text
    context = browser.new_context(viewport=DESKTOP, locale="de-DE")
    page = context.new_page()
    try:
        page.goto(partner_url("stadtwerk", f"/partner/invite/{match.group(1)}"))
        expect(page.get_by_test_id("invite-form")).to_contain_text(address)
        axe_check(page, "invite")
        password = "Bea-" + secrets.token_urlsafe(12)
        page.get_by_test_id("invite-password").fill(password)
        page.get_by_test_id("invite-password-again").fill(password)
        page.get_by_test_id("invite-submit").click()

        # enrolment: the QR code and the secret for typing; the app's first code
        expect(page.get_by_test_id("enrol-qr").first).to_be_visible(timeout=20_000)
        axe_check(page, "enrolment")
        secret = page.get_by_test_id("enrol-secret").inner_text().strip()
        enrolled = time.time()
        page.get_by_test_id("enrol-token").fill(totp(secret))
        page.get_by_test_id("enrol-submit").click()
        codes = page.get_by_test_id("backup-codes")
        expect(codes).to_be_visible(timeout=20_000)
        axe_check(page, "backup codes")
        page.get_by_test_id("codes-done").click()
        page.wait_for_url(re.compile(r"/partner/(dashboard|applications)"))
        expect(page.get_by_test_id("partner-who")).to_contain_text("Bea Backoffice")

        # log out; the first login of her own: password, then the authenticator's next code
        page.get_by_test_id("partner-logout").click()
        page.wait_for_url(re.compile(r"/partner/login"))
        log_in(page, partner_url, address, password, lambda: next_code(secret, enrolled))
        expect(page.get_by_test_id("partner-who")).to_contain_text("Bea Backoffice")
        # a back-office member has no staff page
        expect(page.get_by_role("link", name="Mitarbeiter")).to_have_count(0)
        axe_check(page, "first login")
    finally:
        context.close()

    # the partner admin's staff list shows her as back office
    desktop.reload()
    expect(desktop.get_by_test_id("staff-table")).to_contain_text(address, timeout=20_000)


def test_an_owner_from_a_ref_link_is_attributed_and_sees_the_partners_move(
    desktop: Page, browser: Browser, partner_url: PartnerUrl
) -> None:
    key = "e2e-" + secrets.token_hex(3)
    name = f"Solar {key}"
    django(SUB_PARTNER.replace("NAME", name).replace("KEY", key))

    # the owner comes through the sub-partner's link, registers and signs up to the portal
    address = register_and_sign_up(desktop, partner_url, seed=16, query=f"?ref={key}")
    card = desktop.get_by_test_id("registration-card")
    expect(card).to_have_count(1)

    # the back office finds the application by the owner's e-mail, under the sub-partner
    staff = staff_of_stadtwerk("back_office")
    # on a wide screen: below 1400 px the list's sub-partner column steps aside
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="de-DE")
    office = context.new_page()
    try:
        log_in(
            office,
            partner_url,
            str(staff["email"]),
            str(staff["password"]),
            lambda: django(CODE.replace("USER_ID", str(staff["user_id"]))).strip().splitlines()[-1],
        )
        office.goto(partner_url("stadtwerk", f"/partner/applications?q={address}"))
        rows = office.locator(".MuiDataGrid-row")
        expect(rows).to_have_count(1, timeout=20_000)
        expect(rows.first).to_contain_text(name)
        axe_check(office, "applications of the owner")
        rows.first.get_by_role("checkbox").check()
        office.get_by_test_id("bulk-move").click()
        dialog = office.get_by_role("dialog")
        dialog.get_by_test_id("move-status").click()
        office.get_by_role("option", name="Vom Partner abgelehnt", exact=True).click()
        dialog.get_by_test_id("move-reason").fill("Fahrzeugschein unleserlich")
        dialog.get_by_test_id("move-submit").click()
        expect(dialog.get_by_test_id("move-summary")).to_have_text(
            "1 verschoben, 0 abgelehnt.", timeout=20_000
        )
        dialog.get_by_test_id("move-close").click()

        # the sub-partner's filter shows it too
        office.goto(partner_url("stadtwerk", "/partner/sub-partners"))
        expect(office.get_by_text(name)).to_be_visible(timeout=20_000)
    finally:
        context.close()

    # the owner's card shows the partner's move and its reason
    desktop.reload()
    current = desktop.locator("[data-position=current]")
    expect(current).to_contain_text("Vom Partner abgelehnt", timeout=20_000)
    expect(current.get_by_test_id("timeline-subtitle")).to_have_text("Fahrzeugschein unleserlich")
    axe_check(desktop, "registrations after the partner's move")


def test_the_two_grids_are_accessible_with_a_horizontal_scroll(
    phone: Page, desktop: Page, partner_url: PartnerUrl
) -> None:
    """The applications and the audit grid (MUI X Data Grid) on a phone, where their columns
    scroll sideways inside the grid, and on the desktop."""
    admin = staff_of_stadtwerk("partner_admin")
    django(ROWS.replace("USER_ID", str(admin["user_id"])))
    for page in (phone, desktop):
        log_in(
            page,
            partner_url,
            str(admin["email"]),
            str(admin["password"]),
            lambda: django(CODE.replace("USER_ID", str(admin["user_id"]))).strip().splitlines()[-1],
        )
        page.goto(partner_url("stadtwerk", "/partner/applications"))
        expect(page.locator(".MuiDataGrid-row").first).to_be_visible(timeout=20_000)
        scroller = page.locator(".MuiDataGrid-virtualScroller").first
        if page is phone:
            assert scroller.evaluate("(node) => node.scrollWidth > node.clientWidth")
        axe_check(page, "applications grid")
        page.goto(partner_url("stadtwerk", "/partner/applications?q=niemand-hier"))
        expect(page.get_by_test_id("list-empty")).to_be_visible(timeout=20_000)
        axe_check(page, "applications grid, empty")
        page.goto(partner_url("stadtwerk", "/partner/audit"))
        expect(page.locator(".MuiDataGrid-row").first).to_be_visible(timeout=20_000)
        axe_check(page, "audit grid")
