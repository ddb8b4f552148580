"""What the reader says of a page: the result every stage adds to, and the upload stores."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field

from .find import Straightened


@dataclass(frozen=True)
class Reading:
    is_zlb: bool
    readable: bool
    score: int  # evidence items for a ZB I (ruling, header words, label codes, value patterns)
    vin: str | None = None  # E
    first_registration: datetime.date | None = None  # B
    vehicle_class: str | None = None  # J
    energy_code: str | None = None  # 10
    is_electric: bool | None = None
    # zb1, or what it is not: teil2, coc, invoice, webpage, tax, idcard, other, empty; or
    # blurred: a ZB I whose values no one can read (IMGC007)
    kind: str = "unknown"
    grid: float = 0.0
    registration_date: datetime.date | None = None  # I
    make: str | None = None  # D.1
    model: str | None = None  # D.3
    plate: str | None = None  # A
    fuel: str | None = None  # P.3
    maker_key: str | None = None  # 2.1
    check_digit: str | None = None  # 3: the KBA check digit of E
    holder_name: str | None = None  # C1.1
    holder_first_names: str | None = None  # C1.2
    confidence: Mapping[str, float] = field(default_factory=dict)  # per field code, 0..1
    # per field code, the rule that decided its value (decide.py), or why it was left unread
    decided_by: Mapping[str, str] = field(default_factory=dict)
    # per field code, where its value lies on the picture read: [x0, y0, x1, y1] in shares of
    # the picture's width and height
    boxes: Mapping[str, tuple[float, float, float, float]] = field(default_factory=dict)
    unread: tuple[str, ...] = ()  # fields seen but not read surely: stored empty, flagged
    # The located page (None when the form was not found): the display copy blacks out the
    # holder panel through it (registrations.redaction).
    page: Straightened | None = field(default=None, compare=False, repr=False)

    @property
    def needs_review(self) -> bool:
        """For the back office: a field failed, or it is not an electric vehicle."""
        return bool(self.unread) or self.is_electric is not True
