"""Money states (issue 46): qa_to_settle, qa_paid and qa_payment_failure are entered and left
only by the settlement calls (create batch, remove item, mark paid, record failure, re-queue),
never by the generic move of the partner API, for every role."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from operations.models import SettlementItem
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, SessionFactory

pytestmark = pytest.mark.django_db
MOVES = API + "quota_applications/moves/"
BATCHES = API + "settlement_batches/"
S = QuotaStatus

# Every money move of the catalogue: (where the application is, where the move would take it).
MONEY_MOVES = [
    (S.TO_PAY, S.TO_SETTLE),
    (S.TO_SETTLE, S.TO_PAY),
    (S.TO_SETTLE, S.PAID),
    (S.TO_SETTLE, S.PAYMENT_FAILURE),
    (S.PAID, S.PAYMENT_FAILURE),
    (S.PAYMENT_FAILURE, S.TO_PAY),
    (S.PAYMENT_FAILURE, S.PAID),
]


def post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=HOST)


def status_of(application: QuotaApplication) -> str:
    return QuotaApplication.objects.get(pk=application.pk).status


@pytest.mark.parametrize("role", ["back_office", "partner_admin"])
def test_no_role_makes_a_money_move_with_the_generic_move(
    autohaus: Partner, session: SessionFactory, role: str
) -> None:
    # given: an application in each origin of a money move
    staff = session(role)
    applications = [ApplicationFactory.create(status=origin) for origin, _ in MONEY_MOVES]
    entered = ApplicationFactory.create(status=S.ENTERED)
    history = StatusChange.objects.count()

    # when: each money move is asked of the generic move, alone and mixed with an allowed one
    answers = [
        post(staff, MOVES, {"ids": [application.pk], "status": target})
        for application, (_, target) in zip(applications, MONEY_MOVES, strict=True)
    ]
    mixed = post(staff, MOVES, {"ids": [entered.pk, applications[1].pk], "status": S.TO_PAY})

    # then: 400 in the API's shape with the named code; nothing moved, no history, no audit
    for answer in answers:
        assert answer.status_code == 400, answer.content
        body = answer.json()
        assert body["error_code"] == "QA005" and "Abrechnungsläufe" in body["detail"]
    assert mixed.status_code == 400 and mixed.json()["ids"] == [applications[1].pk]
    assert [status_of(a) for a in applications] == [origin for origin, _ in MONEY_MOVES]
    assert status_of(entered) == S.ENTERED
    assert StatusChange.objects.count() == history
    assert not AuditEntry.objects.filter(action="quota_application.move").exists()


def test_a_viewer_moves_nothing_and_the_refusal_speaks_english_when_asked(
    autohaus: Partner, session: SessionFactory
) -> None:
    application = ApplicationFactory.create(status=S.TO_SETTLE)

    viewer = post(session("viewer"), MOVES, {"ids": [application.pk], "status": S.PAID})
    english = session("partner_admin").post(
        MOVES,
        {"ids": [application.pk], "status": S.PAID},
        content_type="application/json",
        HTTP_HOST=HOST,
        HTTP_ACCEPT_LANGUAGE="en",
    )

    assert viewer.status_code == 403
    assert english.status_code == 400 and english.json()["detail"].startswith("Payout statuses")
    assert status_of(application) == S.TO_SETTLE


def test_the_back_office_still_releases_to_pay_and_closes_a_paid_application(
    autohaus: Partner, session: SessionFactory
) -> None:
    staff = session("back_office")
    accepted = ApplicationFactory.create(status=S.ACCEPTED)
    paid = ApplicationFactory.create(status=S.PAID)

    released = post(staff, MOVES, {"ids": [accepted.pk], "status": S.TO_PAY})
    # a move the catalogue does not have at all is its refusal per id, as before (QA002)
    backwards = post(staff, MOVES, {"ids": [paid.pk], "status": S.PICKED_UP})
    closed = post(staff, MOVES, {"ids": [paid.pk], "status": S.COMPLETED})
    detail = staff.get(f"{API}quota_applications/{paid.pk}/", HTTP_HOST=HOST)
    waiting = staff.get(f"{API}quota_applications/{accepted.pk}/", HTTP_HOST=HOST)

    assert released.status_code == 200 and released.json()["results"][0]["ok"] is True
    assert backwards.status_code == 200 and backwards.json()["results"][0]["error_code"] == "QA002"
    assert closed.status_code == 200 and closed.json()["results"][0]["ok"] is True
    assert (status_of(accepted), status_of(paid)) == (S.TO_PAY, S.COMPLETED)
    # the drawer offers no money move: to_pay → to_settle is a batch's
    assert [m["status"] for m in waiting.json()["allowed_moves"]] == []
    assert detail.status_code == 200


def test_the_settlement_calls_remove_an_item_and_requeue_a_failed_payout(
    autohaus: Partner, admin: Client
) -> None:
    # given: a batch of two
    kept, removed = (ApplicationFactory.create(status=S.TO_PAY) for _ in range(2))
    batch = post(admin, BATCHES, {"ids": [kept.pk, removed.pk]}).json()
    items = {i["application"]["id"]: i["id"] for i in batch["items"]}

    # when: one is taken out, the other fails and is queued again as it is
    taken_out = post(admin, f"{BATCHES}{batch['id']}/items/{items[removed.pk]}/remove/")
    early = post(admin, f"{BATCHES}{batch['id']}/items/{items[kept.pk]}/requeue/")
    failed = post(admin, f"{BATCHES}{batch['id']}/items/{items[kept.pk]}/fail/", {"reason": "AM04"})
    again = post(admin, f"{BATCHES}{batch['id']}/items/{items[kept.pk]}/requeue/")
    twice = post(admin, f"{BATCHES}{batch['id']}/items/{items[kept.pk]}/remove/")

    # then
    assert taken_out.status_code == 200 and [i["id"] for i in taken_out.json()["items"]] == [items[kept.pk]]
    assert status_of(removed) == S.TO_PAY
    assert not SettlementItem.objects.filter(pk=items[removed.pk]).exists()
    assert early.status_code == 400 and early.json()["error_code"] == "SETTLE006"
    assert failed.status_code == 200
    assert again.status_code == 200 and again.json()["status"] == "failed"
    assert status_of(kept) == S.TO_PAY
    assert twice.status_code == 400 and twice.json()["error_code"] == "SETTLE013"
    history = list(QuotaApplication.objects.get(pk=kept.pk).status_changes.values_list("status", flat=True))
    assert history[-3:] == [S.TO_SETTLE, S.PAYMENT_FAILURE, S.TO_PAY]
    assert AuditEntry.objects.filter(action="settlement_item.remove").count() == 1
    assert AuditEntry.objects.filter(action="settlement_item.requeue").count() == 1
    # and the application goes into a new batch
    new = post(admin, BATCHES, {"ids": [kept.pk, removed.pk]})
    assert new.status_code == 201 and len(new.json()["items"]) == 2


def test_the_catalogue_names_the_money_moves() -> None:
    """quota.services.quota_application_move stays the settlement services' primitive (the
    catalogue keeps the money moves, tests/authority/test_catalogue walks them); the entry
    points by hand (partner API, Django admin) ask is_money_move."""
    from quota import catalogue

    assert catalogue.is_money_move(S.TO_SETTLE, S.TO_PAY)
    assert not catalogue.is_money_move(S.PAID, S.COMPLETED)
    assert not catalogue.is_money_move(S.ACCEPTED, S.TO_PAY)
    assert catalogue.partner_moves(S.TO_PAY) == set()
    assert catalogue.partner_moves(S.PAID) == {S.COMPLETED}


def test_the_django_admins_moves_by_hand_refuse_money_moves_too(autohaus: Partner) -> None:
    """The Django admin (the partner's fallback back office) moves through
    quota_applications_move / quota_application_move_by_hand: the same refusal."""
    from quota.admin import BulkMoveForm
    from quota.services import MONEY_MOVE, QuotaError, quota_application_move_by_hand, quota_applications_move

    to_settle = ApplicationFactory.create(status=S.TO_SETTLE)

    moved, refused = quota_applications_move(applications=[to_settle], status=S.TO_PAY, actor=None)
    with pytest.raises(QuotaError) as single:
        quota_application_move_by_hand(application=to_settle, status=S.PAID, actor=None)
    offered = {code for code, _ in BulkMoveForm().fields["status"].choices}  # type: ignore[attr-defined]

    assert moved == [] and refused[0][0] == to_settle and "Abrechnungsläufe" in refused[0][1]
    assert single.value.code == MONEY_MOVE
    assert status_of(to_settle) == S.TO_SETTLE
    assert not offered & {S.TO_SETTLE, S.PAID, S.PAYMENT_FAILURE} and S.TO_PAY in offered
