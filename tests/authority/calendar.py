"""The law's quota-year calendar for the tests that are about it (the test database opens the
running and the next year all year: tests/conftest.py)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest

# The API's schemas are built when the URL conf is first imported: before any frozen clock
# (pydantic cannot build a schema of freezegun's date class).
import config.urls_public  # noqa: F401
import config.urls_tenant  # noqa: F401
from tenants.quota_years import QuotaYear, calendar_forget, year_defaults


@pytest.fixture
def law_calendar() -> Iterator[None]:
    """2025-2029 as the data migration seeds them: cut-off 31 October, the authority's deadline
    15 November, pre-registration from 1 October of the year before."""
    for year in range(2025, 2030):
        dates = year_defaults(year)
        QuotaYear.objects.update_or_create(
            year=year,
            defaults={
                "authority_deadline": dates.authority_deadline,
                "registration_cutoff": dates.registration_cutoff,
                "pre_registration_start": dates.pre_registration_start,
            },
        )
    calendar_forget()
    yield
    calendar_forget()


def day(text: str) -> datetime.date:
    return datetime.date.fromisoformat(text)
