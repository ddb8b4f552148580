"""One payout per application (issue 46), enforced by the database: an application is in at
most one settlement item that is open or paid; a second batch for it is refused, also when two
partner admins create batches at the same moment (two real connections)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import IntegrityError, connections, transaction
from django.test import Client
from django_tenants.utils import schema_context

from operations.models import SettlementBatch, SettlementItem
from quota.models import QuotaApplication, QuotaStatus
from tenants.directory import directory
from tenants.models import Partner
from tenants.services import partner_provision
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, money_config
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"


def post(client: Client, path: str, body: dict[str, Any] | None = None, host: str = HOST) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=host)


def test_a_second_batch_never_takes_an_application_already_in_one(autohaus: Partner, admin: Client) -> None:
    # given: an application in a NEW batch
    application = ApplicationFactory.create(status=QuotaStatus.TO_PAY)
    first = post(admin, BATCHES, {"ids": [application.pk]})
    assert first.status_code == 201

    # when: a second batch asks for it; then, in a broken state (qa_to_pay again while its
    # item is still open, as the generic move once allowed), once more
    second = post(admin, BATCHES, {"ids": [application.pk]})
    QuotaApplication.objects.filter(pk=application.pk).update(status=QuotaStatus.TO_PAY)
    broken = post(admin, BATCHES, {"ids": [application.pk]})

    # then: refused, no second item
    assert second.status_code == 400 and second.json()["error_code"] == "SETTLE002"
    assert broken.status_code == 400 and broken.json()["error_code"] == "SETTLE002"
    assert broken.json()["skipped"][0]["detail"] == f"Schon im Abrechnungslauf {first.json()['reference']}."
    assert SettlementItem.objects.filter(application=application).count() == 1
    assert SettlementBatch.objects.count() == 1


def test_the_database_holds_one_open_or_paid_item_per_application(autohaus: Partner, admin: Client) -> None:
    application = ApplicationFactory.create(status=QuotaStatus.TO_PAY)
    batch = post(admin, BATCHES, {"ids": [application.pk]}).json()
    item = SettlementItem.objects.get(pk=batch["items"][0]["id"])

    def copy(status: str, end_to_end_id: str) -> None:
        with transaction.atomic():
            other = SettlementBatch.objects.create(reference="X", execution_date=item.batch.execution_date)
            SettlementItem.objects.create(
                batch=other, application=application, method=item.method, status=status, net=item.net,
                vat_percent=item.vat_percent, vat=item.vat, gross=item.gross, payee_name="X",
                end_to_end_id=end_to_end_id,
            )  # fmt: skip

    # an open or a paid second item is refused by the database itself
    for status in (SettlementItem.Status.OPEN, SettlementItem.Status.PAID):
        with pytest.raises(IntegrityError):
            copy(status, f"X-{status}")
    # a failed one is a record, not a payout
    copy(SettlementItem.Status.FAILED, "X-failed")
    # once the first failed, the next batch may pay it
    SettlementItem.objects.filter(pk=item.pk).update(status=SettlementItem.Status.FAILED)
    copy(SettlementItem.Status.OPEN, "X-again")
    assert SettlementItem.objects.filter(application=application).count() == 3


@pytest.fixture(scope="module")
def racing(
    django_db_setup: None, django_db_blocker: Any
) -> Iterator[tuple[Partner, list[int], list[Client]]]:
    """A partner of its own with committed rows (two connections must see them): ten
    applications to pay and two partner admins signed in; dropped after."""
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain="payout-race", name="Race GmbH")
        money_config(partner)
        with schema_context(partner.schema_name):
            ids = [a.pk for a in ApplicationFactory.create_batch(10, status=QuotaStatus.TO_PAY)]
        host = f"{partner.subdomain}.localhost"
        sessions = [
            partner_session(Client(enforce_csrf_checks=True), host, *staff_member(partner)) for _ in range(2)
        ]
        yield partner, ids, sessions
        directory.clear()
        partner.delete(force_drop=True)


def test_two_batches_created_at_once_pay_each_application_once(
    racing: tuple[Partner, list[int], list[Client]], django_db_blocker: Any
) -> None:
    # given: two partner admins signed in, each about to make a batch of the same applications
    partner, ids, sessions = racing
    host = f"{partner.subdomain}.localhost"
    barrier = threading.Barrier(2)
    answers: list[Any] = [None, None]

    def create(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            answers[index] = post(sessions[index], BATCHES, {"ids": ids}, host=host)
        finally:
            connections.close_all()  # this thread's connection

    # when: both at once, each on its own connection, committed
    with django_db_blocker.unblock():
        threads = [threading.Thread(target=create, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        # then: exactly one batch won with all ten; the other is a clear refusal, not a 500
        codes = sorted(answer.status_code for answer in answers)
        assert codes == [201, 400] or codes == [201, 409], [a.content[:300] for a in answers]
        lost = next(answer for answer in answers if answer.status_code != 201)
        assert lost.json()["error_code"] in ("SETTLE002", "SETTLE014")
        with schema_context(partner.schema_name):
            assert SettlementBatch.objects.count() == 1
            assert SettlementItem.objects.filter(application_id__in=ids).count() == 10
            assert set(QuotaApplication.objects.filter(pk__in=ids).values_list("status", flat=True)) == {
                QuotaStatus.TO_SETTLE
            }
