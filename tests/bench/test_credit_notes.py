"""Payout documents (issue 46), run by `make bench` only: a batch of 10,000 business owners'
applications (VAT-liable, 19 %) made, marked paid (which issues the 10,000 self-billing credit
notes with their gap-free numbers in the same transaction), and the batch's ZIP downloaded (each
credit note rendered: the PDF (fpdf2, DejaVu embedded), its EN 16931 CII XML checked against the
Factur-X XSD and embedded into a PDF/A-3 by factur-x, the XML beside it), all over HTTP as the
partner admin. Figures: wall time of each call and ms per item; no timed assertion.

BENCH_CREDIT_NOTES scales the run down (a quick look on a loaded machine)."""

from __future__ import annotations

import os
import tempfile
import time
import zipfile
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.test import Client
from django.utils import timezone
from facturx import xml_check_xsd

from accounts.models import User, canonical_name
from billing.models import Client as BillingClient
from operations.document_models import PayoutDocument
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration
from tenants.models import Partner
from tests.bench.conftest import record
from tests.operations.conftest import API, HOST, admin, autohaus, money_config, session  # noqa: F401

pytestmark = pytest.mark.django_db
ITEMS = int(os.environ.get("BENCH_CREDIT_NOTES", "10000"))
BASE = 900_000


def _owners(count: int) -> list[QuotaApplication]:
    """`count` VAT-liable business owners with one qa_to_pay application each, in bulk."""
    year = timezone.localdate().year
    unusable = make_password(None)
    users = User.objects.bulk_create(
        [
            User(
                email=f"flotte{BASE + i}@example.de",
                username=f"flotte{BASE + i}@example.de",
                username_canonical=canonical_name(f"flotte{BASE + i}@example.de"),
                email_canonical=canonical_name(f"flotte{BASE + i}@example.de"),
                password=unusable,
            )
            for i in range(count)
        ],
        batch_size=2000,
    )
    schema = connection.schema_name  # type: ignore[attr-defined]
    registrations = BevRegistration.objects.bulk_create(
        [
            BevRegistration(
                owner=user,
                sequence=BASE + i,
                zlb_scan=f"{schema}/scans/bench-{i}.jpg",
                resized_image=f"{schema}/scans/bench-{i}-resized.jpg",
                original_content_type="image/jpeg",
                width=2000,
                height=1400,
                vehicle_class=("M1", "N1", "M3")[i % 3],
                vin=f"WVWZZZ1KZ{BASE + i:08d}",
                locked_at=timezone.now(),
            )
            for i, user in enumerate(users)
        ],
        batch_size=2000,
    )
    clients = BillingClient.objects.bulk_create(
        [
            BillingClient(
                owner=user,
                first_name="Erika",
                last_name=f"Muster {i}",
                street_name="Hauptstraße",
                street_number=str(1 + i % 200),
                postal_code="10115",
                city="Berlin",
                account_name=f"Flotte {i} GmbH",
                account_iban="DE89370400440532013000",
                vehicle_owner_type="business",
                is_vat_mandatory=True,
                name_of_business=f"Flotte {i} GmbH",
                vat_number="DE136695976",
                locked_at=timezone.now(),
            )
            for i, user in enumerate(users)
        ],
        batch_size=2000,
    )
    applications = QuotaApplication.objects.bulk_create(
        [
            QuotaApplication(
                registration=registration, client=client, legislation_year=year, status=QuotaStatus.TO_PAY
            )
            for registration, client in zip(registrations, clients, strict=True)
        ],
        batch_size=2000,
    )
    StatusChange.objects.bulk_create(
        [
            StatusChange(application=a, status=status)
            for a in applications
            for status in (QuotaStatus.ACCEPTED, QuotaStatus.TO_PAY)
        ],
        batch_size=4000,
    )
    return applications


def test_a_batch_of_10000_credit_notes(autohaus: Partner, admin: Client, session: Any) -> None:  # noqa: F811
    year = timezone.localdate().year
    money_config(
        autohaus,
        fees=[
            {"legislation_year": year, "vehicle_class": c, "client_fee": fee, "vat_percentage": "19"}
            for c, fee in (("M1", "85.00"), ("N1", "120.00"), ("M3", "1500.00"))
        ],
        invoicing={
            "legal_name": "Autohaus Sonnenschein GmbH",
            "street": "Sonnenallee 1",
            "postal_code": "12045",
            "city": "Berlin",
            "vat_id": "DE811907980",
        },
    )
    started = time.perf_counter()
    _owners(ITEMS)
    setup = time.perf_counter() - started

    started = time.perf_counter()
    created = admin.post(
        f"{API}settlement_batches/",
        {"filters": {"legislation_year": year}},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    create_seconds = time.perf_counter() - started
    assert created.status_code == 201, created.content[:500]
    batch_id = created.json()["id"]

    # four eyes above the partner's limit: a second partner admin approves (where needed)
    session("partner_admin").post(
        f"{API}settlement_batches/{batch_id}/approve/", content_type="application/json", HTTP_HOST=HOST
    )
    started = time.perf_counter()
    marked = admin.post(
        f"{API}settlement_batches/{batch_id}/mark_paid/", content_type="application/json", HTTP_HOST=HOST
    )
    paid_seconds = time.perf_counter() - started
    assert marked.status_code == 200, marked.content[:500]
    numbers = list(PayoutDocument.objects.order_by("sequence").values_list("sequence", flat=True))
    assert numbers == list(range(1, ITEMS + 1))

    started = time.perf_counter()
    answer = admin.get(f"{API}settlement_batches/{batch_id}/documents.zip", HTTP_HOST=HOST)
    with tempfile.TemporaryFile() as target:
        for chunk in answer.streaming_content:  # type: ignore[attr-defined]
            target.write(chunk)
        zip_seconds = time.perf_counter() - started
        zip_bytes = target.tell()
        target.seek(0)
        with zipfile.ZipFile(target) as archive:
            names = archive.namelist()
            # a sample of the e-invoices, each against the EN 16931 XSD
            samples = [name for name in names if name.endswith(".xml")][:: max(1, ITEMS // 20)]
            for name in samples:
                xml_check_xsd(archive.read(name), flavor="factur-x", level="en16931")
            pdf_bytes = sum(info.file_size for info in archive.infolist() if info.filename.endswith(".pdf"))
    assert answer.status_code == 200
    assert len(names) == 2 * ITEMS
    gross = sum(PayoutDocument.objects.values_list("gross", flat=True), start=Decimal(0))

    record(
        "credit_notes_10000",
        {
            "items": ITEMS,
            "setup_s (bulk rows, not part of the figure)": round(setup, 1),
            "batch_create_s": round(create_seconds, 1),
            "mark_paid_with_issuing_s": round(paid_seconds, 1),
            "mark_paid_ms_per_item": round(paid_seconds * 1000 / ITEMS, 2),
            "zip_all_documents_s": round(zip_seconds, 1),
            "zip_ms_per_item (PDF + Factur-X + XML)": round(zip_seconds * 1000 / ITEMS, 1),
            "zip_mb": round(zip_bytes / 1e6, 1),
            "pdf_kb_each": round(pdf_bytes / ITEMS / 1000, 1),
            "xsd_checked_samples": len(samples),
            "gross_eur": str(gross),
            "cpu_count": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 1),
        },
    )


BASELINE = int(os.environ.get("BENCH_CREDIT_NOTES_BASELINE", "200"))


def test_a_credit_note_against_its_parts(autohaus: Partner, admin: Client, session: Any) -> None:  # noqa: F811
    """The baseline of the figure above, same machine and run: per document, the plain PDF alone
    (fpdf2, DejaVu embedded), the CII XML alone, and the Factur-X PDF (the PDF, the XML, the XSD
    check, pypdf's embedding) that the ZIP holds."""
    from operations.einvoice import document_file, document_pdf, document_xml

    year = timezone.localdate().year
    money_config(
        autohaus,
        fees=[
            {"legislation_year": year, "vehicle_class": c, "client_fee": fee, "vat_percentage": "19"}
            for c, fee in (("M1", "85.00"), ("N1", "120.00"), ("M3", "1500.00"))
        ],
        invoicing={"legal_name": "Autohaus Sonnenschein GmbH", "vat_id": "DE811907980"},
    )
    _owners(BASELINE)
    created = admin.post(
        f"{API}settlement_batches/",
        {"filters": {"legislation_year": year}},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert created.status_code == 201, created.content[:500]
    # four eyes above the partner's limit: a second partner admin approves (where needed)
    session("partner_admin").post(
        f"{API}settlement_batches/{created.json()['id']}/approve/",
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    marked = admin.post(
        f"{API}settlement_batches/{created.json()['id']}/mark_paid/",
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert marked.status_code == 200, marked.content[:500]
    documents = list(PayoutDocument.objects.order_by("sequence"))
    assert len(documents) == BASELINE
    document_file(documents[0])  # the font cut, once per process, outside the figures
    figures = {}
    for name, render in (("pdf_only", document_pdf), ("xml_only", document_xml), ("factur_x", document_file)):
        started = time.perf_counter()
        for document in documents:
            render(document)
        figures[f"{name}_ms_per_item"] = round((time.perf_counter() - started) * 1000 / BASELINE, 2)
    record(
        "credit_notes_baseline",
        {"items": BASELINE, **figures, "load_average_1m": round(os.getloadavg()[0], 1)},
    )
