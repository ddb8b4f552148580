"""Erasure (GDPR Art. 17): asked in the portal, confirmed by a mailed code; everything not kept
by law is deleted at once, payout records are kept pseudonymised; the owner cannot log in.
Partner admins run the same for a request received by mail (manage.py privacy_erase)."""

from __future__ import annotations

import io
import logging
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from accounts.models import User
from operations.models import SettlementBatch, SettlementItem
from privacy.models import RetainedPayout
from privacy.signals import erasure
from quota.models import QuotaApplication
from staff.models import AuditEntry
from tests.privacy.conftest import HOST, bearer, owner_with_everything, tables_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_autohaus")]
REQUEST = "/api/end_user_portal/erasure/"
CONFIRM = "/api/end_user_portal/erasure/confirm/"
PERSONAL = ("anna@example.de", "Annamann", "Geheimweg", "DE89370400440532013000", "UA anna@example.de")


def _code() -> str:
    match = re.search(r"\b(\d{6})\b", str(mail.outbox[-1].body))
    assert match
    return match.group(1)


def _files_text(root: Path) -> bytes:
    return b"\n".join(path.read_bytes() for path in root.rglob("*") if path.is_file())


def test_the_owner_erases_with_the_mailed_code_and_nothing_personal_remains(
    client: Client, django_capture_on_commit_callbacks: Any, media: Path
) -> None:
    # given an owner with every kind of data, one application paid out, and another owner
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000", paid=True)
    owner_with_everything("bert@example.de", "DE02120300000000202051")
    auth = bearer(anna)
    received: list[dict[str, Any]] = []

    def hook(**kwargs: Any) -> None:
        received.append(kwargs)

    erasure.connect(hook)
    try:
        # when she asks, a wrong code is refused, and the mailed code confirms
        with django_capture_on_commit_callbacks(execute=True):
            asked = client.post(REQUEST, HTTP_HOST=HOST, headers=auth)
        assert asked.status_code == 200, asked.content
        assert mail.outbox[-1].to == ["anna@example.de"]
        code = _code()
        wrong = client.post(CONFIRM, {"code": "000000" if code != "000000" else "111111"},
                            content_type="application/json", HTTP_HOST=HOST, headers=auth)  # fmt: skip
        assert wrong.status_code == 400 and wrong.json()["error_code"] == "PRIV003"
        with django_capture_on_commit_callbacks(execute=True):
            done = client.post(
                CONFIRM, {"code": code}, content_type="application/json", HTTP_HOST=HOST, headers=auth
            )
    finally:
        erasure.disconnect(hook)

    # then: gone from every table and file; the payout record is kept without personal data
    assert done.status_code == 200, done.content
    assert done.json()["detail"] == "Ihr Konto und Ihre Daten wurden gelöscht."
    rows = tables_text()
    for value in PERSONAL:
        assert value not in rows, value
    assert "bert@example.de" in rows  # the other owner is untouched
    assert b"anna@example.de" not in _files_text(media)
    assert b"bert@example.de" in _files_text(media)
    kept = RetainedPayout.objects.get()
    assert kept.account_iban == "DE89370400440532013000"  # encrypted at rest (not in `rows`)
    assert kept.retain_until.year >= 2036
    assert received and received[0]["schema_name"] == "p_autohaus" and received[0]["vins"]

    # and she can no longer use the portal
    assert (
        client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=HOST, headers=auth).status_code
        == 401
    )
    assert not User.objects.filter(email="anna@example.de").exists()


def test_five_wrong_codes_end_the_request(client: Client, django_capture_on_commit_callbacks: Any) -> None:
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000")
    auth = bearer(anna)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(REQUEST, HTTP_HOST=HOST, headers=auth)
    code = _code()
    wrong = "000000" if code != "000000" else "111111"

    answers = [
        client.post(CONFIRM, {"code": wrong}, content_type="application/json", HTTP_HOST=HOST, headers=auth)
        for _ in range(5)
    ]
    right = client.post(
        CONFIRM, {"code": code}, content_type="application/json", HTTP_HOST=HOST, headers=auth
    )

    assert [a.status_code for a in answers] == [400, 400, 400, 400, 429]
    assert right.status_code == 429 and right.json()["error_code"] == "PRIV004"
    assert User.objects.filter(pk=anna.pk).exists()


def test_a_new_code_waits_a_minute(client: Client, django_capture_on_commit_callbacks: Any) -> None:
    auth = bearer(owner_with_everything("anna@example.de", "DE89370400440532013000"))
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(REQUEST, HTTP_HOST=HOST, headers=auth).status_code == 200
        again = client.post(REQUEST, HTTP_HOST=HOST, headers=auth)
    assert again.status_code == 429 and again.json()["error_code"] == "PRIV005" and again["Retry-After"]


def test_a_partner_admin_erases_on_a_mailed_request_audited(
    django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    owner_with_everything("anna@example.de", "DE89370400440532013000")
    out = io.StringIO()

    call_command("privacy_erase", partner="autohaus", email="ANNA@example.de", stdout=out)
    assert User.objects.filter(email="anna@example.de").exists()  # without --yes: only shown

    with caplog.at_level(logging.INFO), django_capture_on_commit_callbacks(execute=True):
        call_command("privacy_erase", partner="autohaus", email="anna@example.de", yes=True, stdout=out)

    assert not User.objects.filter(email="anna@example.de").exists()
    audit = [r for r in caplog.records if r.name == "privacy.audit"]
    assert (
        len(audit) == 1 and "autohaus" in audit[0].getMessage() and "registrations 1" in audit[0].getMessage()
    )
    assert "anna@example.de" not in caplog.text
    entry = AuditEntry.objects.get(action="privacy.erasure")
    assert entry.actor_label == "System" and entry.after is not None
    assert entry.after["reference"].startswith("manage.py privacy_erase (operator ")
    assert entry.after["counts"]["registrations"] == 1
    with pytest.raises(CommandError):
        call_command("privacy_erase", partner="autohaus", email="nobody@example.de", yes=True, stdout=out)


def test_staff_accounts_are_not_erased_by_the_command() -> None:
    User.objects.create(username="staff@example.de", email="staff@example.de", is_staff=True)
    with pytest.raises(CommandError):
        call_command(
            "privacy_erase", partner="autohaus", email="staff@example.de", yes=True, stdout=io.StringIO()
        )


def test_an_owner_paid_in_a_settlement_batch_erases_in_the_portal_and_the_item_is_kept_pseudonymised(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    # given: Anna paid out in a settled batch (payee name and IBAN on the item, as paid)
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000", paid=True)
    application = QuotaApplication.objects.select_related("registration").get(registration__owner=anna)
    batch = SettlementBatch.objects.create(
        reference="THG-20250102-1",
        execution_date=timezone.localdate(),
        status=SettlementBatch.Status.SETTLED,
        paid_at=timezone.now(),
    )
    item = SettlementItem.objects.create(
        batch=batch, application=application, owner=anna, sequence=application.registration.sequence,
        legislation_year=application.legislation_year, method=SettlementItem.Method.SEPA,
        status=SettlementItem.Status.PAID, net=Decimal("85.00"), vat_percent=Decimal("0.00"),
        vat=Decimal("0.00"), gross=Decimal("85.00"), payee_name="Ina Annamann",
        iban="DE89370400440532013000", end_to_end_id="THG1-1-2025",
    )  # fmt: skip
    auth = bearer(anna)

    # when she erases with the mailed code
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(REQUEST, HTTP_HOST=HOST, headers=auth).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(
            CONFIRM, {"code": _code()}, content_type="application/json", HTTP_HOST=HOST, headers=auth
        )

    # then: erased; the item stays with its batch, amounts and IBAN as paid, without her
    assert done.status_code == 200, done.content
    rows = tables_text()
    for value in PERSONAL:
        assert value not in rows, value
    kept = SettlementItem.objects.get(pk=item.pk)
    assert (kept.application_id, kept.owner_id, kept.payee_name) == (None, None, "")
    assert (kept.gross, kept.status, kept.sequence) == (
        Decimal("85.00"),
        "paid",
        application.registration.sequence,
    )
    assert kept.iban == "DE89370400440532013000"  # encrypted at rest (not in `rows`)
    assert kept.pseudonym == RetainedPayout.objects.get().pseudonym
    assert not User.objects.filter(pk=anna.pk).exists()
