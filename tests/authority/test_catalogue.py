"""The status catalogue (quota/catalogue.py): every move the money path needs exists, every other
move is refused with the catalogue's reason, and every status has its German and English texts."""

from __future__ import annotations

import pytest
from django.db import transaction
from django_tenants.utils import schema_context

from quota import catalogue
from quota.models import QuotaApplication
from quota.models import QuotaStatus as S
from quota.services import QuotaError, quota_application_move
from tests.factories import ApplicationFactory

pytestmark = pytest.mark.django_db

MONEY_PATH = [
    (S.CREATED, S.ENTERED),
    (S.ENTERED, S.PICKED_UP),
    (S.PICKED_UP, S.SENT_TO_UBA),
    (S.SENT_TO_UBA, S.ACCEPTED),
    (S.SENT_TO_UBA, S.REJECTED_BY_AUTHORITY),
    (S.SENT_TO_UBA, S.DOUBLE_REGISTRATION),
    (S.CREATED, S.DOUBLE_REGISTRATION),
    (S.ACCEPTED, S.TO_PAY),
    (S.TO_PAY, S.TO_SETTLE),
    (S.TO_SETTLE, S.PAID),
    (S.TO_SETTLE, S.PAYMENT_FAILURE),
    (S.TO_SETTLE, S.TO_PAY),
    (S.PAID, S.PAYMENT_FAILURE),
    (S.PAYMENT_FAILURE, S.PAID),
    (S.PAYMENT_FAILURE, S.TO_PAY),
    (S.PAID, S.COMPLETED),
]


@pytest.mark.parametrize(("before", "after"), MONEY_PATH)
def test_the_money_path_has_its_move(before: str, after: str) -> None:
    assert after in catalogue.allowed_moves(before)


def test_the_whole_path_runs_through_the_move_function_with_actor_and_reason() -> None:
    with schema_context("p_autohaus"):
        application = ApplicationFactory.create()
        path = [S.ENTERED, S.PICKED_UP, S.SENT_TO_UBA, S.ACCEPTED, S.TO_PAY, S.TO_SETTLE, S.PAYMENT_FAILURE,
                S.TO_PAY, S.TO_SETTLE, S.PAID, S.COMPLETED]  # fmt: skip
        for status in path:
            application = quota_application_move(
                application=application,
                status=status,
                actor=application.registration.owner,
                reason=f"→ {status}",
            )
        history = list(application.status_changes.values_list("status", "reason", "actor"))
    assert [h[0] for h in history] == [S.CREATED, *path]
    assert all(reason == f"→ {status}" and actor is not None for status, reason, actor in history[1:])


@pytest.mark.parametrize("before", list(S))
def test_every_move_not_in_the_catalogue_is_refused_and_every_one_in_it_is_made(before: str) -> None:
    reason = "Begründung der Prüfung"
    with schema_context("p_autohaus"):
        application = ApplicationFactory.create(status=before)
        for after in S:
            with transaction.atomic():
                sid = transaction.savepoint()
                if after in catalogue.allowed_moves(before):
                    moved = quota_application_move(
                        application=application, status=after, actor=None, reason=reason
                    )
                    assert moved.status == after
                else:
                    with pytest.raises(QuotaError) as refused:
                        quota_application_move(
                            application=application, status=after, actor=None, reason=reason
                        )
                    assert refused.value.code == "QA002"
                    assert "this move is not allowed" in refused.value.message
                    assert QuotaApplication.objects.get(pk=application.pk).status == before
                transaction.savepoint_rollback(sid)


@pytest.mark.parametrize("status", sorted(catalogue.REASON_REQUIRED))
def test_a_rejection_that_needs_a_reason_is_refused_without_one(status: str) -> None:
    before = S.SENT_TO_UBA if status == S.REJECTED_BY_AUTHORITY else S.CREATED
    with schema_context("p_autohaus"):
        application = ApplicationFactory.create(status=before)
        with pytest.raises(QuotaError) as refused:
            quota_application_move(application=application, status=status, actor=None, reason="  ")
    assert refused.value.code == "QA003"


def test_every_status_has_german_and_english_titles_and_the_card_wording() -> None:
    for status in S:
        info = catalogue.CATALOGUE[status]
        assert info.title_de and info.title_en and info.label
    # the portal card's wording (spec section 4 labels; "Ausgezahlt" on a paid card)
    assert catalogue.CATALOGUE[S.PAID].title("de") == "Ausgezahlt"
    assert catalogue.CATALOGUE[S.PAID].title("en") == "Paid"
    assert catalogue.CATALOGUE[S.SENT_TO_UBA].label == "sent_to_uba"
    assert catalogue.CATALOGUE[S.ACCEPTED].label == "accepted_by_authority"
    assert catalogue.CATALOGUE[S.REJECTED_BY_AUTHORITY].label == "rejected_by_authority"
    assert catalogue.CATALOGUE[S.PAYMENT_FAILURE].label == "payment_failure"


def test_what_lies_ahead_on_the_money_path() -> None:
    assert catalogue.ahead_of(S.ACCEPTED) == [S.TO_PAY, S.TO_SETTLE, S.PAID, S.COMPLETED]
    assert catalogue.ahead_of(S.TO_SETTLE) == [S.PAID, S.COMPLETED]
    assert catalogue.ahead_of(S.PAYMENT_FAILURE) == [S.TO_PAY, S.TO_SETTLE, S.PAID, S.COMPLETED]
    assert catalogue.ahead_of(S.DOUBLE_REGISTRATION) == []
    assert catalogue.ahead_of(S.COMPLETED) == []


def test_a_partners_back_office_is_not_offered_the_platforms_moves(client) -> None:  # type: ignore[no-untyped-def]
    from quota.services import back_office_staff_ensure
    from tests.staff_login import client_staff_login

    host = "autohaus.localhost"
    with schema_context("p_autohaus"):
        back_office_staff_ensure(username="anna", email="anna@autohaus.example", password="Staff_2026!")
        picked = ApplicationFactory.create(status=S.PICKED_UP)
        sent = ApplicationFactory.create(status=S.SENT_TO_UBA)
    client_staff_login(client, host=host, username="anna", password="Staff_2026!")

    picked_page = client.get(f"/admin/quota/quotaapplication/{picked.pk}/change/", HTTP_HOST=host).text
    sent_page = client.get(f"/admin/quota/quotaapplication/{sent.pk}/change/", HTTP_HOST=host).text
    by_hand = client.post(
        "/admin/quota/quotaapplication/",
        {
            "action": "move_selected",
            "_selected_action": [str(picked.pk)],
            "apply": "1",
            "status": S.SENT_TO_UBA,
        },
        HTTP_HOST=host,
    )

    assert 'value="qa_manually_rejected"' in picked_page and 'value="qa_sent_to_uba"' not in picked_page
    assert 'value="qa_accepted"' not in sent_page and 'value="qa_rejected_by_authority"' not in sent_page
    assert by_hand.status_code == 200  # the form refuses the choice
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=picked.pk).status == S.PICKED_UP
