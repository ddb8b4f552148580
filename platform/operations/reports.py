"""Reports for a partner's accountant (issue 46): a batch statement (items, net, VAT, gross,
failures) and a month's sub-partner commission statement (attributed applications paid in the
month × the sub-partner's share of the fee), as CSV (operations.formats: BOM, `;`, defused
cells) and PDF, in German number and date formats."""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import Q
from django.utils import timezone

from common.tables import Column, csv_row, headers
from common.tables import csv_bytes as table_csv_bytes
from operations.formats import CENT, csv_bytes, de_date, de_money, de_percent
from operations.models import SettlementBatch, SettlementItem

# One column list for the CSV, the XLSX (common.tables) and the PDF.
BATCH_COLUMNS = [
    Column("Lauf"), Column("Antrag"), Column("Quotenjahr", "int"), Column("Zahlungsempfänger"), Column("Art"),
    Column("Zahlweg"), Column("Status"), Column("Netto", "money"), Column("USt-Satz", "percent"),
    Column("USt", "money"), Column("Brutto", "money"), Column("Beleg"), Column("Referenz"),
    Column("Fehlergrund"), Column("Fehler am", "date"),
]  # fmt: skip
BATCH_HEADER = headers(BATCH_COLUMNS)
OWNER_TYPES = {"private": "Privat", "business": "Gewerblich"}


def _batch_items(batch: SettlementBatch) -> list[SettlementItem]:
    return list(
        batch.items.select_related("application__client", "payout_document")
        .defer("iban", "charge_card")
        .order_by("sequence", "legislation_year", "pk")
    )


def batch_statement_values(batch: SettlementBatch) -> tuple[list[list[Any]], dict[str, Decimal | int]]:
    """The statement's items as typed rows (dates, Decimals) and the totals."""
    rows: list[list[Any]] = []
    totals: dict[str, Decimal | int] = {"count": 0, "net": Decimal(0), "vat": Decimal(0), "gross": Decimal(0)}
    failed: dict[str, Decimal | int] = {"failed_count": 0, "failed_gross": Decimal(0)}
    for item in _batch_items(batch):
        application = item.application
        owner_type = application.client.vehicle_owner_type if application else ""
        document = getattr(item, "payout_document", None)
        rows.append(
            [
                batch.reference,
                f"{item.sequence}/{item.legislation_year}",
                item.legislation_year,
                item.payee_name,
                OWNER_TYPES.get(owner_type, "Gelöscht"),
                SettlementItem.Method(item.method).label,
                SettlementItem.Status(item.status).label,
                item.net,
                item.vat_percent,
                item.vat,
                item.gross,
                document.number if document else "",
                item.end_to_end_id if item.method == SettlementItem.Method.SEPA else "",
                item.failure_reason,
                timezone.localdate(item.failed_at) if item.failed_at else None,
            ]
        )
        if item.status == SettlementItem.Status.FAILED:
            failed["failed_count"] += 1
            failed["failed_gross"] += item.gross
        else:
            totals["count"] += 1
            for key in ("net", "vat", "gross"):
                totals[key] += getattr(item, key)
    return rows, {**totals, **failed}


def batch_statement_rows(batch: SettlementBatch) -> tuple[list[list[str]], dict[str, Decimal | int]]:
    """The same rows in German text (the PDF's)."""
    rows, totals = batch_statement_values(batch)
    return [[str(value) for value in csv_row(BATCH_COLUMNS, row)] for row in rows], totals


def batch_statement_table(batch: SettlementBatch) -> list[list[Any]]:
    """The items and the two sum rows, typed: what the CSV and the XLSX write."""
    rows, totals = batch_statement_values(batch)
    summary = [
        ["Summe (ohne Fehler)", totals["count"], None, "", "", "", "", totals["net"], None, totals["vat"],
         totals["gross"], "", "", "", None],
        ["Fehlgeschlagen", totals["failed_count"], None, "", "", "", "", None, None, None,
         totals["failed_gross"], "", "", "", None],
    ]  # fmt: skip
    return [*rows, *summary]


def batch_statement_csv(batch: SettlementBatch) -> bytes:
    return table_csv_bytes(BATCH_COLUMNS, batch_statement_table(batch))


def batch_statement_lines(batch: SettlementBatch, totals: dict[str, Decimal | int]) -> list[str]:
    return [
        f"Referenz {batch.reference}, Ausführung {de_date(batch.execution_date)}, "
        f"Status {SettlementBatch.Status(batch.status).label}"
        + (f", bezahlt am {de_date(timezone.localdate(batch.paid_at))}" if batch.paid_at else ""),
        f"Positionen: {totals['count']}, Netto {de_money(Decimal(totals['net']))} €, "
        f"USt {de_money(Decimal(totals['vat']))} €, Brutto {de_money(Decimal(totals['gross']))} €",
        f"Fehlgeschlagen: {totals['failed_count']}, Brutto {de_money(Decimal(totals['failed_gross']))} €",
        f"Erstellt am {de_date(timezone.localdate())}",
    ]


# ---------------------------------------------------------------- sub-partner commissions

COMMISSION_HEADER = [
    "Monat", "Untervermittler", "Empfehlungscode", "Antrag", "Quotenjahr", "Bezahlt am", "Lauf", "Netto",
    "Anteil", "Provision",
]  # fmt: skip


def month_range(month: str) -> tuple[datetime.datetime, datetime.datetime] | None:
    """'2026-11' -> [1 Nov 2026 00:00, 1 Dec 2026 00:00) in local time; None when not a month."""
    try:
        first = datetime.date.fromisoformat(f"{month}-01")
    except ValueError:
        return None
    following = (first + datetime.timedelta(days=32)).replace(day=1)
    zone = timezone.get_current_timezone()
    return (
        datetime.datetime.combine(first, datetime.time(), tzinfo=zone),
        datetime.datetime.combine(following, datetime.time(), tzinfo=zone),
    )


def commission(net: Decimal, share_percent: Decimal) -> Decimal:
    return (net * share_percent / 100).quantize(CENT, rounding=ROUND_HALF_UP)


def commission_rows(month: str) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Each paid application attributed to a sub-partner whose batch was paid in the month, and
    the sums per sub-partner."""
    bounds = month_range(month)
    assert bounds is not None
    label = f"{month[5:7]}.{month[:4]}"
    items = (
        SettlementItem.objects.filter(
            Q(batch__paid_at__gte=bounds[0]) & Q(batch__paid_at__lt=bounds[1]),
            status=SettlementItem.Status.PAID,
            application__sub_partner__isnull=False,
        )
        .select_related("batch", "application__sub_partner")
        .defer("iban", "charge_card")
        .order_by("application__sub_partner__name", "application__sub_partner_id", "sequence", "pk")
    )
    rows: list[list[str]] = []
    sums: dict[int, dict[str, Any]] = {}
    for item in items:
        assert item.application is not None and item.application.sub_partner is not None
        sub = item.application.sub_partner
        share = sub.fee_share_percent
        amount = commission(item.net, share)
        paid = item.batch.paid_at
        rows.append(
            [
                label,
                sub.name,
                sub.referral_key,
                f"{item.sequence}/{item.legislation_year}",
                str(item.legislation_year),
                de_date(timezone.localdate(paid)) if paid else "",
                item.batch.reference,
                de_money(item.net),
                de_percent(share),
                de_money(amount),
            ]
        )
        found = sums.setdefault(
            sub.pk,
            {"name": sub.name, "referral_key": sub.referral_key, "share": share, "count": 0,
             "net": Decimal(0), "commission": Decimal(0)},
        )  # fmt: skip
        found["count"] += 1
        found["net"] += item.net
        found["commission"] += amount
    return rows, list(sums.values())


def commission_csv(month: str) -> bytes:
    rows, sums = commission_rows(month)
    label = f"{month[5:7]}.{month[:4]}"
    totals = [
        [label, f"Summe {entry['name']}", entry["referral_key"], str(entry["count"]), "", "", "",
         de_money(entry["net"]), de_percent(entry["share"]), de_money(entry["commission"])]
        for entry in sums
    ]  # fmt: skip
    return csv_bytes(COMMISSION_HEADER, [*rows, *totals])
