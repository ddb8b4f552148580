"""Which vehicles may claim a quota (38. BImSchV as amended in 2023; DESIGN.md "Domain rules"),
decided where the document is read (registrations.services.registration_create: the flow's
upload, which the portal's "Neue Registrierung" uses too, and the bulk uploads of the partner
API), and whether the holder printed on it is the person who is paid.

- Pure battery-electric only: field 10 is 0004 (P.3 "Elektro"). A plug-in hybrid, a fuel-cell
  vehicle and a combustion engine are refused (IMGC008).
- Classes M1, M3, N1, N2, N3 and the registered L classes L3e, L4e, L5e, L7e (an off-road "G"
  variant counts as its class). The registration-exempt L1e, L2e and L6e (mopeds and light quads
  up to 45 km/h) lost their quota with the 2023 amendment and are refused with that reason
  (IMGC009); any other class (M2, trailers O1-O4) has no credited energy and is refused too
  (IMGC010).

Only a value the reader is sure of refuses: one it stored (decided by its rules, never a single
unconfirmed read), did not leave unread and holds with the review's confidence (0.8). A field it could not read goes to the review
(needs_review), never to a refusal on a guess; so does a code 10 the P.3 text contradicts.

The holder (C.1.1 name or firm, C.1.2 first names) is compared with the billing name when the
applications are made (quota.services.quota_applications_create): a mismatch is flagged for
review, never refused, because leased and company vehicles are registered to someone else.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any, Protocol

from registrations import errors
from registrations.errors import ScanRejected
from registrations.models import BevRegistration
from registrations.reader import ELECTRIC
from registrations.reader.validate import fuel_code

if TYPE_CHECKING:
    from registrations.reader import Reading

# billing's B2B placeholder client (billing.services.B2B_SOURCE; spec section 3)
B2B_PLACEHOLDER_SOURCE = "b2b_fe"


class BillingName(Protocol):
    """The billing name the holder is compared with: what this module reads of billing's Client
    (billing sits above registrations and is not imported here)."""

    @property
    def source(self) -> str: ...

    @property
    def vehicle_owner_type(self) -> str: ...

    @property
    def name_of_business(self) -> str: ...

    @property
    def first_name(self) -> str: ...

    @property
    def last_name(self) -> str: ...


ELIGIBLE_CLASSES = frozenset({"M1", "M3", "N1", "N2", "N3", "L3e", "L4e", "L5e", "L7e"})
EXEMPT_CLASSES = frozenset({"L1e", "L2e", "L6e"})


def class_base(vehicle_class: str) -> str:
    """The class without the off-road suffix (M1G is an M1, N3G an N3)."""
    value = vehicle_class.strip()
    return value[:-1] if len(value) == 3 and value[0] in "MN" and value.endswith("G") else value


# Below this confidence a stored value is one the review looks at (quota.review_selectors.
# REVIEW_CONFIDENCE, the same 0.8; registrations may not import quota): it refuses nothing.
SURE_CONFIDENCE = 0.8


def _sure(reading: Reading, code: str, value: Any) -> bool:
    if value is None or value == "" or code in reading.unread:
        return False
    confidence = reading.confidence.get(code)
    return confidence is None or confidence >= SURE_CONFIDENCE


def eligibility_refusal(reading: Reading) -> ScanRejected | None:
    """The refusal for a vehicle the reader is sure is not eligible; None otherwise (eligible,
    or not sure: the registration is stored and the review decides)."""
    energy = reading.energy_code
    # P.3 naming "Elektro" beside a non-electric code 10: one of them is misread, a person looks
    # (the registration is not electric for the review either way).
    electric_named = bool(reading.fuel) and fuel_code(reading.fuel or "") == ELECTRIC
    if _sure(reading, "10", energy) and energy != ELECTRIC and not electric_named:
        return ScanRejected(errors.NOT_ELECTRIC, {"energy_code": energy, "fuel": reading.fuel or ""})
    vehicle_class = reading.vehicle_class
    if _sure(reading, "J", vehicle_class):
        assert vehicle_class is not None
        base = class_base(vehicle_class)
        if base in EXEMPT_CLASSES:
            return ScanRejected(errors.EXEMPT_CLASS, {"vehicle_class": vehicle_class})
        if base not in ELIGIBLE_CLASSES:
            return ScanRejected(errors.CLASS_NOT_ELIGIBLE, {"vehicle_class": vehicle_class})
    return None


# ---------------------------------------------------------------------------- the holder

_UMLAUTS = str.maketrans({"Ä": "AE", "Ö": "OE", "Ü": "UE", "ß": "SS", "ẞ": "SS"})
# Legal forms and titles say nothing about who it is: "Muster GmbH" is "MUSTER".
_NOISE = frozenset(
    {
        "GMBH", "MBH", "AG", "KG", "OHG", "GBR", "UG", "EK", "EV", "SE", "CO", "UND", "HAFTUNGSBESCHRAENKT",
        "DR", "PROF", "DIPL", "ING", "HERR", "FRAU",
    }
)  # fmt: skip


def name_tokens(text: str) -> set[str]:
    """The words of a name, in capitals, umlauts spelled out (the document prints ÄÖÜ, an owner
    may type AE), accents dropped, punctuation and legal forms left out."""
    upper = text.upper().translate(_UMLAUTS)
    flat = unicodedata.normalize("NFKD", upper).encode("ascii", "ignore").decode()
    return {word for word in re.split(r"[^A-Z0-9]+", flat) if word and word not in _NOISE}


def holder_matches(registration: BevRegistration, client: BillingName) -> bool | None:
    """Whether the holder printed on the document is the billing name: None where the reader did
    not read the holder or there is no billing name (the B2B flow's placeholder client, whose
    name is 'registration b2b2c': the partner's fleet contract covers it), True where it is the
    same person or firm."""
    holder = name_tokens(registration.holder_name)
    if not holder or client.source == B2B_PLACEHOLDER_SOURCE:
        return None
    first_names = name_tokens(registration.holder_first_names)
    business = name_tokens(client.name_of_business) if client.vehicle_owner_type == "business" else set()
    if business and (business <= holder or holder <= business):
        return True
    last = name_tokens(client.last_name)
    if not last or not last <= holder:
        return False
    # C.1.2 holds all first names; the owner types one of them (or none was printed: a firm).
    first = name_tokens(client.first_name)
    return not first_names or not first or bool(first & first_names)


def registration_holder_check(*, registration: BevRegistration, client: BillingName) -> bool | None:
    """Compares the holder with the billing name and keeps the answer on the registration; a
    mismatch sends it to the review (needs_review). Runs inside the caller's transaction."""
    matches = holder_matches(registration, client)
    mismatch = None if matches is None else not matches
    if mismatch == registration.holder_mismatch:
        return mismatch
    needs_review = registration.needs_review or mismatch is True
    BevRegistration.objects.filter(pk=registration.pk).update(
        holder_mismatch=mismatch, needs_review=needs_review
    )
    registration.holder_mismatch, registration.needs_review = mismatch, needs_review
    return mismatch
