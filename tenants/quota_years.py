"""The quota-year calendar (public schema), kept by the platform operator in the platform admin.

One row per legislation year: the authority's deadline (38. BImSchV: the Umweltbundesamt takes a
vehicle's quota for a year until 15 November of that year), the platform's own registration
cut-off (31 October by default: owners may withdraw within 14 days, and the package must reach
the authority before its deadline), the first day the year is taken as a pre-registration
(1 October of the year before: a month in which both years are offered, so an owner registering
in October can already choose the next year), and the credited energy per vehicle class.

It lives in `tenants` because the configuration call (tenants.api) reports the open years and
every domain app (registrations, quota, operations, authority) asks it; tenants is the lowest
layer they all may import.

Credited energy per class (kWh a year; the estimates the environment ministry publishes in the
Bundesanzeiger under 38. BImSchV § 7 Abs. 3): M1 2,000, N1 3,000, M3 72,000 (notice of
2 December 2021, BAnz AT 16.12.2021 B3, valid from 1 January 2022, replaced on 28 August 2023
with these values unchanged); N2 20,600 and N3 33,400 since the notice the BMUV published on
28 August 2023 (as reported by VerkehrsRundschau, 19.09.2023, "THG-Quote: Flottenbetreiber
können von Neuerungen profitieren": "Lkw bis 12 Tonnen (N2) bei 20.600 kWh, für Lkw über 12
Tonnen (N3) bei 33.400 kWh", the other classes unchanged; the earlier seed's 22,000 / 30,000
were a guess from "ten to fifteen times the car value" and are corrected by migration 0008).
The operator checks them against the ministry's notice each year; the admin keeps them per
year. The registered L classes L3e-L7e take the car value, 2,000 (the authority's "other
vehicles", thg-bonus.de/fahrzeugklassen). Registration-exempt L1e, L2e and L6e are not
eligible and have no value.

A year without a row (e.g. 2029 before the operator adds it) gets the law's defaults, so the
sites never go dark; the admin row overrides them.
"""

from __future__ import annotations

import datetime
import hashlib
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

if TYPE_CHECKING:
    from common.partner_config import PartnerConfig

DEADLINE_DAY = (11, 15)  # the authority's deadline in the year itself
CUTOFF_DAY = (10, 31)  # the platform's default registration cut-off
PRE_REGISTRATION_DAY = (10, 1)  # in the year before
COUNTDOWN_DAYS = 14  # the welcome and terms screens count down in the last 14 days

# kWh per vehicle class: see the module docstring for the sources.
DEFAULT_ENERGY_KWH: dict[str, int] = {
    "M1": 2000,
    "N1": 3000,
    "N2": 20600,
    "N3": 33400,
    "M3": 72000,
    "L3e-L7e": 2000,
}
L_CLASSES = ("L3E", "L4E", "L5E", "L7E")


class QuotaYear(models.Model):
    year = models.PositiveSmallIntegerField("Quotenjahr", unique=True)
    authority_deadline = models.DateField(
        "Frist des Umweltbundesamts", help_text="Bis zu diesem Tag nimmt das UBA Anträge für das Jahr an."
    )
    registration_cutoff = models.DateField(
        "Annahmeschluss der Plattform",
        help_text="Letzter Tag, an dem Registrierungen für dieses Jahr angenommen werden "
        "(vor der Frist des UBA: 14 Tage Widerrufsfrist).",
    )
    pre_registration_start = models.DateField(
        "Vorregistrierung ab",
        help_text="Erster Tag, an dem dieses Jahr als nächstes Quotenjahr angeboten wird.",
    )
    energy_m1_kwh = models.PositiveIntegerField("Strommenge M1 (kWh)", default=DEFAULT_ENERGY_KWH["M1"])
    energy_n1_kwh = models.PositiveIntegerField("Strommenge N1 (kWh)", default=DEFAULT_ENERGY_KWH["N1"])
    energy_n2_kwh = models.PositiveIntegerField("Strommenge N2 (kWh)", default=DEFAULT_ENERGY_KWH["N2"])
    energy_n3_kwh = models.PositiveIntegerField("Strommenge N3 (kWh)", default=DEFAULT_ENERGY_KWH["N3"])
    energy_m3_kwh = models.PositiveIntegerField("Strommenge M3 (kWh)", default=DEFAULT_ENERGY_KWH["M3"])
    energy_l_kwh = models.PositiveIntegerField(
        "Strommenge L3e-L7e (kWh)", default=DEFAULT_ENERGY_KWH["L3e-L7e"]
    )
    updated_at = models.DateTimeField("Geändert", auto_now=True)

    class Meta:
        app_label = "tenants"
        verbose_name = "Quotenjahr"
        verbose_name_plural = "Quotenjahre (Kalender)"
        ordering = ["year"]

    def __str__(self) -> str:
        return f"Quotenjahr {self.year}"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.authority_deadline and self.authority_deadline.year != self.year:
            errors["authority_deadline"] = "Die Frist des UBA liegt im Quotenjahr selbst."
        if self.registration_cutoff and self.authority_deadline:
            if self.registration_cutoff > self.authority_deadline:
                errors["registration_cutoff"] = "Der Annahmeschluss liegt vor der Frist des UBA."
            elif self.registration_cutoff.year != self.year:
                errors["registration_cutoff"] = "Der Annahmeschluss liegt im Quotenjahr selbst."
        if self.pre_registration_start and self.registration_cutoff:
            if self.pre_registration_start >= self.registration_cutoff:
                errors["pre_registration_start"] = "Die Vorregistrierung beginnt vor dem Annahmeschluss."
            elif self.pre_registration_start.year < self.year - 1:
                errors["pre_registration_start"] = "Die Vorregistrierung beginnt frühestens im Vorjahr."
        if errors:
            raise ValidationError(errors)


@dataclass(frozen=True)
class YearDates:
    year: int
    authority_deadline: datetime.date
    registration_cutoff: datetime.date
    pre_registration_start: datetime.date
    energy_kwh: tuple[tuple[str, int], ...]

    def is_open(self, today: datetime.date) -> bool:
        return self.pre_registration_start <= today <= self.registration_cutoff

    def credited_energy_kwh(self, vehicle_class: str) -> int | None:
        """The kWh the authority credits a vehicle of this class for the year; None for a class
        that is not eligible (L1e, L2e, L6e, unknown)."""
        return credited_energy(dict(self.energy_kwh), vehicle_class)


def credited_energy(table: dict[str, int], vehicle_class: str) -> int | None:
    code = (vehicle_class or "M1").strip().upper()
    if code.startswith(L_CLASSES):
        return table.get("L3e-L7e")
    return table.get(code[:2]) if code[:2] in {"M1", "N1", "N2", "N3", "M3"} else None


def year_defaults(year: int) -> YearDates:
    return YearDates(
        year=year,
        authority_deadline=datetime.date(year, *DEADLINE_DAY),
        registration_cutoff=datetime.date(year, *CUTOFF_DAY),
        pre_registration_start=datetime.date(year - 1, *PRE_REGISTRATION_DAY),
        energy_kwh=tuple(DEFAULT_ENERGY_KWH.items()),
    )


def _dates(row: QuotaYear) -> YearDates:
    return YearDates(
        year=row.year,
        authority_deadline=row.authority_deadline,
        registration_cutoff=row.registration_cutoff,
        pre_registration_start=row.pre_registration_start,
        energy_kwh=(
            ("M1", row.energy_m1_kwh),
            ("N1", row.energy_n1_kwh),
            ("N2", row.energy_n2_kwh),
            ("N3", row.energy_n3_kwh),
            ("M3", row.energy_m3_kwh),
            ("L3e-L7e", row.energy_l_kwh),
        ),
    )


# The calendar is read by the hottest call (the configuration): kept per process and read again
# from the database at most once a CALENDAR_TTL (an admin edit shows within that time).
CALENDAR_TTL = 30.0
_lock = threading.Lock()
_calendar: tuple[float, dict[int, YearDates], str] | None = None


def _loaded() -> tuple[float, dict[int, YearDates], str]:
    global _calendar
    cached = _calendar
    if cached is not None and time.monotonic() - cached[0] < CALENDAR_TTL:
        return cached
    rows = {row.year: _dates(row) for row in QuotaYear.objects.all()}
    stamp = hashlib.sha256(repr(sorted(rows.items())).encode()).hexdigest()[:10]
    loaded = (time.monotonic(), rows, stamp)
    with _lock:
        _calendar = loaded
    return loaded


def calendar() -> dict[int, YearDates]:
    return _loaded()[1]


def calendar_stamp() -> str:
    """Changes with any edit of the calendar: part of the configuration answer's ETag."""
    return _loaded()[2]


def calendar_forget() -> None:
    """After an edit (admin, tests): the next read goes to the database."""
    global _calendar
    with _lock:
        _calendar = None


def quota_year(year: int) -> YearDates:
    return calendar().get(year) or year_defaults(year)


def open_years(today: datetime.date, config: PartnerConfig) -> list[int]:
    """The legislation years a partner takes registrations for on that day: the calendar's open
    years and the partner's flags together. `current_year` offers the running year until its
    cut-off; `next_year` offers the next one from its pre-registration start. A partner that
    sells the running year only sells the next one once the running year closed (November,
    December): the site never goes dark and never sells a year the authority will refuse."""
    choices = config.qa_create_choices
    current, following = quota_year(today.year), quota_year(today.year + 1)
    years = []
    if choices.current_year and current.is_open(today):
        years.append(today.year)
    rolled_over = choices.current_year and today > current.registration_cutoff
    if (choices.next_year or rolled_over) and following.is_open(today):
        years.append(today.year + 1)
    return years


def next_open_year(today: datetime.date, config: PartnerConfig) -> int | None:
    years = open_years(today, config)
    if years:
        return years[0]
    # Nothing open today (the partner offers no year that is open): the first year that opens.
    for year in (today.year + 1, today.year + 2):
        if quota_year(year).pre_registration_start > today:
            return year
    return None


def de_date(day: datetime.date) -> str:
    return f"{day.day:02d}.{day.month:02d}.{day.year}"


def year_closed_message(year: int, today: datetime.date, config: PartnerConfig) -> str:
    """The 400's German message for a year that is not open: why, and the next open year."""
    dates = quota_year(year)
    if year < today.year or today > dates.registration_cutoff:
        why = f"Für {year} werden keine Registrierungen mehr angenommen (Annahmeschluss {de_date(dates.registration_cutoff)})."
    elif today < dates.pre_registration_start:
        why = f"Registrierungen für {year} sind erst ab {de_date(dates.pre_registration_start)} möglich."
    else:
        why = f"Das Quotenjahr {year} wird hier nicht angeboten."
    upcoming = next_open_year(today, config)
    if upcoming is None:
        return why
    if upcoming in open_years(today, config):
        until = de_date(quota_year(upcoming).registration_cutoff)
        return f"{why} Bitte wählen Sie das Quotenjahr {upcoming} (möglich bis {until})."
    start = de_date(quota_year(upcoming).pre_registration_start)
    return f"{why} Das nächste Quotenjahr ist {upcoming} (Registrierung ab {start})."


def allowed_registration_years(config: PartnerConfig, today: datetime.date | None = None) -> list[int]:
    """The years open on the day (today by default): the calendar and the partner's flags
    together (open_years); every way in (flow, portal, bulk, partner API) asks it. Here, below
    the apps, so that registrations asks it without importing quota."""
    return open_years(today or timezone.localdate(), config)


def open_years_payload(today: datetime.date, config: PartnerConfig) -> dict[str, object]:
    """What the configuration call reports: the open years, until when each is open, and the
    days left in the last COUNTDOWN_DAYS (the welcome and terms screens count down)."""
    years = open_years(today, config)
    entries = []
    for year in years:
        cutoff = quota_year(year).registration_cutoff
        left = (cutoff - today).days
        entries.append(
            {
                "year": year,
                "open_until": cutoff.isoformat(),
                "days_left": left if left < COUNTDOWN_DAYS else None,
            }
        )
    return {"today": today.isoformat(), "open_years": entries}
