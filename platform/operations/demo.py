"""Generated applications for the demo partners (`manage.py seed_demo_operations`) and the
partner-area benchmark: owners, billing data, registrations and applications spread over
statuses and days, with the history each status implies, written with bulk_create.

Generated rows carry their own dates (created days ago), so `auto_now_add` / `auto_now` are
switched off while they are written; nothing else writes during that time in the same process
(a management command or a benchmark fixture)."""

from __future__ import annotations

import contextlib
import datetime
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from accounts.models import User, canonical_name
from billing.models import Client
from common.partner_config import PartnerConfig
from operations.models import SingleDeal, SubPartner
from quota import catalogue
from quota.amounts import FeeTableRow, config_fee_rows
from quota.models import FeeTableVersion, QuotaApplication, QuotaStatus, StatusChange
from registrations.models import SEQUENCE_NAME, BevRegistration

S = QuotaStatus
# Where generated applications stand (weights): most on the way, some paid, some rejected.
STATUS_WEIGHTS: list[tuple[str, int]] = [
    (S.CREATED, 14), (S.ENTERED, 10), (S.PICKED_UP, 10), (S.SENT_TO_UBA, 14), (S.ACCEPTED, 10),
    (S.TO_PAY, 9), (S.PAID, 12), (S.COMPLETED, 6), (S.MANUALLY_REJECTED, 4), (S.COLOR_COPY_UNREADABLE, 4),
    (S.NOT_AN_ELECTRIC_CAR, 2), (S.REJECTED_BY_AUTHORITY, 3), (S.DOUBLE_REGISTRATION, 2),
]  # fmt: skip
FIRST_NAMES = [
    "Anna",
    "Ben",
    "Clara",
    "David",
    "Emma",
    "Felix",
    "Greta",
    "Hannes",
    "Ida",
    "Jonas",
    "Lena",
    "Mats",
]
LAST_NAMES = [
    "Albers",
    "Brandt",
    "Claasen",
    "Dietz",
    "Engel",
    "Fischer",
    "Graf",
    "Hoffmann",
    "Jäger",
    "Krause",
]
CITIES = [
    ("10115", "Berlin"),
    ("20095", "Hamburg"),
    ("80331", "München"),
    ("50667", "Köln"),
    ("04109", "Leipzig"),
]
REASONS: dict[str, str] = {
    S.MANUALLY_REJECTED: "Fahrzeugschein gehört nicht zur angegebenen Person.",
    S.REJECTED_BY_AUTHORITY: "Vom Umweltbundesamt nicht anerkannt.",
}


def _path_to(status: str) -> list[str]:
    """The statuses an application passed to reach `status`, in order (created first)."""
    path = catalogue.EXPECTED_PATH
    if status in path:
        return path[: path.index(status) + 1]
    if status == S.REJECTED_BY_AUTHORITY or status == S.DOUBLE_REGISTRATION:
        return [*path[: path.index(S.SENT_TO_UBA) + 1], status]
    return [S.CREATED, S.ENTERED, status]


@contextlib.contextmanager
def _own_dates(*models: type[Model]) -> Iterator[None]:
    fields = [
        f
        for m in models
        for f in m._meta.concrete_fields
        if getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False)
    ]
    saved = [(f, f.auto_now_add, f.auto_now) for f in fields]  # type: ignore[attr-defined]
    for f in fields:
        f.auto_now_add = f.auto_now = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for f, add, now in saved:
            f.auto_now_add, f.auto_now = add, now  # type: ignore[attr-defined]


def _sequences(count: int) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(%s) FROM generate_series(1, %s)", [SEQUENCE_NAME, count])
        return [row[0] for row in cursor.fetchall()]


def demo_operations_ensure() -> tuple[list[SubPartner], SingleDeal]:
    """Two sub-partners and a single deal (the same keys on every run)."""
    year = timezone.localdate().year
    installer, _ = SubPartner.objects.get_or_create(
        referral_key="elektro-meier",
        defaults={"name": "Elektro Meier GmbH", "contact_name": "Jana Meier", "contact_email": "jana@elektro-meier.example",
                  "contact_phone": "+49 30 1234567", "fee_share_percent": Decimal("10.00")},
    )  # fmt: skip
    dealer, _ = SubPartner.objects.get_or_create(
        referral_key="autohaus-nord",
        defaults={"name": "Autohaus Nord", "contact_name": "Tom Berger", "contact_email": "tom@autohaus-nord.example",
                  "fee_share_percent": Decimal("7.50")},
    )  # fmt: skip
    deal, _ = SingleDeal.objects.get_or_create(
        deal_key="taxi-nord",
        defaults={"name": "Flotte Taxi Nord", "customer": "Taxi Nord GmbH", "price_net": Decimal("70.00"),
                  "vat_percent": Decimal("19.00"), "legislation_years": [year - 1, year], "vehicle_cap": 40},
    )  # fmt: skip
    return [installer, dealer], deal


# The demo's own prices for a partner the platform set up without any (issue 49: the
# autohaus demo had none, so its batches skipped 14 of 15 payable applications and the
# dashboard paid out 0,00 EUR): the years the demo applications name and the next, for the
# classes they have, valid long before the oldest of them.
DEMO_PRICES = {"M1": (Decimal("85.00"), Decimal("80.00")), "N1": (Decimal("250.00"), Decimal("235.00"))}


def demo_fee_table_ensure(config: PartnerConfig) -> bool:
    """Version 1 of the fee table with DEMO_PRICES when the partner has neither a table of its
    own nor prices in its configuration; True when it was written (once: a second run finds it)."""
    if FeeTableVersion.objects.exists() or config_fee_rows(config):
        return False
    year = timezone.localdate().year
    rows = [
        FeeTableRow(
            legislation_year=each, vehicle_class=vehicle_class, private_payout=private, business_net=business
        ).stored()
        for each in (year - 1, year, year + 1)
        for vehicle_class, (private, business) in DEMO_PRICES.items()
    ]
    FeeTableVersion.objects.create(
        number=1,
        rows=rows,
        valid_from=datetime.datetime(year - 2, 1, 1, tzinfo=datetime.UTC),
        created_by_label="Demo",
        note="Demo-Preise",
    )
    return True


def applications_generate(
    *,
    count: int,
    days: int = 90,
    sub_partners: list[SubPartner] | None = None,
    single_deal: SingleDeal | None = None,
    label: str = "demo",
    seed: int = 16,
    with_history: bool = True,
    batch_size: int = 2000,
) -> int:
    """`count` applications (two legislation years per registration) for new owners, created
    over the last `days` days; a third of them through a sub-partner, a few under the deal
    (within its cap). Returns the number created."""
    rng = random.Random(seed)
    schema = str(getattr(connection, "schema_name", "public"))  # scans live under the partner's prefix
    now = timezone.now()
    year = timezone.localdate().year
    statuses, weights = zip(*STATUS_WEIGHTS, strict=True)
    registrations_needed = (count + 1) // 2
    password = make_password(None)  # unusable: generated owners never log in
    # Plain values: bulk_create encrypts them (a ciphertext given here was encrypted twice,
    # and the rows read back a token instead of the street and the IBAN).
    street, number, iban = "Musterstraße", "1", "DE89370400440532013000"
    deal_left = 0
    if single_deal is not None:
        used = single_deal.quota_applications.values("registration_id").distinct().count()
        deal_left = max(0, (single_deal.vehicle_cap or 10**9) - used)
    created = 0
    sequences = _sequences(registrations_needed)
    with transaction.atomic(), _own_dates(User, BevRegistration, Client, QuotaApplication, StatusChange):
        token = f"{label}-{now:%Y%m%d%H%M%S}-{rng.randrange(10**6):06d}"
        for start in range(0, registrations_needed, batch_size):
            chunk = sequences[start : start + batch_size]
            users, clients, registrations, applications, history = [], [], [], [], []
            for index, sequence in enumerate(chunk, start=start):
                first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
                email = f"{first.lower()}.{last.lower()}.{index}.{token}@demo.example"
                when = now - datetime.timedelta(days=rng.random() * days)
                user = User(
                    username=email, email=email, first_name=first, last_name=last, password=password,
                    username_canonical=canonical_name(email), email_canonical=canonical_name(email), date_joined=when,
                )  # fmt: skip
                users.append(user)
                postal_code, city = rng.choice(CITIES)
                business = rng.random() < 0.1
                clients.append(
                    Client(
                        owner=user,
                        gender=rng.choice(["woman", "man"]),
                        first_name=first,
                        last_name=last,
                        street_name=street,
                        street_number=number,
                        postal_code=postal_code,
                        city=city,
                        account_name=f"{first} {last}",
                        account_iban=iban,
                        campaign=rng.choice(["", "", "herbst"]),
                        vehicle_owner_type="business" if business else "private",
                        name_of_business=f"{last} Logistik GmbH" if business else "",
                        locked_at=when,
                        created_at=when,
                        updated_at=when,
                    )  # fmt: skip
                )
                registrations.append(
                    BevRegistration(
                        owner=user,
                        sequence=sequence,
                        registration_years=[year - 1, year],
                        zlb_scan=f"{schema}/scans/demo.jpg",
                        resized_image=f"{schema}/scans/demo-resized.jpg",
                        original_content_type="image/jpeg",
                        width=2000,
                        height=1400,
                        vin=f"WVWZZZE1Z{rng.randrange(16**8):08X}",
                        vehicle_class="N1" if rng.random() < 0.08 else "M1",
                        first_registration=datetime.date(year - rng.randrange(1, 6), rng.randrange(1, 13), 1),
                        energy_code="0004",
                        is_electric=True,
                        locked_at=when,
                        created_at=when,
                    )  # fmt: skip
                )
            User.objects.bulk_create(users, batch_size=batch_size)
            for client, user in zip(clients, users, strict=True):
                client.owner_id = user.pk
            for registration, user in zip(registrations, users, strict=True):
                registration.owner_id = user.pk
            Client.objects.bulk_create(clients, batch_size=batch_size)
            BevRegistration.objects.bulk_create(registrations, batch_size=batch_size)
            for registration, client in zip(registrations, clients, strict=True):
                sub_partner = rng.choice(sub_partners) if sub_partners and rng.random() < 0.33 else None
                deal = single_deal if deal_left and rng.random() < 0.05 else None
                if deal is not None:
                    deal_left -= 1
                for legislation_year in (year - 1, year):
                    if created >= count:
                        break
                    status = rng.choices(statuses, weights)[0]
                    if legislation_year == year and status in (S.PAID, S.COMPLETED, S.TO_PAY):
                        status = rng.choice([S.CREATED, S.ENTERED, S.SENT_TO_UBA])
                    path = _path_to(status)
                    step = (now - registration.created_at) / (len(path) + 1)
                    applications.append(
                        QuotaApplication(
                            registration=registration,
                            client=client,
                            legislation_year=legislation_year,
                            status=status,
                            sub_partner=sub_partner,
                            single_deal=deal,
                            created_at=registration.created_at,
                            updated_at=registration.created_at + step * (len(path) - 1),
                        )  # fmt: skip
                    )
                    history.append(path)
                    created += 1
            QuotaApplication.objects.bulk_create(applications, batch_size=batch_size)
            if with_history:
                changes = [
                    StatusChange(
                        application=application,
                        status=status,
                        reason=REASONS.get(status, ""),
                        created_at=application.created_at
                        + (application.updated_at - application.created_at)
                        * position
                        / max(1, len(path) - 1),
                    )  # fmt: skip
                    for application, path in zip(applications, history, strict=True)
                    for position, status in enumerate(path)
                ]
                StatusChange.objects.bulk_create(changes, batch_size=batch_size * 4)
    return created


def generated_summary() -> dict[str, Any]:
    return {
        "applications": QuotaApplication.objects.count(),
        "sub_partners": SubPartner.objects.count(),
        "single_deals": SingleDeal.objects.count(),
    }
