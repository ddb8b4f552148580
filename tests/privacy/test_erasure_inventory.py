"""Erasure is complete (issue 47, item 3): one inventory (privacy.inventory) names every column
of every table that can hold an owner's data. An owner's values are seeded into every kind of
row there is; every column of every table of the partner's schema is then read (through the ORM,
encrypted columns decrypted) and each one holding a value of the owner must be inventoried; the
export (through HTTP) carries every inventoried column; after the erasure (through HTTP) no
column anywhere holds a value of the owner, except the IBAN that payout law keeps without a
name. Bulk rollback clears its items the same way."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.core import mail
from django.db import models
from django.test import Client

from accounts.models import User
from operations.models import BulkUpload, BulkUploadItem
from privacy.inventory import ERASED_VALUE, INVENTORY
from quota.models import QuotaApplication, StatusChange
from registrations.models import BevRegistration, FieldCorrection
from staff.audit import audit_record
from staff.models import AuditEntry
from tests.privacy.conftest import HOST, bearer, owner_with_everything

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_autohaus")]
IBAN = "DE75512108001245126199"
VIN = "WVWZYX47000000047"
EMAIL = "zyx47@example.de"
TEXT_FIELDS = (models.CharField, models.TextField, models.JSONField)


def _is_owners(value: Any) -> bool:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return "zyx" in text.lower() or IBAN in text


def columns_with_owner_values() -> set[tuple[str, str]]:
    """(model, column) of every table of the partner's schema where a value of the owner is."""
    tenant_apps = {name.rsplit(".", 1)[-1] for name in settings.TENANT_APPS}
    found = set()
    for model in apps.get_models():
        if model._meta.app_label not in tenant_apps or model._meta.proxy:
            continue
        for column in model._meta.concrete_fields:
            if not isinstance(column, TEXT_FIELDS) and not hasattr(column, "base_field"):
                continue
            if column.name == "password":
                # a salted hash holds none of her values, and its random base64 holds any three
                # letters now and then: a hash with "ZyX" in it failed a clean CI run
                continue
            values = model._default_manager.values_list(column.attname, flat=True)
            if any(_is_owners(value) for value in values if value not in (None, "", [], {})):
                found.add((model._meta.label, column.name))
    return found


def _seed() -> User:
    """Every kind of row that can hold the owner's data, each with a value of hers."""
    owner = owner_with_everything(EMAIL, IBAN, paid=True)
    registration = BevRegistration.objects.get(owner=owner)
    BevRegistration.objects.filter(pk=registration.pk).update(
        vin=VIN, plate="ZYX-47", holder_name="ZYXHOLDER", holder_first_names="ZYXFIRST INA"
    )
    FieldCorrection.objects.create(registration=registration, code="plate", before="ZYX-46", after="ZYX-47")
    application = QuotaApplication.objects.get(registration=registration)
    StatusChange.objects.create(
        application=application, status=application.status, reason="Frau Zyx47mann rief an"
    )
    # the audit log: a correction of the plate, an admin's change of the billing data
    audit_record(
        actor=None,
        action="registration.correct",
        obj=application,
        before={"field": "plate", "value": "ZYX-46"},
        after={"field": "plate", "value": "ZYX-47"},
    )
    audit_record(
        actor=None,
        action="admin.change",
        obj=application.client,
        before={"last_name": "Zyx47mann", "account_iban": IBAN},
        after={"last_name": "Zyx47mann-Neu", "account_iban": IBAN},
    )
    # a bulk upload's item with her CSV row and a file named after her
    upload = BulkUpload.objects.create(
        file_name="herbst.zip", size=1, file_count=1, status=BulkUpload.Status.READY, has_csv=True
    )
    BulkUploadItem.objects.create(
        upload=upload,
        position=1,
        file_name="zyx47mann-schein.jpg",
        sha256="0" * 64,
        size=1,
        owner_data=json.dumps({"email": EMAIL, "last_name": "Zyx47mann", "account_iban": IBAN}),
        status=BulkUploadItem.Status.ACCEPTED,
        error_details={"row": {"last_name": "Zyx47mann"}},
        registration=registration,
        client=application.client,
        owner=owner,
    )
    _payout_documents(owner, application)
    return owner


def _payout_documents(owner: User, application: QuotaApplication) -> None:
    """Her credit note (as a business, an invoice) and a payout statement (as a private owner),
    each with its settlement item in a paid batch: her name, address and VIN on both."""
    from decimal import Decimal

    from django.utils import timezone

    from operations.document_models import DocumentKind, PayoutDocument, VatMode
    from operations.models import SettlementBatch, SettlementItem

    batch = SettlementBatch.objects.create(
        reference="THG-47-1", execution_date=timezone.localdate(), status=SettlementBatch.Status.SETTLED
    )
    party = {"name": "Zyx47mann Solar GmbH", "person": "Ina Zyx47mann", "street": "Geheimweg 1",
             "postal_code": "10115", "city": "Berlin", "country": "DE", "vat_id": "DE123456789"}  # fmt: skip
    for n, (kind, mode) in enumerate(
        ((DocumentKind.CREDIT_NOTE, VatMode.STANDARD), (DocumentKind.PAYOUT_STATEMENT, VatMode.PRIVATE)), 1
    ):
        item = SettlementItem.objects.create(
            batch=batch, application=application if n == 1 else None, owner=owner, sequence=n,
            legislation_year=2026, method=SettlementItem.Method.SEPA, status=SettlementItem.Status.PAID,
            net=Decimal("85.00"), vat_percent=Decimal("0"), vat=Decimal("0"), gross=Decimal("85.00"),
            payee_name="Ina Zyx47mann", end_to_end_id=f"THG47-{n}",
        )  # fmt: skip
        PayoutDocument.objects.create(
            kind=kind, number=f"GS-47-{n}", sequence=n, item=item, application=application, owner=owner,
            issue_date=timezone.localdate(), service_date=timezone.localdate(), vat_mode=mode,
            owner_data=json.dumps(party), vin=VIN, legislation_year=2026, net=Decimal("85.00"),
            vat_percent=Decimal("0"), vat=Decimal("0"), gross=Decimal("85.00"),
            pdf_path=f"p_autohaus/payout_documents/GS-47-{n}.pdf",
        )  # fmt: skip


def _inventoried() -> set[tuple[str, str]]:
    return {(entry.model, column) for entry in INVENTORY for column in entry.columns}


def test_every_column_holding_an_owners_data_is_inventoried_exported_and_erased(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    # given: nothing of hers yet; then her values in every kind of row
    assert columns_with_owner_values() == set()
    owner = _seed()
    holding_her = columns_with_owner_values()

    # then every column that took one of her values is in the inventory
    assert holding_her - _inventoried() == set()
    # (and the seed reached what issue 47 found left behind)
    assert {
        ("operations.BulkUploadItem", "owner_data"),
        ("operations.BulkUploadItem", "file_name"),
        ("staff.AuditEntry", "before"),
        ("staff.AuditEntry", "after"),
        ("registrations.BevRegistration", "holder_name"),
        ("registrations.BevRegistration", "holder_first_names"),
        ("operations.PayoutDocument", "owner_data"),
        ("operations.PayoutDocument", "vin"),
    } <= holding_her

    # the export carries every inventoried column of each of her rows
    auth = bearer(owner)
    with django_capture_on_commit_callbacks(execute=True):
        assert (
            client.post("/api/end_user_portal/data_export/", HTTP_HOST=HOST, headers=auth).status_code == 202
        )
    link = re.search(r"/api/end_user_portal/data_export/\S+/", str(mail.outbox[-1].body))
    assert link
    download = client.get(link.group(0), HTTP_HOST=HOST)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))  # type: ignore[attr-defined]
    records = json.loads(archive.read("records.json"))
    for model, column in holding_her:
        assert model in records, model
        assert any(_is_owners(row[column]) for row in records[model]), (model, column)

    # when she erases her account
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post("/api/end_user_portal/erasure/", HTTP_HOST=HOST, headers=auth).status_code == 200
    code = re.search(r"\b(\d{6})\b", str(mail.outbox[-1].body))
    assert code
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(
            "/api/end_user_portal/erasure/confirm/",
            {"code": code.group(1)},
            content_type="application/json",
            HTTP_HOST=HOST,
            headers=auth,
        )
    assert done.status_code == 200, done.content

    # then no column of any table holds a value of hers but what the law keeps: the IBAN paid
    # to (unnamed) and her credit note as issued (an invoice, § 14b UStG)
    assert columns_with_owner_values() <= {
        ("privacy.RetainedPayout", "account_iban"),
        ("operations.PayoutDocument", "owner_data"),
        ("operations.PayoutDocument", "vin"),
    }
    from operations.document_models import PayoutDocument

    credit_note, statement = PayoutDocument.objects.order_by("sequence")
    assert (credit_note.owner_id, credit_note.application_id) == (None, None)
    assert "Zyx47mann" in credit_note.owner_data and credit_note.vin == VIN
    assert credit_note.pdf_path.endswith("GS-47-1.pdf")
    assert (statement.owner_id, statement.application_id, statement.vin, statement.pdf_path) == (
        None,
        None,
        "",
        "",
    )
    assert not _is_owners(statement.owner_data) and ERASED_VALUE in statement.owner_data
    assert statement.number == "GS-47-2" and statement.gross == credit_note.gross  # the numbering stays
    # the facts stay: the bulk item and its outcome, the audit entries and which field changed
    item = BulkUploadItem.objects.get(sha256="0" * 64)
    assert item.status == "accepted" and item.owner_data == "" and item.file_name == ""
    assert item.error_details == {} and item.registration_id is None
    correction = AuditEntry.objects.get(action="registration.correct")
    assert correction.before == {"field": "plate", "value": ERASED_VALUE}
    assert AuditEntry.objects.get(action="admin.change").after == {
        "last_name": ERASED_VALUE,
        "account_iban": ERASED_VALUE,
    }
