"""The partner area's writes on applications: bulk moves through the status catalogue
(quota.services.quota_application_move, one application at a time, each refusal reported) and
the staff's single-deal assignment; every change is audited (staff.audit)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from common.i18n import Language
from operations import errors as ops_errors
from operations.attribution import single_deal_ceiling_refusal, single_deal_refusal
from operations.models import SingleDeal
from quota import catalogue
from quota.models import QuotaApplication
from quota.services import (
    ILLEGAL_MOVE,
    MONEY_MOVE,
    MONEY_MOVE_TEXT,
    QuotaError,
    quota_application_move_by_hand,
)
from staff.audit import audit_record
from staff.models import StaffMember

MAX_IDS = 500


def _refusal_text(error: QuotaError, *, current: str, status: str, language: Language) -> str:
    """The catalogue's refusal in the staff's language."""
    if error.code == "QA002":
        origin = catalogue.CATALOGUE[current].title(language)
        target = catalogue.CATALOGUE[status].title(language) if status in catalogue.CATALOGUE else status
        if language == "en":
            return f"{origin} → {target}: this move is not allowed."
        return f"{origin} → {target}: Dieser Statuswechsel ist nicht erlaubt."
    if error.code == "QA003":
        return (
            "This rejection needs a reason."
            if language == "en"
            else "Diese Ablehnung braucht eine Begründung."
        )
    if error.code == MONEY_MOVE:
        return money_move_text(language)
    return error.message


def money_moves_asked(*, ids: list[int], status: str) -> list[int]:
    """The ids whose move to `status` would be a money move (catalogue.is_money_move): the
    whole call is refused for them, before anything moves. Any id when the target itself is a
    money state; out of a money state, the moves the catalogue has (the others it refuses per
    id, as any move it does not know)."""
    current = dict(QuotaApplication.objects.filter(pk__in=ids).values_list("pk", "status"))
    return [
        pk
        for pk in dict.fromkeys(ids)
        if status in catalogue.MONEY_STATES
        or (
            catalogue.is_money_move(current.get(pk, ""), status)
            and status in catalogue.allowed_moves(current.get(pk, ""))
        )
    ]


def money_move_text(language: Language) -> str:
    return MONEY_MOVE_TEXT[1] if language == "en" else MONEY_MOVE_TEXT[0]


def partner_applications_move(
    *, member: StaffMember, ids: list[int], status: str, reason: str, language: Language = "de"
) -> list[dict[str, Any]]:
    """Each id on its own (a refusal does not stop the others): a result per id, in order."""
    known = {a.pk: a for a in QuotaApplication.objects.filter(pk__in=ids)}
    results: list[dict[str, Any]] = []
    for pk in dict.fromkeys(ids):
        application = known.get(pk)
        if application is None:
            results.append(
                {"id": pk, "ok": False, "detail": ops_errors.text(ops_errors.APPLICATION_UNKNOWN, language)}
            )
            continue
        try:
            if status in catalogue.PLATFORM_MOVES:
                # The platform's moves (authority package and answer, registry verdict) are never
                # made by hand: an application marked sent would be in no package.
                raise QuotaError(ILLEGAL_MOVE, f"{application.status} → {status}: platform only.")
            with transaction.atomic():
                before = QuotaApplication.objects.select_for_update().get(pk=pk).status
                quota_application_move_by_hand(
                    application=application, status=status, actor=member.user, reason=reason
                )
                audit_record(
                    actor=member, action="quota_application.move", obj=application,
                    before={"status": before}, after={"status": status, "reason": reason.strip()},
                )  # fmt: skip
        except QuotaError as error:
            current = QuotaApplication.objects.values_list("status", flat=True).get(pk=pk)
            results.append(
                {
                    "id": pk,
                    "ok": False,
                    "error_code": error.code,
                    "detail": _refusal_text(error, current=current, status=status, language=language),
                }
            )
            continue
        results.append({"id": pk, "ok": True})
    return results


def deal_ceiling_refusals(*, deal: SingleDeal, ids: list[int]) -> list[dict[str, Any]]:
    """The asked applications whose vehicle class and year cap a payout below the deal's price
    (common.payout_bounds): id, year, class and the message; empty when all are within."""
    found = []
    rows = (
        QuotaApplication.objects.filter(pk__in=ids)
        .select_related("registration")
        .only("pk", "legislation_year", "registration__vehicle_class")
        .order_by("pk")
    )
    for application in rows:
        vehicle_class = application.registration.vehicle_type
        message = single_deal_ceiling_refusal(
            deal, year=application.legislation_year, vehicle_class=vehicle_class
        )
        if message is not None:
            found.append(
                {
                    "id": application.pk,
                    "legislation_year": application.legislation_year,
                    "vehicle_class": vehicle_class,
                    "detail": message,
                }
            )
    return found


def partner_applications_deal_assign(
    *, member: StaffMember, ids: list[int], single_deal: SingleDeal | None, language: Language = "de"
) -> list[dict[str, Any]]:
    """Attach a single deal (or none) to each application; the deal's years and cap apply as
    in the flow, a refusal per id."""
    known = set(QuotaApplication.objects.filter(pk__in=ids).values_list("pk", flat=True))
    results: list[dict[str, Any]] = []
    for pk in dict.fromkeys(ids):
        if pk not in known:
            results.append(
                {"id": pk, "ok": False, "detail": ops_errors.text(ops_errors.APPLICATION_UNKNOWN, language)}
            )
            continue
        with transaction.atomic():
            deal = SingleDeal.objects.select_for_update().get(pk=single_deal.pk) if single_deal else None
            application = QuotaApplication.objects.select_for_update().get(pk=pk)
            if application.single_deal_id == (deal.pk if deal else None):
                results.append({"id": pk, "ok": True})
                continue
            if deal is not None:
                refusal = single_deal_refusal(
                    deal,
                    year=application.legislation_year,
                    registration_id=application.registration_id,
                    vehicle_class=application.registration.vehicle_type,
                )
                if refusal is not None:
                    results.append({"id": pk, "ok": False, "error_code": refusal[0], "detail": refusal[1]})
                    continue
            before = application.single_deal_id
            application.single_deal = deal
            application.save(update_fields=["single_deal", "updated_at"])
            audit_record(
                actor=member, action="quota_application.single_deal", obj=application,
                before={"single_deal": before}, after={"single_deal": deal.pk if deal else None},
            )  # fmt: skip
        results.append({"id": pk, "ok": True})
    return results
