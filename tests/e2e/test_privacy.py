"""Export and erasure in Chromium (issue 19): the owner asks for 'Meine Daten herunterladen' in
the portal, the mailed one-time link downloads the ZIP (once); then the owner erases the
account with the mailed code, is logged out and cannot log in again, and the payout record
the law requires stays, pseudonymised."""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from typing import Any

from playwright.sync_api import Page, expect

from tests.e2e.flow_helpers import code_from, mail_to
from tests.e2e.test_portal import PASSWORD, PartnerUrl, django, register_and_sign_up

SEED = 13  # a vehicle of its own (another test's VIN would make this one a double registration)


def _state(address: str) -> dict[str, Any]:
    """What the database holds for the address, read in a process of its own."""
    out = django(
        "import json\n"
        "from django_tenants.utils import schema_context\n"
        "from accounts.models import User\n"
        "from billing.models import Client\n"
        "from privacy.models import ConsentRecord, RetainedPayout\n"
        "from registrations.models import BevRegistration\n"
        "with schema_context('p_stadtwerk'):\n"
        f"    user = User.objects.filter(email={address!r}).first()\n"
        "    print(json.dumps({\n"
        "        'user': user is not None,\n"
        "        'clients': Client.objects.filter(owner=user).count() if user else 0,\n"
        "        'registrations': BevRegistration.objects.filter(owner=user).count() if user else 0,\n"
        "        'consents': ConsentRecord.objects.filter(user=user).count() if user else 0,\n"
        "        'payouts': [[p.pseudonym, p.account_iban, p.status] for p in RetainedPayout.objects.all()],\n"
        "    }))\n"
    )
    return json.loads(out.strip().splitlines()[-1])


def test_the_owner_exports_then_erases_and_cannot_log_in_again(phone: Page, partner_url: PartnerUrl) -> None:
    address = register_and_sign_up(phone, partner_url, seed=SEED)
    # the application was paid out: its record is what tax law keeps after the erasure
    django(
        "from django_tenants.utils import schema_context\n"
        "from quota.models import QuotaApplication\n"
        "with schema_context('p_stadtwerk'):\n"
        f"    QuotaApplication.objects.filter(registration__owner__email={address!r}).update(status='qa_paid')\n"
    )
    before = _state(address)
    # the flow's terms and privacy notice, and the portal signup's terms
    assert before["user"] and before["consents"] == 3

    # --- export: asked in the portal, mailed as a one-time link
    panel = phone.get_by_test_id("privacy-panel")
    expect(panel.get_by_test_id("data-export")).to_have_text("Meine Daten herunterladen")
    asked = time.time() - 1
    panel.get_by_test_id("data-export").click()
    expect(phone.get_by_text(re.compile("schicken Ihnen in wenigen Minuten einen Link"))).to_be_visible()
    text = mail_to(address, after=asked, matching="data_export/")
    link = re.search(r"https?://\S+/api/end_user_portal/data_export/\S+/", text)
    assert link, text
    assert link.group(0).startswith(partner_url("stadtwerk", "/api/"))

    with phone.expect_download() as download_info:
        phone.evaluate("url => { window.location.href = url; }", link.group(0))
    download = download_info.value
    assert download.suggested_filename == "meine-daten.zip"
    path = download.path()
    assert path is not None
    with open(path, "rb") as handle:
        archive = zipfile.ZipFile(io.BytesIO(handle.read()))
    names = set(archive.namelist())
    assert {
        "LIESMICH.txt", "account.json", "registrations.json", "billing.json", "history.json", "consents.json",
        "devices.json",
    } <= names  # fmt: skip
    scans = [n for n in names if n.startswith("scans/")]
    assert any(n.endswith("-display.jpg") for n in scans), names  # the redacted copy
    assert archive.read(next(n for n in scans if n.endswith("-display.jpg")))[:3] == b"\xff\xd8\xff"
    assert json.loads(archive.read("account.json"))["email"] == address
    assert json.loads(archive.read("billing.json"))[0]["account_iban"] == "DE89370400440532013000"
    consents = json.loads(archive.read("consents.json"))
    assert {c["kind"] for c in consents if "version" in c} == {"terms", "privacy"}

    # the link works once
    again = phone.goto(link.group(0))
    assert again is not None and again.status == 404
    phone.go_back()

    # --- erasure: asked in the portal, confirmed with the mailed code
    phone.goto(partner_url("stadtwerk", "/portal/registrations"))
    panel = phone.get_by_test_id("privacy-panel")
    panel.get_by_test_id("erasure-open").click()
    dialog = phone.get_by_test_id("erasure-dialog")
    asked = time.time() - 1
    dialog.get_by_test_id("erasure-send").click()
    code = code_from(mail_to(address, after=asked, matching="Löschung Ihrer Daten"))
    dialog.get_by_test_id("erasure-code").fill(code)
    dialog.get_by_test_id("erasure-confirm").click()

    # logged out, on the login, with the confirmation
    expect(phone).to_have_url(re.compile(r"/portal/auth/login"), timeout=15_000)
    expect(phone.get_by_text("Ihr Konto und Ihre Daten wurden gelöscht.")).to_be_visible()
    # the old session is gone: the list sends to the login again
    phone.goto(partner_url("stadtwerk", "/portal/registrations"))
    expect(phone).to_have_url(re.compile(r"/portal/auth/login"), timeout=15_000)

    # the password no longer opens anything
    phone.get_by_test_id("portal-username").fill(address)
    phone.get_by_test_id("portal-password").fill(PASSWORD)
    phone.get_by_test_id("portal-login").click()
    expect(phone.get_by_role("alert").first).to_be_visible(timeout=15_000)
    expect(phone).not_to_have_url(re.compile(r"/portal/registrations"))

    after = _state(address)
    assert after["user"] is False and after["clients"] == 0 and after["registrations"] == 0
    kept = [p for p in after["payouts"] if p not in before["payouts"]]
    assert len(kept) == 1
    pseudonym, iban, status = kept[0]
    assert status == "qa_paid" and iban == "DE89370400440532013000"
    assert address not in pseudonym and re.fullmatch(r"[0-9a-f]{64}", pseudonym)
