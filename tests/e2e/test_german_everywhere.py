"""German everywhere a partner or an operator looks (issue 49), in Chromium at 1440 px against
the running server: a partner admin walks every page of the partner area (dashboard,
applications with the drawer and the move dialog, review, sub-partners, single deals, fleet
uploads and one upload's results, payout batches new and paid, prices, interfaces, audit log,
staff, data protection, "Mein Konto"); the back office and the platform operator walk every
Django admin page they use (each changelist, a change form, the add forms). Every page's
visible text, its title and its labels (aria-label, title, placeholder, alt, button values) are
checked for English words from a list, raw keys (snake_case, dotted action keys such as
`sub_partner.create`, `None`, `True`, missing i18n keys) and numbers or dates in English format
("12.50", "2026-11-29"). All findings of the walk are collected and reported together.

A partner of its own (provisioned for the test) holds what the pages show: generated
applications over the statuses with their history, sub-partners and a single deal, a paid and a
new payout batch, a fleet upload with an accepted and a refused file, an invite, a role change,
an API key, a price table; the audit log holds what those writes recorded."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from functools import partial
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.e2e.test_portal import django
from tests.staff_login import page_staff_login

PartnerUrl = Callable[..., str]
WIDE: ViewportSize = {"width": 1440, "height": 900}

SETUP = """
import json
from django.utils import timezone
from django_tenants.utils import schema_context
from accounts.models import User
from tenants.models import Partner
from tenants.services import partner_provision
from common.partner_config import PartnerConfig
from tenants.quota_years import allowed_registration_years
from tests.partner_staff import staff_member
from tests.staff_login import staff_device

base = Partner.objects.get(subdomain="stadtwerk")
year = allowed_registration_years(PartnerConfig.model_validate(base.config))[0]
this_year = timezone.localdate().year
config = {
    **base.config,
    "fees": [
        {"legislation_year": y, "vehicle_class": vehicle_class, "client_fee": "85.00", "vat_percentage": "19"}
        for y in range(this_year - 2, this_year + 2)
        for vehicle_class in ("M1", "N1", "M2", "N2")
    ],
    "display_vat": True,
    "payout_account": {"name": "Deutsch Test GmbH", "iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX"},
}
partner = partner_provision(subdomain="SUBDOMAIN", name="Deutsch Test GmbH", kind=base.kind, config=config)
member, password = staff_member(partner, role="partner_admin")
other, _ = staff_member(partner, role="back_office")
with schema_context(partner.schema_name):  # people's names, as the invite gives them
    member.name, other.name = "Petra Pohl", "Bernd Brandt"
    member.save(update_fields=["name"])
    other.save(update_fields=["name"])
operator = User.objects.create_superuser("OPERATOR", "OPERATOR@example.com", "PASSWORD")
staff_device(operator)
# an entry of the console's log with a configuration change, so its page is walked too
from tenants.audit import config_change_lists, console_audit_record, partner_snapshot
old, new = config_change_lists(base.config, {**config, "page_title": "Deutsch Test", "display_title_dot": True})
console_audit_record(
    actor=operator, action="draft", partner=partner, summary="Entwurf gespeichert",
    before={**old, "frontend_active": False}, after={**new, "frontend_active": True},
)
# a group of each admin with permissions, so its change form (the permission picker) is walked
from django.contrib.auth.models import Group, Permission
Group.objects.get_or_create(name="Onboarding SUBDOMAIN")[0].permissions.set(
    Permission.objects.filter(content_type__app_label="tenants", codename__startswith="view_")
)

from integrations.services import api_key_create
from operations.demo import applications_generate, demo_operations_ensure
from operations.models import BulkUpload, BulkUploadItem
from operations.services import sub_partner_update
from operations.settlement import settlement_batch_create, settlement_batch_mark_paid
from quota.models import QuotaApplication, QuotaStatus as S
from quota.services import quota_applications_move
from staff.services import staff_invite, staff_member_update

with schema_context(partner.schema_name):
    back_office = User.objects.create_user(
        "OPERATOR-bo", "OPERATOR-bo@example.com", "PASSWORD", is_staff=True, is_superuser=True
    )
    staff_device(back_office)
    Group.objects.create(name="Backoffice").permissions.set(
        Permission.objects.filter(content_type__app_label="quota", codename__in=["view_quotaapplication", "change_quotaapplication"])
    )
    sub_partners, deal = demo_operations_ensure()
    applications_generate(count=80, days=60, sub_partners=sub_partners, single_deal=deal, seed=49)
    sub_partner_update(actor=member, sub_partner=sub_partners[0], data={"fee_share_percent": "12.5"})
    entered = list(QuotaApplication.objects.filter(status=S.ENTERED).order_by("pk")[:3])
    quota_applications_move(applications=entered, status=S.PICKED_UP, actor=member.user, reason="Unterlagen vollständig")
    to_pay = list(QuotaApplication.objects.filter(status=S.TO_PAY).order_by("pk").values_list("pk", flat=True))
    settings = PartnerConfig.model_validate(partner.config)
    paid, _ = settlement_batch_create(config=settings, actor=member.user, filters={"ids": to_pay[:2]})
    settlement_batch_mark_paid(batch=paid, actor=member.user)
    fresh, _ = settlement_batch_create(config=settings, actor=member.user, filters={"ids": to_pay[2:4]})
    upload = BulkUpload.objects.create(
        status=BulkUpload.Status.READY, file_name="flotte-november.zip", size=123456, file_count=2, has_csv=True,
        csv_encoding="utf-8", registration_years=[year], created_by=member.user, finished_at=timezone.now(),
    )
    first = QuotaApplication.objects.order_by("pk").select_related("registration", "client").first()
    BulkUploadItem.objects.create(
        upload=upload, position=1, file_name="fahrzeug-1.jpg", sha256="a" * 64, size=1000,
        status=BulkUploadItem.Status.ACCEPTED, registration=first.registration, client=first.client,
        finished_at=timezone.now(),
    )
    BulkUploadItem.objects.create(
        upload=upload, position=2, file_name="fahrzeug-2.jpg", sha256="b" * 64, size=1000,
        status=BulkUploadItem.Status.REFUSED, error_code="UPLOAD003", finished_at=timezone.now(),
    )
    staff_invite(partner=partner, email="neu@SUBDOMAIN.example", name="Neue Kollegin", role="viewer", invited_by=member)
    staff_member_update(member=other, actor=member, role="viewer")
    api_key_create(actor=member, name="Flottenverwaltung", scope="read")
    print(json.dumps({
        "email": member.user.email, "password": password, "user_id": member.user_id, "schema": partner.schema_name,
        "application": first.pk, "upload": upload.pk, "batches": [paid.pk, fresh.pk],
    }))
"""

CODE = """
from tests.partner_staff import totp_code_for
print(totp_code_for("SCHEMA", USER_ID))
"""

ADMIN_CODE = """
from django_tenants.utils import schema_context
from accounts.models import User
from tests.staff_login import staff_device, totp_code
with schema_context("SCHEMA"):
    print(totp_code(staff_device(User.objects.get(username="USERNAME"))))
"""

# English as it shows up in a German product: the words of buttons, messages, statuses and
# labels. Case matters: "Status", "Name", "Filter", "Code", "Export", "Version", "Partner",
# "Dashboard", "Team", "Upload", "Download", "Token" and "Link" are German words too (listed
# only in the forms German does not use), and German "was", "will", "an", "am", "in", "so", "per"
# are left out.
ENGLISH_WORDS = """
    Successfully successfully Success updated Updated created deleted changed Save save Delete delete
    Cancel Edit Add add Remove Close Search Submit Back Next Previous Yes No yes no None True False
    null undefined NaN Loading Error error Change History Actions Action Select selected Selected Show
    Hide Today Now Date Time Amount Total Count count Year year Legislation legislation Static static
    device devices Device Devices tokens Outstanding outstanding Blacklisted blacklisted status Statuses
    NEW PAID SETTLED READY FAILED PENDING Pending Active active Inactive Paid paid Settled Failed failed
    Rejected rejected Accepted accepted Refused refused Duplicate duplicate upload uploads download
    Batch batch Batches Payout payout Payouts Price Prices price prices Vehicle vehicle Owner owner
    Application Applications application applications Staff staff Members member members Role role
    Invite Invited invite invited Settings settings User user Users Group Groups Permissions
    permissions Welcome Recent View view site Unknown unknown Other other fleet Fleet Key key Keys keys
    Interfaces Audit audit Confidence confidence corrected Corrected reason Reason Number number name
    email Email Phone phone Street street City city Address address Comment Note note version Class
    class Type type First first registration Registration Energy energy code Fee fee fees VAT vat net
    gross Gross Net share Share Commission commission Statement statement Documents Document Approve
    approve approved Mark mark Pay pay Account account Reference reference Deliveries Delivery delivery
    Retry Resend Rotate Revoke revoke revoked Scope scope read write Read Write Last last used Used
    Never never expires Expires Expired expired Preview Draft draft Published published Enabled enabled
    Disabled disabled Done done Open open Closed closed Progress progress Processing processing Rollback
    rollback rolled new on at or is it be as if of the The to by for with from and you your You Your
    not has have are can must should please Please here there this This that these all All page
    Page Rows rows Columns Density Sort Items items Item item Owed owed Sum sum
    Search Choose
"""
ENGLISH = frozenset(ENGLISH_WORDS.split())
PHRASES = ("Log out", "View site", "Change password", "Rows per page", "No rows", "Static devices")
# Raw keys: snake_case tokens and dotted keys (an audit action, a missing translation), after
# e-mail addresses, web addresses, host names and file names are taken out.
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
DOTTED = re.compile(r"\b[a-z]{2,}(?:_[a-z]+)*\.[a-z]{2,}(?:[._][a-z]+)*\b")
ENGLISH_NUMBER = re.compile(r"(?<![\d.,])\d+\.\d{2}(?![\d.])|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b")
NOT_TEXT = re.compile(
    # the names of the fonts a partner may choose (common.partner_config.FontFamily)
    r"\bOpen Sans\b|\S+@\S+|https?://\S+|\b[\w.-]+\.(?:localhost|example|de|com|org)\b(?::\d+)?\S*"
    r"|(?i:\b[\w-]+\.(?:zip|jpe?g|png|pdf|csv|xlsx|xml|svg|json)\b)"
)
# a run of letters touching a digit is a code or a hash ("…24add58" once read as "add"), no word
WORD = re.compile(r"(?<![0-9A-Za-zÄÖÜäöüß])[A-Za-zÄÖÜäöüß]+(?![0-9A-Za-zÄÖÜäöüß])")


def findings(text: str) -> list[str]:
    """What in a page's text is English, a raw key or an English number."""
    found: list[str] = []
    found += [f"English phrase {phrase!r}" for phrase in PHRASES if phrase in text]
    clean = NOT_TEXT.sub(" ", text)
    for line in clean.splitlines():
        words = set(WORD.findall(line))
        english = sorted(words & ENGLISH)
        if english:
            found.append(f"English {english} in {line.strip()[:120]!r}")
        for pattern, kind in (
            (SNAKE, "raw key"),
            (DOTTED, "dotted key"),
            (ENGLISH_NUMBER, "English number/date"),
        ):
            for match in pattern.findall(line):
                found.append(f"{kind} {match!r} in {line.strip()[:120]!r}")
    return found


PAGE_TEXT = """() => {
  const parts = [document.title, document.body.innerText];
  for (const element of document.querySelectorAll("[aria-label],[title],[placeholder],[alt]")) {
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      const value = element.getAttribute(name);
      if (value) parts.push(value);
    }
  }
  for (const element of document.querySelectorAll("input[type=submit],input[type=button]")) parts.push(element.value);
  for (const element of document.querySelectorAll("select option")) parts.push(element.textContent);
  return parts.join("\\n");
}"""


def partner_login(page: Page, partner_url: PartnerUrl, subdomain: str, staff: dict[str, object]) -> None:
    """The partner area's login of the SETUP's partner admin: password, then the code."""
    page.goto(partner_url(subdomain, "/partner/login"))
    page.get_by_test_id("partner-username").fill(str(staff["email"]))
    page.get_by_test_id("partner-password").fill(str(staff["password"]))
    page.get_by_test_id("partner-login").click()
    code = django(CODE.replace("SCHEMA", str(staff["schema"])).replace("USER_ID", str(staff["user_id"])))
    page.get_by_test_id("partner-otp").fill(code.strip().splitlines()[-1])
    page.get_by_test_id("partner-otp-submit").click()
    page.wait_for_url(re.compile(r"/partner/(dashboard|applications)"))


def admin_code(schema: str, username: str) -> str:
    """A code the admin user's authenticator accepts now."""
    return django(ADMIN_CODE.replace("SCHEMA", schema).replace("USERNAME", username)).strip().splitlines()[-1]


class Walk:
    """Every page visited, with what it showed that is not German."""

    def __init__(self) -> None:
        self.pages: list[str] = []
        self.found: dict[str, list[str]] = {}

    def check(self, page: Page, name: str) -> None:
        page.wait_for_load_state("networkidle")
        expect(page.locator(".MuiCircularProgress-root, .MuiSkeleton-root")).to_have_count(0, timeout=20_000)
        self.pages.append(name)
        found = findings(page.evaluate(PAGE_TEXT))
        if found:
            self.found[name] = sorted(set(found))

    def report(self) -> str:
        return "\n".join(f"{name}:\n  " + "\n  ".join(items) for name, items in self.found.items())


def test_the_findings_filter_knows_english_from_german() -> None:
    assert findings("Successfully updated to status PAID")
    assert findings("2026: qa_created")
    assert findings("sub_partner.create")
    assert findings("Erstzulassung: None")
    assert findings("Prämie 12.50 €")
    assert findings("Static devices")
    assert not findings("Status: In Prüfung · 95,00 € · 29.11.2026 · Name · Filter · Partner-Admin")
    assert not findings("anna.albers@demo.example · flotte-november.zip · http://a.localhost:8000/partner")
    assert not findings("Schriftart: Open Sans")  # a font's name


def test_a_partner_and_an_operator_meet_german_everywhere(browser: Browser, partner_url: PartnerUrl) -> None:
    # Digits only: a random hex name is data the pages show, and its letters made English words
    # of the list ("operator-5803be" failed the walk on "be").
    subdomain = f"deutsch-{secrets.randbelow(10**6):06d}"
    operator, password = f"operator-{secrets.randbelow(10**6):06d}", "S3cure-Passw0rd!" + secrets.token_hex(2)
    setup = SETUP.replace("SUBDOMAIN", subdomain).replace("OPERATOR", operator).replace("PASSWORD", password)
    staff = json.loads(django(setup).strip().splitlines()[-1])
    walk = Walk()
    context = browser.new_context(viewport=WIDE, locale="de-DE")
    page = context.new_page()

    area = partner_url(subdomain, "/partner")
    partner_login(page, partner_url, subdomain, staff)

    walk.check(page, "dashboard")
    page.goto(area + "/applications")
    expect(page.locator(".MuiDataGrid-row").first).to_be_visible(timeout=20_000)
    walk.check(page, "applications")
    page.locator("[data-testid^=open-]").first.click()
    expect(page.get_by_test_id("detail-history")).to_be_visible(timeout=20_000)
    walk.check(page, "application drawer")
    page.get_by_test_id("drawer-close").click()
    page.locator(".MuiDataGrid-row").first.get_by_role("checkbox").check()
    page.get_by_test_id("bulk-move").click()
    walk.check(page, "move dialog")
    page.keyboard.press("Escape")
    for path in (
        "review",
        "sub-partners",
        "single-deals",
        "bulk-uploads",
        f"bulk-uploads/{staff['upload']}",
        "settlement-batches",
        *(f"settlement-batches/{batch}" for batch in staff["batches"]),
        "prices",
        "integrations",
        "audit",
        "staff",
        "privacy",
    ):
        page.goto(f"{area}/{path}")
        walk.check(page, path)
    page.get_by_role("button", name=re.compile("Petra Pohl")).first.click()
    walk.check(page, "account dialog")
    context.close()

    # the back office's Django admin on the partner's host, the operator's on the public host
    for host, username, label in (
        (partner_url(subdomain, ""), f"{operator}-bo", "back office"),
        (f"http://localhost:{urlsplit(partner_url(subdomain, '')).port}", operator, "operator"),
    ):
        context = browser.new_context(viewport=WIDE, locale="de-DE")
        page = context.new_page()
        schema = staff["schema"] if label == "back office" else "public"
        page_staff_login(
            page,
            base_url=host,
            username=username,
            password=password,
            code=partial(admin_code, schema, username),
        )
        page.goto(host + "/admin/")
        walk.check(page, f"{label}: admin index")
        models = sorted(
            {
                urlsplit(href).path
                for href in page.locator("#content-main a").evaluate_all("links => links.map(a => a.href)")
                if re.fullmatch(r"/admin/\w+/\w+/", urlsplit(href).path)
            }
        )
        assert models, "the admin index lists no models"
        for changelist in models:
            if changelist in EXCLUDED_ADMIN:
                continue  # with its change and add forms
            page.goto(host + changelist)
            walk.check(page, f"{label}: {changelist}")
            first = page.locator("#result_list tbody tr").first.locator("th a, td a").first
            if first.count():
                href = first.get_attribute("href") or ""
                page.goto(host + href if href.startswith("/") else host + changelist + href)
                walk.check(page, f"{label}: {changelist} (change form)")
            if changelist + "add/" in EXCLUDED_ADMIN:
                continue
            page.goto(host + changelist + "add/")
            if "/add/" in page.url and page.locator("#content-main form").count():
                walk.check(page, f"{label}: {changelist}add/")
        context.close()

    assert len(walk.pages) > 20, walk.pages
    assert not walk.found, "English or raw keys:\n" + walk.report()


# Pages left out of the walk: none. (The group form was, until its permission picker named
# permissions in German: accounts.admin.GroupAdmin.)
EXCLUDED_ADMIN: set[str] = set()
