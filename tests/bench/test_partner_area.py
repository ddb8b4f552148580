"""The partner area at 100,000 applications in one schema (issue 16, "Measured"):

- the applications list, filtered by status and ordered by date: p50 per page (pages 1, 10 and
  100) of the list's selector and row shaping, beside a bare indexed `SELECT ... LIMIT 25` of
  the same filter and order through the same ORM connection (target: at most 3x); the same
  list over HTTP (session, every middleware) is printed beside it;
- the number of queries at page size 10 and 100 (the same);
- the CSV export of all 100,000 through the view, streamed: peak resident-size growth of this
  process (sampled every 5 ms; target at most 50 MB) and time, beside csv.writer over the
  same columns from values_list (target at most 2x);
- the dashboard's stats (target at most 300 ms); the list's count above 10,000 matches (the
  planner's estimate, shown as "ca."); the free-text search with the trigram indexes beside
  the same search with them dropped in a rolled-back transaction (where the server has
  pg_trgm: run with DATABASE_URL pointing at such a server, the embedded one has not).
"""

from __future__ import annotations

import csv
import secrets
import statistics
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import psutil
import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django_tenants.utils import schema_context

from common.partner_config import PartnerConfig
from operations import application_selectors as selectors
from operations.demo import applications_generate, demo_operations_ensure
from operations.selectors import dashboard_stats
from quota.models import QuotaApplication
from quota.review_selectors import review_page
from tenants.demo import DEMO_PARTNERS
from tenants.models import Partner
from tenants.services import partner_provision
from tests.bench.conftest import record
from tests.partner_staff import partner_session, staff_member

APPLICATIONS = 100_000
ROUNDS = 15
STATUS = "qa_sent_to_uba"
MB = 1024 * 1024


@pytest.fixture(scope="module")
def big(django_db_setup: None, django_db_blocker: Any) -> Iterator[Partner]:
    with django_db_blocker.unblock():
        config = next(d["config"] for d in DEMO_PARTNERS if d["subdomain"] == "stadtwerk")
        partner = partner_provision(
            subdomain=f"bench-{secrets.token_hex(3)}", name="Bench", kind="utility", config=config
        )
        started = time.monotonic()
        with schema_context(partner.schema_name):
            sub_partners, deal = demo_operations_ensure()
            applications_generate(
                count=APPLICATIONS, days=365, sub_partners=sub_partners, single_deal=deal, with_history=False,
                label="bench", batch_size=5000,
            )  # fmt: skip
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")  # what autovacuum does for a table of this size
        print(f"\n   generated {APPLICATIONS} applications in {time.monotonic() - started:.1f} s")
    yield partner
    with django_db_blocker.unblock():
        partner.delete(force_drop=True)


def _p50(action: Callable[[], Any], rounds: int = ROUNDS) -> float:
    action()  # warm
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _p50s(*actions: Callable[[], Any], rounds: int = 3 * ROUNDS) -> list[float]:
    """The p50 of each action, the actions taking turns in every round: on a shared machine
    whose load drifts, a ratio of two figures measured minutes apart says more about the load
    than about the code."""
    for action in actions:
        action()  # warm
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(rounds):
        for action, taken in zip(actions, times, strict=True):
            start = time.perf_counter()
            action()
            taken.append(time.perf_counter() - start)
    return [statistics.median(taken) * 1000 for taken in times]


def test_list_page_against_a_bare_indexed_select(big: Partner, django_db_blocker: Any) -> None:
    config = PartnerConfig.model_validate(big.config)
    filters = selectors.ApplicationFilters(statuses=[STATUS])
    figures: dict[str, Any] = {}
    with django_db_blocker.unblock(), schema_context(big.schema_name):
        member, password = staff_member(big, role="viewer")
        client = partner_session(
            Client(enforce_csrf_checks=True), f"{big.subdomain}.localhost", member, password
        )
        matching = selectors.applications_filtered(filters).count()
        figures["applications"] = APPLICATIONS
        figures[f"rows with status {STATUS}"] = matching
        for page in (1, 10, 100):
            offset = (page - 1) * 25

            def listed(page: int = page) -> None:
                found = selectors.application_page(
                    filters=filters, ordering="-created_at", page=page, page_size=25
                )
                selectors.application_rows(found, config=config, language="de")

            def bare(offset: int = offset) -> None:
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT * FROM quota_quotaapplication WHERE status = %s "
                        "ORDER BY created_at DESC, id DESC LIMIT 25 OFFSET %s",
                        [STATUS, offset],
                    )
                    cursor.fetchall()

            def bare_orm(offset: int = offset) -> None:
                list(
                    QuotaApplication.objects.filter(status=STATUS).order_by("-created_at", "-pk")[
                        offset : offset + 25
                    ]
                )

            def http(page: int = page) -> None:
                response = client.get(
                    "/api/partner/quota_applications/",
                    {"status": STATUS, "page": str(page), "page_size": "25"},
                    HTTP_HOST=f"{big.subdomain}.localhost",
                )
                assert response.status_code == 200

            list_ms, bare_ms, orm_ms, http_ms = _p50s(listed, bare, bare_orm, http)
            figures[f"page {page}: list p50 ms (count + page, rows shaped)"] = round(list_ms, 2)
            figures[f"page {page}: bare SELECT LIMIT 25, cursor p50 ms"] = round(bare_ms, 2)
            figures[f"page {page}: bare SELECT LIMIT 25, ORM p50 ms"] = round(orm_ms, 2)
            figures[f"page {page}: ratio to cursor / ORM (target <= 3)"] = (
                f"{list_ms / bare_ms:.2f} / {list_ms / orm_ms:.2f}"
            )
            figures[f"page {page}: over HTTP p50 ms"] = round(http_ms, 2)
        counts = []
        for size in (10, 100):
            with CaptureQueriesContext(connection) as queries:
                found = selectors.application_page(
                    filters=filters, ordering="-created_at", page=3, page_size=size
                )
                selectors.application_rows(found, config=config, language="de")
            counts.append(len(queries))
        figures["queries at page size 10 / 100"] = f"{counts[0]} / {counts[1]}"
        page_one = selectors.application_page(filters=filters, ordering="-created_at", page=1, page_size=25)
        figures["page 1: count shown (exact?)"] = f"{page_one.count} ({page_one.count_exact})"
        figures.update(_searches(big))
    record("partner area: applications list at 100k", figures)
    assert counts[0] == counts[1]


SEARCHES = ("Krause", "WVWZZZE1Z", "Greta Graf", "WVWZZZE1Z0A", ".4711.", "Jäger Logistik")
TRIGRAM_INDEXES = ("accounts_user_email_trgm", "billing_client_first_trgm", "billing_client_last_trgm",
                   "billing_client_business_trgm", "registrations_vin_trgm")  # fmt: skip


def _searches(big: Partner) -> dict[str, Any]:
    """The free-text search (page 1 with its count) with the trigram indexes, and the same with
    them dropped inside a transaction that is rolled back (the baseline of the same run). Only
    where the server has pg_trgm (common.trigram): the embedded server has not."""
    figures: dict[str, Any] = {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_indexes WHERE schemaname = %s AND indexname = ANY(%s)",
                       [big.schema_name, list(TRIGRAM_INDEXES)])  # fmt: skip
        indexed = cursor.fetchone()[0] == len(TRIGRAM_INDEXES)
    figures["trigram indexes (pg_trgm on this server)"] = indexed

    def measure(label: str) -> None:
        for text in SEARCHES:
            search = selectors.ApplicationFilters(q=text)

            def searched(search: selectors.ApplicationFilters = search) -> None:
                selectors.application_page(filters=search, ordering="-created_at", page=1, page_size=25)

            found = selectors.application_page(filters=search, ordering="-created_at", page=1, page_size=25)
            figures[f"search q={text!r} {label} p50 ms (count)"] = (
                f"{_p50(searched, 5):.1f} ({found.count}{'' if found.count_exact else ' ca.'})"
            )

    measure("indexed" if indexed else "no index")
    if indexed:
        with transaction.atomic():
            with connection.cursor() as cursor:
                for name in TRIGRAM_INDEXES:
                    cursor.execute(f'DROP INDEX "{name}"')  # noqa: S608 - our constant names
            measure("without the trigram indexes")
            transaction.set_rollback(True)
    return figures


class _PeakRss:
    """The process's resident size, sampled every 5 ms on a thread, minus its size at start."""

    def __init__(self) -> None:
        self.process = psutil.Process()
        self.start = self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.start) / MB


class _Sink:
    def __init__(self) -> None:
        self.size = 0

    def write(self, value: str) -> None:
        self.size += len(value)


def test_csv_of_100k_streams_in_constant_memory(big: Partner, django_db_blocker: Any) -> None:
    host = f"{big.subdomain}.localhost"
    with django_db_blocker.unblock():
        member, password = staff_member(big, role="back_office")
        client = partner_session(Client(enforce_csrf_checks=True), host, member, password)

        def baseline() -> int:
            with schema_context(big.schema_name):
                sink = _Sink()
                writer = csv.writer(sink, delimiter=";")
                rows = (
                    selectors.applications_filtered(selectors.ApplicationFilters())
                    # the same query as the export's (its columns include the owner's agreement)
                    .annotate(**selectors.agreement_columns())
                    .order_by("created_at", "pk")
                    .values_list(*selectors.CSV_COLUMNS)
                )
                count = 0
                for row in rows.iterator(chunk_size=2000):
                    writer.writerow(row)
                    count += 1
                return count

        def export() -> tuple[int, int]:
            response = client.get("/api/partner/quota_applications/export.csv", HTTP_HOST=host)
            assert response.status_code == 200
            lines = size = 0
            for chunk in response.streaming_content:  # type: ignore[attr-defined]
                size += len(chunk)
                lines += chunk.count(b"\n")
            return lines - 1, size

        baseline()  # warm both paths once
        export()
        with _PeakRss() as export_memory:
            started = time.perf_counter()
            exported, size = export()
            export_s = time.perf_counter() - started
        with _PeakRss() as baseline_memory:
            started = time.perf_counter()
            written = baseline()
            baseline_s = time.perf_counter() - started
        # The process's resident size already holds the free memory of the data generation and
        # of the warm-up run: Python's own peak allocation during one more export is the figure
        # that shows whether rows pile up (it slows the run, so it is not timed).
        tracemalloc.start()
        export()
        traced_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    record(
        "partner area: CSV export of 100k",
        {
            "rows exported / written by the baseline": f"{exported} / {written}",
            "export size MB": round(size / MB, 1),
            "export time s": round(export_s, 2),
            "baseline csv.writer from values_list s": round(baseline_s, 2),
            "ratio (target <= 2)": round(export_s / baseline_s, 2),
            "export peak RSS growth MB (target <= 50)": round(export_memory.growth_mb, 1),
            "export peak Python allocation MB (tracemalloc)": round(traced_peak / MB, 1),
            "baseline peak RSS growth MB": round(baseline_memory.growth_mb, 1),
        },
    )
    assert exported == written == APPLICATIONS


def test_stats_at_100k(big: Partner, django_db_blocker: Any) -> None:
    config = PartnerConfig.model_validate(big.config)
    with django_db_blocker.unblock():
        member, password = staff_member(big, role="viewer")
        host = f"{big.subdomain}.localhost"
        client = partner_session(Client(enforce_csrf_checks=True), host, member, password)
        with schema_context(big.schema_name):
            sub_partner = demo_operations_ensure()[0][0].pk
            whole = _p50(lambda: dashboard_stats(config=config, language="de"), 7)
            one = _p50(lambda: dashboard_stats(config=config, language="de", sub_partner=sub_partner), 7)
            body = dashboard_stats(config=config, language="de")

        def http() -> None:
            assert client.get("/api/partner/stats/", HTTP_HOST=host).status_code == 200

        over_http = _p50(http, 7)
    record(
        "partner area: stats at 100k",
        {
            "stats p50 ms (target <= 300)": round(whole, 1),
            "stats for one sub-partner p50 ms": round(one, 1),
            "stats over HTTP p50 ms": round(over_http, 1),
            "days / statuses in the answer": f"{len(body['per_day'])} / {len(body['status_distribution'])}",
        },
    )


def test_review_queue_at_100k(big: Partner, django_db_blocker: Any) -> None:
    """The reader's review queue (the partner area asks its first page and count on every page
    load): 1 % of the registrations made unsure (E unread or B at 0.6), then page 1 with its count
    with the partial index of registrations 0010, beside the same with the index dropped in a
    rolled-back transaction (the earlier scan of every registration's JSON), one run, one
    database."""
    with django_db_blocker.unblock(), schema_context(big.schema_name):
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE registrations_bevregistration SET unread = CASE WHEN id % 2 = 0 THEN ARRAY['E']::varchar[]"
                " ELSE unread END, confidence = CASE WHEN id % 2 = 1 THEN confidence || '{\"B\": 0.6}'::jsonb"
                " ELSE confidence END WHERE id % 100 = 0"
            )
            cursor.execute("ANALYZE registrations_bevregistration")

        def page() -> int:
            return review_page(partner=big, language="de", code=None, page=1, page_size=1).count

        def page_b() -> int:
            return review_page(partner=big, language="de", code="B", page=1, page_size=25).count

        count = page()
        indexed, indexed_b = _p50(page, 7), _p50(page_b, 7)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("DROP INDEX registrations_unsure_idx")
            scanned, scanned_b = _p50(page, 7), _p50(page_b, 7)
            transaction.set_rollback(True)
    record(
        "partner area: review queue at 100k",
        {
            "registrations in the queue": count,
            "page 1 + count p50 ms, partial index": round(indexed, 1),
            "page 1 + count p50 ms, without it (baseline)": round(scanned, 1),
            "ratio (index / baseline)": round(indexed / scanned, 3),
            "field B page p50 ms, index / without": f"{indexed_b:.1f} / {scanned_b:.1f}",
        },
    )
    assert count >= APPLICATIONS // 100
