"""The money path in Chromium against the running server (issue 17): a partner admin uploads a
ZIP of realistic scans with the owners' CSV and follows it to its per-file report; the
applications appear; the back office's moves are made by its services (its screens have their
own tests); a platform admin builds the UBA package of this partner in the platform admin
(downloaded, its manifest read) and imports the authority's answer there (a wrong row first:
refused, nothing applied); the partner admin selects the rows in the applications grid and
creates a settlement batch of them, downloads the SEPA file (checked against the pain.001 XSD
here), marks the batch paid; the owner's portal card says "Ausgezahlt".

A partner of its own (provisioned for the test, like the demo partner with the portal) keeps
its fees, payout account and applications away from the other browser tests."""

from __future__ import annotations

import io
import json
import re
import secrets
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import xmlschema
from openpyxl import load_workbook
from playwright.sync_api import Browser, Page, expect

from tests.conftest import start_server
from tests.e2e.conftest import DESKTOP
from tests.e2e.flow_helpers import axe_check, code_from, mail_to
from tests.e2e.test_portal import django
from tests.fixtures.zlb.real import documents as real_documents
from tests.staff_login import page_staff_login

PartnerUrl = Callable[..., str]
PASSWORD = "Geld_Zurueck1!"

SETUP = """
import json
from decimal import Decimal
from tenants.models import Partner
from tenants.services import partner_provision
from common.partner_config import PartnerConfig
from tenants.quota_years import allowed_registration_years
from tests.partner_staff import staff_member

base = Partner.objects.get(subdomain="stadtwerk")
year = allowed_registration_years(PartnerConfig.model_validate(base.config))[0]
config = {
    **base.config,
    "fees": [
        {"legislation_year": year, "vehicle_class": vehicle_class, "client_fee": "85.00", "vat_percentage": "19"}
        for vehicle_class in ("M1", "N1", "M2", "N2")
    ],
    "display_vat": True,
    "payout_account": {"name": "Geld Test GmbH", "iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX"},
}
partner = partner_provision(subdomain="SUBDOMAIN", name="Geld Test GmbH", kind=base.kind, config=config)
member, password = staff_member(partner, role="partner_admin")
print(json.dumps({"email": member.user.email, "password": password, "user_id": member.user_id,
                  "schema": partner.schema_name, "year": year}))
"""

CODE = """
from tests.partner_staff import totp_code_for
print(totp_code_for("SCHEMA", USER_ID))
"""

# The back office's moves (its screens have their own tests): checked, then ready for the
# authority; a platform admin (superuser with an authenticator) for the UBA screens.
PICKED_UP = """
import json
from datetime import timedelta
from django.utils import timezone
from django_tenants.utils import schema_context
from privacy.models import ConsentRecord
from accounts.models import User
from quota.models import QuotaApplication, QuotaStatus as S
from operations.models import BulkUploadItem
from quota.services import quota_application_move
from registrations.services import registration_field_correct
from tests.staff_login import staff_device

with schema_context("SCHEMA"):
    # a VIN the reader missed (a loaded machine's Tesseract may time out) is typed in from the document
    vins = json.loads('VINS')
    for item in BulkUploadItem.objects.filter(registration__vin="").select_related("registration"):
        registration_field_correct(registration=item.registration, code="E", actor=None, actor_name="Backoffice",
                                   value=vins[item.file_name.rsplit("/", 1)[-1]])
        print("corrected", item.file_name)
    for application in QuotaApplication.objects.order_by("pk"):
        for status in (S.ENTERED, S.PICKED_UP):
            application = quota_application_move(application=application, status=status, actor=None, reason="e2e")
    # the owners agreed three weeks ago: their 14-day withdrawal period is over (authority.package)
    weeks_ago = timezone.now() - timedelta(days=21)
    QuotaApplication.objects.update(created_at=weeks_ago)
    ConsentRecord.objects.update(created_at=weeks_ago)
    print(json.dumps(list(QuotaApplication.objects.order_by("pk").values_list("status", flat=True))))
admin = User.objects.create_superuser("USERNAME", "USERNAME@example.com", "ADMIN_PASSWORD")
staff_device(admin)
"""

ADMIN_CODE = """
from accounts.models import User
from tests.staff_login import staff_device, totp_code
print(totp_code(staff_device(User.objects.get(username="USERNAME"))))
"""

# After the authority's answer: the back office releases the payout; the owner sets a password.
TO_PAY = """
import json
from django_tenants.utils import schema_context
from accounts.models import User
from quota.models import QuotaApplication, QuotaStatus as S
from quota.services import quota_application_move

with schema_context("SCHEMA"):
    answered = list(QuotaApplication.objects.order_by("pk").values_list("status", flat=True))
    for application in QuotaApplication.objects.order_by("pk"):
        quota_application_move(application=application, status=S.TO_PAY, actor=None, reason="e2e")
    owner = User.objects.get(email="OWNER")
    owner.set_password("PASSWORD")
    owner.save()
    print(json.dumps({"answered": answered, "now": [
        [a.status, a.registration.vehicle_type, a.client.account_iban]
        for a in QuotaApplication.objects.select_related("registration", "client").order_by("pk")]}))
"""


@pytest.fixture(scope="module")
def money_url(live_server_port: int) -> Iterator[PartnerUrl]:
    """A server of its own: with HUEY_IMMEDIATE the upload's files are read inside the upload
    request, longer than gunicorn's default 30 s worker timeout on a loaded machine (in
    production the huey workers do it and the request returns at once)."""
    process, port = start_server(
        extra_env={
            "GUNICORN_CMD_ARGS": "--timeout 600",
            "LOGIN_SENDS_PER_ADDRESS_HOUR": "100000",
            "UPLOAD_LIMIT_PER_ADDRESS": "100000",
        }
    )
    yield lambda subdomain, path="/": f"http://{subdomain}.localhost:{port}{path}"
    process.terminate()
    process.wait(timeout=10)


HEADER = "Dateiname;E-Mail;Anrede;Vorname;Nachname;Straße;Hausnummer;PLZ;Ort;IBAN;Haltertyp"


def archive_and_csv(tmp_path: Path, owners: list[str]) -> tuple[Path, Path, dict[str, str]]:
    """Two realistic ZB I (a clean scan and a scanner PDF) of vehicles no other test uses, and
    the VIN printed on each (by file name)."""
    samples = {
        "flotte/fahrzeug-1.jpg": real_documents.real_document(4241, "scan", "cousine", energy="0004"),
        "flotte/fahrzeug-2.pdf": real_documents.real_document(4244, "pdf", "cousine", energy="0004"),
    }
    files = {name: data for name, (data, _, _) in samples.items()}
    vins = {name.rsplit("/", 1)[-1]: expected["E"] for name, (_, expected, _) in samples.items()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    archive_path = tmp_path / "flotte.zip"
    archive_path.write_bytes(buffer.getvalue())
    rows = [
        f"fahrzeug-1.jpg;{owners[0]};Frau;Anna;Müller;Hauptstraße;1;10115;Berlin;DE89370400440532013000;privat",
        f"fahrzeug-2.pdf;{owners[1]};Herr;Jörg;Weiß;Lindenallee;22;50667;Köln;DE02120300000000202051;privat",
    ]
    csv_path = tmp_path / "halter.csv"
    csv_path.write_bytes(("\ufeff" + HEADER + "\r\n" + "\r\n".join(rows) + "\r\n").encode("utf-8"))
    return archive_path, csv_path, vins


def staff_login(page: Page, url: str, staff: dict[str, object]) -> None:
    page.goto(url)
    page.wait_for_url("**/partner/login?next=*")
    page.get_by_test_id("partner-username").fill(str(staff["email"]))
    page.get_by_test_id("partner-password").fill(str(staff["password"]))
    page.get_by_test_id("partner-login").click()
    code = django(CODE.replace("SCHEMA", str(staff["schema"])).replace("USER_ID", str(staff["user_id"])))
    page.get_by_test_id("partner-otp").fill(code.strip().splitlines()[-1])
    page.get_by_test_id("partner-otp-submit").click()


def test_from_a_bulk_upload_to_the_owners_paid_card(
    desktop: Page, browser: Browser, money_url: PartnerUrl, tmp_path: Path
) -> None:
    partner_url = money_url
    page = desktop
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    subdomain = "geld" + secrets.token_hex(3)
    staff = json.loads(django(SETUP.replace("SUBDOMAIN", subdomain)).strip().splitlines()[-1])
    admin_name = "plattform-" + secrets.token_hex(3)
    admin_password = "Plattform_" + secrets.token_hex(4) + "!"
    owners = [f"halterin-{secrets.token_hex(4)}@example.org", f"halter-{secrets.token_hex(4)}@example.org"]
    archive, owners_csv, printed_vins = archive_and_csv(tmp_path, owners)

    # the partner admin uploads the ZIP with the owners' CSV
    staff_login(page, partner_url(subdomain, "/partner/bulk-uploads"), staff)
    page.wait_for_url("**/partner/bulk-uploads")
    expect(page.get_by_test_id("list-empty")).to_be_visible(timeout=20_000)
    page.get_by_test_id("bulk-add").click()
    page.get_by_test_id("bulk-archive").set_input_files(archive)
    page.get_by_test_id("bulk-csv").set_input_files(owners_csv)
    expect(page.get_by_test_id("bulk-archive-name")).to_contain_text("flotte.zip")
    axe_check(page, "bulk upload dialog")
    page.get_by_test_id("bulk-send").click()

    # its report: every file read by the flow's own intake, an application each
    page.wait_for_url(re.compile(r"/partner/bulk-uploads/\d+$"), timeout=240_000)
    progress = page.get_by_test_id("bulk-progress")
    expect(progress).to_contain_text("2 von 2 Scans verarbeitet", timeout=240_000)
    expect(progress).to_contain_text("Angenommen: 2")
    expect(page.get_by_test_id("bulk-summary")).to_contain_text("Alle Registrierungen angelegt")
    expect(page.get_by_test_id("item-status-0")).to_have_text("Angenommen")
    expect(page.get_by_text(re.compile(r"\d{4}: Registrierung eingegangen"))).to_have_count(2)
    page.get_by_role("link", name="Anträge").click()
    expect(page.locator(".MuiDataGrid-row")).to_have_count(2, timeout=20_000)

    # the back office checks both: ready for the authority
    checked = django(
        PICKED_UP.replace("SCHEMA", staff["schema"])
        .replace("VINS", json.dumps(printed_vins))
        .replace("USERNAME", admin_name)
        .replace("ADMIN_PASSWORD", admin_password)
    )
    assert json.loads(checked.strip().splitlines()[-1]) == ["qa_picked_up", "qa_picked_up"], checked

    # the platform admin builds the UBA package of this partner on the public host's admin
    console = partner_url("www").replace("www.localhost", "localhost").rstrip("/")
    platform = browser.new_context(viewport=DESKTOP, locale="de-DE", accept_downloads=True)
    admin = platform.new_page()
    admin.on("pageerror", lambda error: errors.append(str(error)))
    page_staff_login(
        admin,
        base_url=console,
        username=admin_name,
        password=admin_password,
        code=lambda: django(ADMIN_CODE.replace("USERNAME", admin_name)).strip().splitlines()[-1],
    )
    admin.goto(console + "/admin/authority/authoritysubmission/add/")
    admin.fill("#id_legislation_year", str(staff["year"]))
    admin.get_by_role("button", name="Bereite Anträge anzeigen").click()
    ours = admin.locator(f"#partner-{subdomain}")
    expect(ours).to_be_checked()
    expect(admin.locator("#submission-candidates tr", has=ours)).to_contain_text(
        re.compile(r"\)\s*2\s*0\s*$")
    )
    # other partners of the shared test database wait for a package of their own
    for box in admin.locator("#submission-candidates input[name=partners]").all():
        if box.get_attribute("id") != f"partner-{subdomain}" and box.is_checked():
            box.uncheck()
    admin.get_by_role("button", name="Paket erstellen und Anträge übermitteln").click()
    admin.wait_for_url(re.compile(r"/admin/authority/authoritysubmission/\d+/change/$"), timeout=120_000)
    expect(admin.locator(".messagelist")).to_contain_text("das Paket wird erstellt")

    # the package as the authority takes it: {VIN}_{year}.pdf per vehicle and its spreadsheet
    with admin.expect_download() as package_info:
        admin.get_by_role("link", name="ZIP herunterladen").first.click()
    package = zipfile.ZipFile(package_info.value.path())
    year = staff["year"]
    sheet = load_workbook(io.BytesIO(package.read(f"UBA_{subdomain}_{year}.xlsx"))).active
    rows = [list(row) for row in sheet.iter_rows(min_row=2, max_row=3, values_only=True)]
    vins = [str(row[2]) for row in rows]
    assert sorted(vins) == sorted(printed_vins.values()), (vins, printed_vins)
    assert all(row[4] == "Elektro" and row[7] == 2000 for row in rows), rows
    assert sorted(package.namelist()) == sorted(
        [f"UBA_{subdomain}_{year}.xlsx", *(f"{vin}_{year}.pdf" for vin in vins)]
    )

    # the authority's answer: a row of a vehicle not in the package refuses all of it
    admin.get_by_role("link", name="Antwort einspielen").click()
    wrong = tmp_path / "antwort-falsch.csv"
    wrong.write_text(f"VIN;result;reason\n{vins[0]};accepted;\nWVWZZZ1KZAW999999;accepted;\n")
    admin.set_input_files("#id_answer", wrong)
    admin.get_by_role("button", name="Antwort einspielen").click()
    expect(admin.locator("#answer-problems")).to_contain_text(
        "WVWZZZ1KZAW999999 ist in dieser Einreichung unbekannt"
    )
    expect(admin.locator(".errorlist")).to_contain_text("nichts wurde geändert")
    answer = tmp_path / "antwort.csv"
    answer.write_text("VIN;result;reason\n" + "".join(f"{vin};accepted;\n" for vin in vins))
    admin.set_input_files("#id_answer", answer)
    admin.get_by_role("button", name="Antwort einspielen").click()
    expect(admin.locator(".messagelist")).to_contain_text("2 angenommen, 0 abgelehnt, 0 noch ohne Antwort")
    platform.close()

    # accepted by the authority; the back office releases the payout
    moved = django(
        TO_PAY.replace("SCHEMA", staff["schema"]).replace("OWNER", owners[0]).replace("PASSWORD", PASSWORD)
    )
    result = json.loads(moved.strip().splitlines()[-1])
    assert result["answered"] == ["qa_accepted", "qa_accepted"], result
    applications = result["now"]
    assert [status for status, _, _ in applications] == ["qa_to_pay", "qa_to_pay"], applications

    # a settlement batch of the rows selected in the applications grid
    page.reload()
    grid_rows = page.locator(".MuiDataGrid-row")
    expect(grid_rows).to_have_count(2, timeout=20_000)
    expect(grid_rows.first).to_contain_text("Zur Auszahlung freigegeben", timeout=20_000)
    settle = page.get_by_test_id("batch-from-selection")
    expect(settle).to_be_disabled()
    for row in range(2):
        grid_rows.nth(row).get_by_role("checkbox").check()
    expect(settle).to_have_text("Abrechnungslauf aus Auswahl (2)")
    settle.click()
    expect(page.get_by_test_id("batch-create-text")).to_contain_text("Die 2 ausgewählten Anträge")
    axe_check(page, "settlement batch from selection")
    page.get_by_test_id("batch-create-submit").click()
    page.wait_for_url(re.compile(r"/partner/settlement-batches/\d+$"), timeout=30_000)
    expect(page.get_by_test_id("batch-totals")).to_be_visible(timeout=20_000)
    assert page.get_by_test_id("batch-skipped").count() == 0, (
        page.get_by_test_id("batch-skipped").inner_text(),
        applications,
    )
    totals = page.get_by_test_id("totals-all")
    expect(totals).to_contain_text("170,00 €", timeout=20_000)  # two private owners, 85 € net each, no VAT
    expect(page.get_by_test_id("batch-status")).to_contain_text("Neu")
    axe_check(page, "settlement batch")

    # the SEPA file: downloaded by the browser, valid against the XSD, one transfer per owner
    with page.expect_download() as download_info:
        page.get_by_test_id("sepa-download").click()
    download = download_info.value
    assert re.fullmatch(r"THG-\d{8}-\d+-pain\.001\.001\.09\.xml", download.suggested_filename)
    xml = Path(download.path()).read_text(encoding="utf-8")
    from operations.sepa import XSD_DIR

    xmlschema.XMLSchema(str(XSD_DIR / "pain.001.001.09.xsd")).validate(xml)
    assert xml.count("<CdtTrfTxInf>") == 2
    assert "DE02120300000000202051" in xml and "Jorg Weiss" in xml
    assert "<CtrlSum>170.00</CtrlSum>" in xml

    # paid: said in German (the API keeps the spec's wording); the batch is 'Bezahlt'
    page.get_by_test_id("mark-paid").click()
    page.get_by_test_id("mark-paid-dialog-confirm").click()
    expect(page.get_by_test_id("mark-paid-done")).to_have_text(
        "Der Abrechnungslauf ist als bezahlt markiert.", timeout=20_000
    )
    expect(page.get_by_test_id("batch-status")).to_contain_text("Bezahlt")
    expect(page.get_by_test_id("mark-paid")).to_have_count(0)

    # the owner's portal card says so
    context = browser.new_context(viewport=DESKTOP, locale="de-DE")
    owner = context.new_page()
    owner.goto(partner_url(subdomain, "/portal/auth/login"))
    owner.get_by_test_id("portal-username").fill(owners[0])
    owner.get_by_test_id("portal-password").fill(PASSWORD)
    asked = time.time() - 1
    owner.get_by_test_id("portal-login").click()
    expect(owner).to_have_url(re.compile(r"/portal/auth/otp/\d+$"), timeout=20_000)
    owner.get_by_test_id("portal-otp").fill(
        code_from(mail_to(owners[0], after=asked, matching="Bestätigungscode"))
    )
    expect(owner).to_have_url(re.compile(r"/portal/registrations$"), timeout=20_000)
    card = owner.get_by_test_id("registration-card")
    expect(card).to_have_count(1)
    expect(card.locator("[data-position=current]")).to_contain_text("Ausgezahlt")
    context.close()
    assert not errors, errors
