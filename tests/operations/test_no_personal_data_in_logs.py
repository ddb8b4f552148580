"""No personal data and no secret in any log line (issue 19), beyond the registration flow of
tests/deploy/test_logs.py: the partner area (search by name, detail, CSV, a settlement batch
with its SEPA file, a failed payout's corrected IBAN, the erasure of a request by mail), a bulk
upload with the owner's data in its CSV and the tasks that read it, and the owner's background
tasks (the export and its mailed one-time link, the erasure code mail, the retention run).
Everything is logged at INFO through the production formatter, as a deployment writes it."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts.models import User
from accounts.tokens import tokens_issue
from privacy.tasks import retention_run
from quota.models import QuotaApplication, QuotaStatus
from tenants.models import Partner
from tests.deploy.test_logs import lines, log_output  # noqa: F401 (the fixture)
from tests.operations.conftest import API, HOST
from tests.operations.test_bulk_upload import HEADER, Upload, scans, upload, zip_of  # noqa: F401

pytestmark = pytest.mark.django_db

EMAIL = "lena.vogelsang@example.org"
FIRST_NAME = "Lena"
LAST_NAME = "Vogelsang"
STREET = "Lindenallee"
IBAN = "DE89370400440532013000"
NEW_IBAN = "DE02120300000000202051"
# A second owner of the same upload: the export, the erasure code and the erasure by mail (an
# owner paid through a settlement batch cannot be erased yet: see test_settlement.py).
OTHER_EMAIL = "jonas.brandtner@example.org"
OTHER_NAME = "Brandtner"
OTHER_IBAN = "FR1420041010050500013M02606"
PERSONAL = [
    EMAIL, "lena.vogelsang", FIRST_NAME, LAST_NAME, STREET, IBAN, NEW_IBAN, "DE89 3704", "DE02 1203",
    OTHER_EMAIL, "jonas.brandtner", OTHER_NAME, OTHER_IBAN, "FR14 2004",
]  # fmt: skip


def post(client: Client, path: str, body: dict[str, Any] | None = None, **headers: str) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=HOST, headers=headers)


def test_the_partner_area_bulk_uploads_and_tasks_log_no_personal_data(
    autohaus: Partner,
    admin: Client,
    upload: Upload,  # noqa: F811
    scans: dict[str, bytes],  # noqa: F811
    log_output: io.StringIO,  # noqa: F811
    django_capture_on_commit_callbacks: Any,
) -> None:
    # a bulk upload with the owner's data in its CSV; its items are read by tasks
    rows = [
        f"a.jpg;{EMAIL};Frau;{FIRST_NAME};{LAST_NAME};{STREET};7;10115;Berlin;{IBAN};privat",
        f"b.pdf;{OTHER_EMAIL};Herr;Jonas;{OTHER_NAME};Am Anger;3;04109;Leipzig;{OTHER_IBAN};privat",
    ]
    owners_csv = ("\ufeff" + HEADER + "\r\n" + "\r\n".join(rows) + "\r\n").encode("utf-8")
    created = upload(admin, zip_of({"a.jpg": scans["first"], "b.pdf": scans["second"]}), owners_csv)
    assert created.status_code == 201, created.content
    application = QuotaApplication.objects.get(client__last_name=LAST_NAME)

    # the partner area: search by the owner's name, the detail, the CSV
    found = admin.get(f"{API}quota_applications/", {"q": LAST_NAME}, HTTP_HOST=HOST)
    assert found.status_code == 200 and found.json()["count"] == 1, found.content
    assert admin.get(f"{API}quota_applications/{application.pk}/", HTTP_HOST=HOST).status_code == 200
    csv = admin.get(f"{API}quota_applications/export.csv", HTTP_HOST=HOST)
    assert csv.status_code == 200 and LAST_NAME in b"".join(csv.streaming_content).decode("utf-8-sig")  # type: ignore[attr-defined]

    # a settlement batch, its SEPA file, a returned transfer and the corrected IBAN
    QuotaApplication.objects.filter(pk=application.pk).update(status=QuotaStatus.TO_PAY)
    batch = post(admin, f"{API}settlement_batches/", {"ids": [application.pk]})
    assert batch.status_code == 201, batch.content
    batch_path = f"{API}settlement_batches/{batch.json()['id']}/"
    sepa = admin.get(f"{batch_path}sepa.xml", HTTP_HOST=HOST)
    assert sepa.status_code == 200 and IBAN in sepa.content.decode()
    item_path = f"{batch_path}items/{batch.json()['items'][0]['id']}/"
    assert post(admin, f"{item_path}fail/", {"reason": "Konto erloschen (AC04)"}).status_code == 200
    assert post(admin, f"{item_path}iban/", {"account_iban": NEW_IBAN}).status_code == 200

    # the owner's tasks: the export (its one-time link mailed, then used) and the erasure code
    owner = User.objects.get(email__iexact=OTHER_EMAIL)
    access = tokens_issue(user=owner, partner=autohaus)["access"]
    owner_client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        asked = post(owner_client, "/api/end_user_portal/data_export/", Authorization=f"Bearer {access}")
    assert asked.status_code == 202, asked.content
    link = re.search(r"https?://[^/\s]+(/api/end_user_portal/data_export/(\S+)/)", str(mail.outbox[-1].body))
    assert link, mail.outbox[-1].body
    download = owner_client.get(link.group(1), HTTP_HOST=HOST)
    assert download.status_code == 200
    b"".join(download.streaming_content)  # type: ignore[attr-defined]
    with django_capture_on_commit_callbacks(execute=True):
        erasure = post(owner_client, "/api/end_user_portal/erasure/", Authorization=f"Bearer {access}")
    assert erasure.status_code == 200, erasure.content
    code = re.search(r"\b(\d{6})\b", str(mail.outbox[-1].body))
    assert code, mail.outbox[-1].body
    # the daily retention run
    retention_run(autohaus.schema_name)  # huey runs it in-process in tests

    # the erasure of a request by mail, by the partner admin
    preview = post(admin, f"{API}privacy/erasure/preview/", {"email": OTHER_EMAIL})
    assert preview.status_code == 200, preview.content
    erased = post(
        admin, f"{API}privacy/erasure/", {"email": OTHER_EMAIL, "reference": "Brief vom 3. November"}
    )
    assert erased.status_code == 200, erased.content

    output = log_output.getvalue()
    records = lines(log_output)
    # then every part left its lines (else this test would prove nothing) ...
    routes = {r.get("route") for r in records if r["logger"] == "thg.request"}
    for route in (
        "/api/partner/bulk_uploads/",
        "/api/partner/quota_applications/",
        "/api/partner/quota_applications/export.csv",
        "/api/partner/settlement_batches/<batch_id>/sepa.xml",
        "/api/partner/settlement_batches/<batch_id>/items/<item_id>/iban/",
        "/api/end_user_portal/data_export/<key>/",
        "/api/partner/privacy/erasure/",
    ):
        assert route in routes, (route, routes)
    tasks = " ".join(r["message"] for r in records if r["logger"] == "huey")
    for task in ("bulk_item_run", "data_export_build_task", "mail_erasure_code", "retention_run"):
        assert task in tasks, (task, tasks)
    assert any(r["message"].startswith("retention run:") for r in records)
    assert {r["partner"] for r in records if r["logger"] in {"thg.request", "huey"}} == {"p_autohaus"}
    # ... and no personal value, code, link, token or session in any of them
    secrets = [
        link.group(2),
        code.group(1),
        access,
        admin.cookies["sessionid"].value,
        admin.cookies["csrftoken"].value,
    ]
    for value in PERSONAL + secrets:
        assert value.lower() not in output.lower(), value
