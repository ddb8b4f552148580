"""Owners hear what happens: the branded status mails (quota.owner_mails), each rendered and read
back, sent after the status write commits, switched off per partner, one of a kind a day."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.tokens import tokens_issue
from quota.models import QuotaApplication, QuotaStatus
from quota.owner_mails import KINDS
from quota.services import quota_application_move
from tenants.models import Partner
from tenants.services import partner_update
from tests.authority.calendar import law_calendar
from tests.authority.helpers import move_along, submitted
from tests.factories import ClientFactory, RegistrationFactory

pytestmark = pytest.mark.django_db
__all__ = ["law_calendar"]
HOST = "autohaus.localhost"


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


def _move(application: QuotaApplication, status: str, capture: Any) -> None:
    with capture(execute=True):
        quota_application_move(application=application, status=status, actor=None, reason="Test")


def _html(message: Any) -> str:
    return str(message.alternatives[0][0])


def test_the_billing_lock_over_http_sends_the_received_mail_branded_with_a_link_to_the_card(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    registration = RegistrationFactory.create(vin="WVWZZZ1KZAW300001", plate="B-EV 2026")
    registration.owner.email = "erika@example.org"
    registration.owner.save(update_fields=["email"])
    billing = ClientFactory.create(owner=registration.owner)
    partner = Partner.objects.get(subdomain="autohaus")
    token = tokens_issue(user=registration.owner, partner=partner)["access"]

    with django_capture_on_commit_callbacks(execute=True):
        locked = client.post(
            f"/api/clients/{billing.pk}/lock/", HTTP_HOST=HOST, headers={"Authorization": f"Bearer {token}"}
        )

    assert locked.status_code == 200
    [message] = mail.outbox
    application = QuotaApplication.objects.get(registration=registration)
    assert message.to == ["erika@example.org"]
    assert message.subject == f"Ihre Registrierung ist eingegangen – {partner.name}"
    assert partner.name in message.from_email
    link = f"/portal/registrations?legislation_year={application.legislation_year}#antrag-{application.pk}"
    assert link in message.body and link in _html(message)
    assert (
        f"Wir haben Ihr Fahrzeug B-EV 2026 für das Quotenjahr {application.legislation_year} registriert"
        in (message.body)
    )
    html = _html(message)
    assert "Registrierung ansehen" in html and partner.name in html
    assert message.extra_headers["X-Partner"] == "autohaus"


@pytest.mark.parametrize(
    ("path", "subject", "says"),
    [
        (
            (QuotaStatus.ENTERED, QuotaStatus.PICKED_UP, QuotaStatus.SENT_TO_UBA),
            "eingereicht",
            "beim Umweltbundesamt eingereicht",
        ),
        (
            (QuotaStatus.ENTERED, QuotaStatus.PICKED_UP, QuotaStatus.SENT_TO_UBA, QuotaStatus.ACCEPTED),
            "Ihre THG-Quote wurde bescheinigt",
            "hat die THG-Quote für Ihr Fahrzeug",
        ),
        (
            (
                QuotaStatus.ENTERED,
                QuotaStatus.PICKED_UP,
                QuotaStatus.SENT_TO_UBA,
                QuotaStatus.REJECTED_BY_AUTHORITY,
            ),
            "Ihre THG-Quote wurde nicht bescheinigt",
            "Beim Umweltbundesamt können Sie erfragen, über welchen Anbieter die Quote für dieses Fahrzeug beantragt wurde.",
        ),
        ((QuotaStatus.DOUBLE_REGISTRATION,), "Ihre THG-Quote wurde nicht bescheinigt", "bereits beantragt"),
    ],
)
def test_each_authority_step_is_mailed(
    django_capture_on_commit_callbacks: Any, path: tuple[str, ...], subject: str, says: str
) -> None:
    application = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW300002")
    for status in path[:-1]:
        move_along(application, status)
    mail.outbox.clear()

    _move(application, path[-1], django_capture_on_commit_callbacks)

    [message] = mail.outbox
    assert subject in message.subject
    assert says in message.body and says in _html(message)


def test_paid_and_payment_failed_are_mailed(django_capture_on_commit_callbacks: Any) -> None:
    application = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW300003")
    move_along(
        application, QuotaStatus.ENTERED, QuotaStatus.PICKED_UP, QuotaStatus.SENT_TO_UBA, QuotaStatus.ACCEPTED
    )
    move_along(application, QuotaStatus.TO_PAY, QuotaStatus.TO_SETTLE)
    mail.outbox.clear()

    _move(application, QuotaStatus.PAYMENT_FAILURE, django_capture_on_commit_callbacks)
    _move(application, QuotaStatus.PAID, django_capture_on_commit_callbacks)

    failed, paid = mail.outbox
    assert failed.subject.startswith("Ihre Auszahlung ist fehlgeschlagen")
    assert "Bitte prüfen Sie Ihre Bankverbindung im Kundenportal" in failed.body
    assert "Bankverbindung prüfen" in _html(failed)
    assert paid.subject.startswith("Ihre THG-Prämie wurde ausgezahlt")
    assert "Wir haben Ihre Prämie für Ihr Fahrzeug" in paid.body


def test_one_mail_of_a_kind_a_day_and_none_for_a_move_that_was_overtaken(
    django_capture_on_commit_callbacks: Any,
) -> None:
    first = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW300004")
    other_registration = RegistrationFactory.create(vin="WVWZZZ1KZAW300005", owner=first.registration.owner)
    second = QuotaApplication.objects.create(
        registration=other_registration, client=first.client, legislation_year=first.legislation_year
    )
    for application in (first, second):
        move_along(application, QuotaStatus.ENTERED, QuotaStatus.PICKED_UP)
    mail.outbox.clear()

    with freeze_time("2026-11-20 10:00"):
        _move(first, QuotaStatus.SENT_TO_UBA, django_capture_on_commit_callbacks)
        _move(second, QuotaStatus.SENT_TO_UBA, django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1  # the owner's two vehicles: one mail that day

    with freeze_time("2026-11-21 10:00"), django_capture_on_commit_callbacks(execute=True):
        # moved twice before the mails went out: only the later status is told
        quota_application_move(application=first, status=QuotaStatus.ACCEPTED, actor=None)
        quota_application_move(application=first, status=QuotaStatus.TO_PAY, actor=None)
    assert len(mail.outbox) == 1


def test_a_partner_switches_a_mail_off(django_capture_on_commit_callbacks: Any) -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    with django_capture_on_commit_callbacks(execute=True):
        partner_update(
            partner=partner,
            config={
                **partner.config,
                "owner_mails": {**partner.config.get("owner_mails", {}), "submitted": False},
            },
        )
    application = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW300006")
    move_along(application, QuotaStatus.ENTERED, QuotaStatus.PICKED_UP)
    mail.outbox.clear()

    _move(application, QuotaStatus.SENT_TO_UBA, django_capture_on_commit_callbacks)
    assert mail.outbox == []
    _move(application, QuotaStatus.ACCEPTED, django_capture_on_commit_callbacks)
    assert [m.subject.split(" – ")[0] for m in mail.outbox] == ["Ihre THG-Quote wurde bescheinigt"]


def test_every_mailed_status_has_its_kind() -> None:
    assert {kind.name for kind in KINDS.values()} == {
        "received",
        "submitted",
        "certified",
        "refused",
        "paid",
        "payment_failed",
    }
