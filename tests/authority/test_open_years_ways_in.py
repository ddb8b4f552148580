"""Every way in asks the quota-year calendar: the flow's upload, the billing lock, the portal's
resubmit (and the years its cards offer), the partner area's bulk upload. Over HTTP, with the
clock frozen on both sides of each date; a closed year is a 400 naming the next open year."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.models import User
from accounts.tokens import tokens_issue
from quota.models import QuotaApplication
from tenants.models import Partner
from tests.authority.calendar import law_calendar
from tests.factories import ClientFactory, RegistrationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("law_calendar")]
__all__ = ["law_calendar"]
HOST = "autohaus.localhost"
CLOSED_2026 = (
    "Für 2026 werden keine Registrierungen mehr angenommen (Annahmeschluss 31.10.2026). "
    "Bitte wählen Sie das Quotenjahr 2027 (möglich bis 31.10.2027)."
)


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


def bearer(owner: User) -> dict[str, str]:
    partner = Partner.objects.get(subdomain="autohaus")
    return {"Authorization": "Bearer " + tokens_issue(user=owner, partner=partner)["access"]}


def upload(client: Client, owner: User, years: str) -> Any:
    scan = io.BytesIO(b"\xff\xd8\xff\xe0" + bytes(300))  # not a document: refused after the years
    scan.name = "scan.jpg"
    form = {"partner": "autohaus", "source": "", "registration_years": years, "zlb_scan": scan}
    return client.post("/api/bev_registrations/", form, HTTP_HOST=HOST, headers=bearer(owner))


@pytest.mark.parametrize(
    ("now", "open_", "closed", "message"),
    [
        ("2026-10-31 12:00", "2026", None, None),
        ("2026-11-01 08:00", "2027", "2026", CLOSED_2026),
        ("2026-11-14 12:00", "2027", "2026", CLOSED_2026),
        ("2026-11-16 12:00", "2027", "2026", CLOSED_2026),
        ("2026-12-31 12:00", "2027", "2026", CLOSED_2026),
        (
            "2027-01-02 12:00",
            "2027",
            "2028",
            "Registrierungen für 2028 sind erst ab 01.10.2027 möglich. "
            "Bitte wählen Sie das Quotenjahr 2027 (möglich bis 31.10.2027).",
        ),
    ],
)
def test_the_flows_upload_takes_only_the_years_open_on_the_day(
    client: Client, now: str, open_: str, closed: str | None, message: str | None
) -> None:
    with schema_context("p_autohaus"):
        owner = User.objects.create(username="ina@example.de", email="ina@example.de")
    with freeze_time(now):
        taken = upload(client, owner, open_)
        refused = upload(client, owner, closed) if closed else None

    assert "registration_years" not in taken.json()  # past the years: the scan is judged
    if refused is not None:
        assert refused.status_code == 400
        assert refused.json() == {"registration_years": [message]}


def test_a_year_chosen_before_the_cut_off_and_billed_after_it_is_refused_at_the_lock(
    client: Client,
) -> None:
    with schema_context("p_autohaus"):
        registration = RegistrationFactory.create(registration_years=[2026])
        both = RegistrationFactory.create(registration_years=[2026, 2027])
        registration.locked_at = both.locked_at = None
        billing = ClientFactory.create(owner=registration.owner)
        other = ClientFactory.create(owner=both.owner)
        for each in (registration, both):
            RegistrationFactory._meta.model.objects.filter(pk=each.pk).update(locked_at="2026-10-30T10:00Z")

    with freeze_time("2026-11-02 09:00"):
        refused = client.post(
            f"/api/clients/{billing.pk}/lock/", HTTP_HOST=HOST, headers=bearer(registration.owner)
        )
        kept = client.post(f"/api/clients/{other.pk}/lock/", HTTP_HOST=HOST, headers=bearer(both.owner))

    assert refused.status_code == 400
    assert refused.json() == {"detail": CLOSED_2026, "error_code": "QA004"}
    assert kept.status_code == 200
    with schema_context("p_autohaus"):
        assert not QuotaApplication.objects.filter(registration=registration).exists()
        # of two chosen years, the closed one is left out and the open one sold
        assert list(
            QuotaApplication.objects.filter(registration=both).values_list("legislation_year", flat=True)
        ) == [2027]


def resubmit(client: Client, application: QuotaApplication, period: int) -> Any:
    return client.put(
        f"/api/end_user_portal/quota_applications/{application.pk}/duplicate_for_new_period/",
        f"period={period}",
        content_type="application/x-www-form-urlencoded",
        HTTP_HOST=HOST,
        headers=bearer(application.registration.owner),
    )


def test_the_portal_offers_and_takes_only_open_years_for_a_resubmit(client: Client) -> None:
    with schema_context("p_autohaus"):
        registration = RegistrationFactory.create(vin="WVWZZZ1KZAW123456", registration_years=[2025])
        application = QuotaApplication.objects.create(
            registration=registration,
            client=ClientFactory.create(owner=registration.owner),
            legislation_year=2025,
        )

    with freeze_time("2026-10-31 12:00"):
        october = client.get(
            "/api/end_user_portal/quota_applications/", HTTP_HOST=HOST, headers=bearer(registration.owner)
        )
    with freeze_time("2026-11-16 12:00"):
        november = client.get(
            "/api/end_user_portal/quota_applications/", HTTP_HOST=HOST, headers=bearer(registration.owner)
        )
        refused = resubmit(client, application, 2026)
        taken = resubmit(client, application, 2027)

    assert october.json()["results"][0]["allowed_resubmit_years"] == [2026, 2027]
    assert november.json()["results"][0]["allowed_resubmit_years"] == [2027]
    assert refused.status_code == 400
    assert refused.json() == {"period": [CLOSED_2026]}
    assert taken.status_code == 201
    assert taken.json()["legislation_year"] == 2027


def test_the_partner_areas_bulk_upload_takes_only_open_years(client: Client) -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    not_a_zip = b"PK\x03\x04 kaputt"

    def send(session: Client, years: str) -> Any:
        body = {
            "archive": SimpleUploadedFile("flotte.zip", not_a_zip, "application/zip"),
            "registration_years": years,
        }
        return session.post("/api/partner/bulk_uploads/", body, HTTP_HOST=HOST)

    with freeze_time("2026-11-16 12:00"):
        member, password = staff_member(partner)
        session = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
        refused = send(session, "2026")
        taken = send(session, "2027")
        default = send(session, "")

    assert refused.status_code == 400
    assert refused.json() == {"registration_years": [CLOSED_2026]}
    # past the years: the archive is judged (and refused, it is none)
    assert taken.status_code == 400 and "registration_years" not in taken.json()
    assert "registration_years" not in default.json()
