"""The status catalogue of spec/customer-portal.md section 4 as a state machine.

The `qa_*` codes are the application's states; the second catalogue's labels are their display
names (German and English). The expected path is what a card's timeline shows as future steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.i18n import Language
from quota.models import QuotaStatus as S


@dataclass(frozen=True)
class StatusInfo:
    label: str  # the second catalogue's name, used by the back office and exports
    title_de: str
    title_en: str
    text_de: str = ""
    text_en: str = ""

    def title(self, language: Language) -> str:
        return self.title_en if language == "en" else self.title_de

    def text(self, language: Language) -> str:
        return self.text_en if language == "en" else self.text_de


CATALOGUE: dict[str, StatusInfo] = {
    S.CREATED: StatusInfo(
        "created",
        "Registrierung eingegangen",
        "Registration received",
        "Wir haben Ihre Registrierung erhalten.",
        "We have received your registration.",
    ),
    S.ENTERED: StatusInfo(
        "entered",
        "Erfasst",
        "Entered",
        "Ihre Angaben sind vollständig erfasst.",
        "Your details have been entered.",
    ),
    S.PICKED_UP: StatusInfo(
        "picked_up",
        "In Prüfung",
        "Picked up",
        "Wir prüfen Ihren Fahrzeugschein.",
        "We are checking your registration certificate.",
    ),
    S.SENT_TO_UBA: StatusInfo(
        "sent_to_uba",
        "An das Umweltbundesamt übermittelt",
        "Sent to UBA",
        "Das Umweltbundesamt prüft Ihre Quote.",
        "The Federal Environment Agency is checking your quota.",
    ),
    S.ACCEPTED: StatusInfo(
        "accepted_by_authority",
        "Vom Umweltbundesamt bestätigt",
        "Accepted by authority",
        "Ihre Quote wurde bestätigt.",
        "Your quota has been confirmed.",
    ),
    S.TO_PAY: StatusInfo(
        "to_pay",
        "Zur Auszahlung freigegeben",
        "To pay",
        "Ihre Prämie ist zur Auszahlung freigegeben.",
        "Your premium has been released for payout.",
    ),
    S.TO_SETTLE: StatusInfo(
        "to_settle",
        "Auszahlung in Vorbereitung",
        "Payout being prepared",
        "Ihre Auszahlung ist für den nächsten Zahlungslauf eingeplant.",
        "Your payout is scheduled for the next payment run.",
    ),
    S.PAID: StatusInfo(
        "paid",
        "Ausgezahlt",
        "Paid",
        "Ihre Prämie wurde ausgezahlt.",
        "Your premium has been paid out.",
    ),
    S.PAYMENT_FAILURE: StatusInfo(
        "payment_failure",
        "Auszahlung fehlgeschlagen",
        "Payment failure",
        "Bitte prüfen Sie Ihre Bankverbindung.",
        "Please check your bank details.",
    ),
    S.COMPLETED: StatusInfo(
        "completed",
        "Abgeschlossen",
        "Completed",
        "Ihre Registrierung für dieses Jahr ist abgeschlossen.",
        "Your registration for this year is complete.",
    ),
    S.TEST: StatusInfo("test", "Test", "Test"),
    S.DOUBLE_REGISTRATION: StatusInfo(
        "rejected_manually_not_eligible", "Abgelehnt: Doppelte Registrierung", "Rejected: double registration"
    ),
    S.COLOR_COPY_UNREADABLE: StatusInfo(
        "rejected_manually_image_unreadable",
        "Abgelehnt: Fahrzeugschein nicht lesbar",
        "Rejected: image unreadable",
    ),
    S.NOT_AN_ELECTRIC_CAR: StatusInfo(
        "rejected_manually_not_bev",
        "Abgelehnt: kein reines Elektrofahrzeug",
        "Rejected: not a battery-electric vehicle",
    ),
    S.APPROVAL_DATE_IN_THE_FUTURE: StatusInfo(
        "rejected_manually_not_eligible",
        "Abgelehnt: Zulassung liegt in der Zukunft",
        "Rejected: approval date in the future",
    ),
    S.REJECTED_BY_PLATFORM: StatusInfo(
        "rejected_by_platform", "Von der Plattform abgelehnt", "Rejected by platform"
    ),
    S.MANUALLY_REJECTED: StatusInfo("manually_rejected", "Abgelehnt", "Manually rejected"),
    S.REJECTED_BY_AUTHORITY: StatusInfo(
        "rejected_by_authority", "Vom Umweltbundesamt abgelehnt", "Rejected by authority"
    ),
    S.REJECTED_BY_PARTNER: StatusInfo("rejected_by_partner", "Vom Partner abgelehnt", "Rejected by partner"),
}

# The way an application normally goes; the timeline shows what is still ahead on it.
EXPECTED_PATH: list[str] = [
    S.CREATED,
    S.ENTERED,
    S.PICKED_UP,
    S.SENT_TO_UBA,
    S.ACCEPTED,
    S.TO_PAY,
    S.TO_SETTLE,
    S.PAID,
    S.COMPLETED,
]
# Off-path states that rejoin the path: what lies ahead of them.
REJOINS: dict[str, str] = {S.PAYMENT_FAILURE: S.TO_PAY}

# Rejections: their reason is the subtitle, shown in italics (section 4). These four need one.
REASON_REQUIRED = {
    S.MANUALLY_REJECTED,
    S.REJECTED_BY_AUTHORITY,
    S.REJECTED_BY_PLATFORM,
    S.REJECTED_BY_PARTNER,
}
REJECTIONS = REASON_REQUIRED | {
    S.DOUBLE_REGISTRATION,
    S.COLOR_COPY_UNREADABLE,
    S.NOT_AN_ELECTRIC_CAR,
    S.APPROVAL_DATE_IN_THE_FUTURE,
}

_EARLY_REJECTIONS = REJECTIONS - {S.REJECTED_BY_AUTHORITY}
# The money path (issue 17): the authority's answer (accepted / rejected_by_authority), then
# the partner's payout: to_pay -> to_settle (in a settlement batch) -> paid -> completed; a
# failed transfer (from the batch, or a bank return after paid) goes to payment_failure and,
# with corrected bank details, back to to_pay; a failure that was paid after all goes to paid.
# A batch that is dropped gives its applications back (to_settle -> to_pay).
MOVES: dict[str, set[str]] = {
    S.CREATED: {S.ENTERED, S.PICKED_UP, S.TEST} | _EARLY_REJECTIONS,
    S.ENTERED: {S.PICKED_UP, S.TEST} | _EARLY_REJECTIONS,
    S.PICKED_UP: {S.SENT_TO_UBA} | _EARLY_REJECTIONS,
    S.SENT_TO_UBA: {S.ACCEPTED, S.REJECTED_BY_AUTHORITY, S.DOUBLE_REGISTRATION},
    S.ACCEPTED: {S.TO_PAY},
    S.TO_PAY: {S.TO_SETTLE},
    S.TO_SETTLE: {S.PAID, S.PAYMENT_FAILURE, S.TO_PAY},
    S.PAID: {S.COMPLETED, S.PAYMENT_FAILURE},
    S.PAYMENT_FAILURE: {S.TO_PAY, S.PAID},
    # A new, readable image puts the application back into the queue.
    S.COLOR_COPY_UNREADABLE: {S.ENTERED},
    S.COMPLETED: set(),
    S.TEST: set(),
    S.DOUBLE_REGISTRATION: set(),
    S.NOT_AN_ELECTRIC_CAR: set(),
    S.APPROVAL_DATE_IN_THE_FUTURE: set(),
    S.REJECTED_BY_PLATFORM: set(),
    S.MANUALLY_REJECTED: set(),
    S.REJECTED_BY_AUTHORITY: set(),
    S.REJECTED_BY_PARTNER: set(),
}

# Statuses that give up the vehicle's place in the double-registration registry
# (authority.registry): final rejections and test applications no longer claim the quota, so
# the same vehicle may be registered again for that year (on this partner or another one).
# `color_copy_unreadable` keeps it (a new image puts the application back on the path);
# `double_registration` never held it.
RELEASES_VEHICLE: set[str] = {
    S.NOT_AN_ELECTRIC_CAR,
    S.APPROVAL_DATE_IN_THE_FUTURE,
    S.REJECTED_BY_PLATFORM,
    S.MANUALLY_REJECTED,
    S.REJECTED_BY_AUTHORITY,
    S.REJECTED_BY_PARTNER,
    S.TEST,
}


# Once an application reached the authority (or the money path), its vehicle's quota for that
# year is spent: erasing the owner must not let the same vehicle be registered and paid again.
# Those entries of the double-registration registry (authority.registry) stay (a keyed hash, a
# partner and a now dangling application id: nothing that leads back to the owner without the
# VIN); earlier ones are freed with the application.
SPENT_STATUSES = frozenset(
    {
        S.SENT_TO_UBA,
        S.ACCEPTED,
        S.TO_PAY,
        S.TO_SETTLE,
        S.PAID,
        S.PAYMENT_FAILURE,
        S.COMPLETED,
    }
)


# Moves only the platform makes (authority.services, authority.registry): the package for the
# authority, its answer, and the registry's verdict. A partner's back office is never offered
# them: an application marked sent by hand would be in no package and get no answer.
PLATFORM_MOVES: set[str] = {S.SENT_TO_UBA, S.ACCEPTED, S.REJECTED_BY_AUTHORITY, S.DOUBLE_REGISTRATION}


# The money states (issue 46): an application in a settlement item. They are entered and left
# only by the settlement services (operations.settlement: create batch, remove item, mark paid,
# record failure, re-queue a failed payment), which keep the item and the application in step;
# a generic move (partner API, Django admin) would pay an application twice or mark it paid
# without a batch. `qa_to_pay` is the queue a batch takes from, not a money state: the back
# office releases an accepted application to it. Closing a paid application (paid → completed)
# moves no money and stays a back-office move.
MONEY_STATES: set[str] = {S.TO_SETTLE, S.PAID, S.PAYMENT_FAILURE}
CLOSING_MOVES: set[tuple[str, str]] = {(S.PAID, S.COMPLETED)}


def is_money_move(origin: str, target: str) -> bool:
    """A move into or out of a money state: the settlement services' alone."""
    if (origin, target) in CLOSING_MOVES:
        return False
    return origin in MONEY_STATES or target in MONEY_STATES


def allowed_moves(status: str) -> set[str]:
    return MOVES.get(status, set())


def partner_moves(status: str) -> set[str]:
    """What a partner's staff may do with an application in this status by hand: neither the
    platform's moves nor the money moves (those are made by the settlement calls)."""
    return {target for target in allowed_moves(status) - PLATFORM_MOVES if not is_money_move(status, target)}


def ahead_of(status: str) -> list[str]:
    """The expected steps still to come after a status (none after a rejection or the end)."""
    anchor = REJOINS.get(status)
    if anchor is not None:
        return EXPECTED_PATH[EXPECTED_PATH.index(anchor) :]
    if status in EXPECTED_PATH:
        return EXPECTED_PATH[EXPECTED_PATH.index(status) + 1 :]
    return []
