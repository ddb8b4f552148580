"""Money path figures (issue 17), run by `make bench` only:

1. the SEPA credit transfer file for 10,000 payments (pain.001.001.09 and .03): generation by
   sepaxml and the check against the XSD sepaxml ships, cold (the XSD compiled first, as the
   first download in a process) and warm; beside it sepaxml's own export(validate=True);
2. a bulk upload of 200 realistic scans (tests/fixtures/zlb/realistic.py, clean scans, scanner
   PDFs, phone and poor photos) on real huey consumers (`manage.py run_huey`, process workers,
   SQLite queue) against the test database: wall time on 2 workers against 20 scans on 1
   worker (the single-scan time of the same run), parallel efficiency, and the peak resident
   size of each worker process (VmHWM) and of each worker with its Tesseract children
   (sampled every 50 ms).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from django.db import connection
from django_tenants.utils import tenant_context
from huey.contrib.djhuey import HUEY

from tests.bench.conftest import record
from tests.conftest import ROOT, database_url
from tests.fixtures.zlb import realistic

PAYMENTS = 10_000
IBANS = [
    "DE89370400440532013000",
    "DE02120300000000202051",
    "FR1420041010050500013M02606",
    "AT611904300234573201",
]


def _transfers() -> list[Any]:
    from operations.sepa import Transfer

    return [
        Transfer(
            name=f"Halterin Müller {i}",
            iban=IBANS[i % len(IBANS)],
            amount_cents=8_500 + i % 5_000,
            remittance=f"THG-Praemie Antrag {100_000 + i}/2026",
            end_to_end_id=f"THG1-{100_000 + i}-2026",
        )
        for i in range(PAYMENTS)
    ]


def _build_only(sepa: Any, transfers: list[Any], day: Any, version: str) -> bytes:
    """The file as credit_transfer_xml builds it, without the check: the baseline."""
    from sepaxml import SepaTransfer

    document = SepaTransfer(
        {"name": "Autohaus Sonnenschein GmbH", "IBAN": "DE89370400440532013000", "BIC": "COBADEFFXXX",
         "batch": True, "currency": "EUR"},
        schema=sepa.SCHEMAS[version],
        clean=False,
    )  # fmt: skip
    for transfer in transfers:
        document.add_payment(
            {
                "name": sepa.sepa_text(transfer.name, 70),
                "IBAN": transfer.iban,
                "amount": transfer.amount_cents,
                "execution_date": day,
                "description": sepa.sepa_text(transfer.remittance, 140),
                "endtoend_id": sepa.sepa_text(transfer.end_to_end_id, 35),
            }
        )
    xml: bytes = document.export(validate=False)
    return xml


def test_sepa_file_for_10000_payments() -> None:
    import xmlschema

    from operations import sepa
    from operations.settlement import next_business_day

    transfers = _transfers()
    debtor = sepa.Debtor(name="Autohaus Sonnenschein GmbH", iban="DE89370400440532013000", bic="COBADEFFXXX")
    day = next_business_day()
    for version in ("09", "03"):
        start = time.perf_counter()
        built = _build_only(sepa, transfers, day, version)
        build_alone = time.perf_counter() - start
        sepa.schema.cache_clear()
        start = time.perf_counter()
        xml = sepa.credit_transfer_xml(
            debtor=debtor, transfers=transfers, execution_date=day, version=version
        )  # type: ignore[arg-type]
        cold = time.perf_counter() - start
        start = time.perf_counter()
        xml = sepa.credit_transfer_xml(
            debtor=debtor, transfers=transfers, execution_date=day, version=version
        )  # type: ignore[arg-type]
        warm = time.perf_counter() - start
        assert len(xml) == len(built)  # the same file (only the creation time and ids differ)
        start = time.perf_counter()
        sepa.sepa_validate(xml, version)  # type: ignore[arg-type]
        lxml_check = time.perf_counter() - start
        # before: the pure-Python xmlschema check of the same file (schema compiled beforehand)
        before_schema = xmlschema.XMLSchema(str(sepa.XSD_DIR / f"{sepa.SCHEMAS[version]}.xsd"))
        start = time.perf_counter()
        before_schema.validate(xml.decode("utf-8"))
        xmlschema_check = time.perf_counter() - start
        # and a broken file is still refused by the fast check
        try:
            sepa.sepa_validate(xml.replace(transfers[0].iban.encode(), b"not-an-iban", 1), version)  # type: ignore[arg-type]
        except sepa.SepaInvalid:
            refused = True
        else:
            refused = False
        assert refused
        record(
            f"sepa_10000_payments_pain_001_001_{version}",
            {
                "payments": PAYMENTS,
                "file_mb": round(len(xml) / 1e6, 2),
                "xsd_valid": True,  # credit_transfer_xml raises SepaInvalid otherwise
                "build_alone_s (baseline)": round(build_alone, 2),
                "cold_s (XSD compiled, built, validated)": round(cold, 2),
                "warm_s (built, validated)": round(warm, 2),
                "check_lxml_s": round(lxml_check, 3),
                "check_xmlschema_s (before)": round(xmlschema_check, 2),
                "warm_vs_build_alone": round(warm / build_alone, 2),
                "check_lxml_vs_build_alone": round(lxml_check / build_alone, 3),
                "check_xmlschema_vs_build_alone (before)": round(xmlschema_check / build_alone, 2),
                "invalid_file_refused": refused,
                "load_average_1m": round(os.getloadavg()[0], 2),
                "target": "<= 3 s and XSD-valid",
            },
        )


# ---------------------------------------------------------------- bulk upload on huey workers

# BENCH_BULK_SERIAL / BENCH_BULK_SCANS scale the run down (a loaded machine, a quick look).
SERIAL_SCANS = int(os.environ.get("BENCH_BULK_SERIAL", "20"))
PARALLEL_SCANS = int(os.environ.get("BENCH_BULK_SCANS", "200"))


CACHE = ROOT / "var" / "bench" / "money-path-scans"


def _sample(index: int) -> bytes:
    """One realistic ZB I (kinds in turn), kept under var/bench: drawing one takes seconds."""
    kind = realistic.DOCUMENT_KINDS[index % len(realistic.DOCUMENT_KINDS)]
    cached = CACHE / f"{1_000 + index}-{kind}.bin"
    if cached.exists():
        return cached.read_bytes()
    data = realistic.zb1_sample(1_000 + index, kind).data
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def _samples(count: int, offset: int) -> list[bytes]:
    with multiprocessing.get_context("fork").Pool(2) as pool:
        return pool.map(_sample, range(offset, offset + count))


def _archive(scans: list[bytes], prefix: str) -> tuple[bytes, bytes]:
    suffix = {b"%PDF": ".pdf", b"\x89PN": ".png"}
    buffer = io.BytesIO()
    rows = ["file_name;email;gender;first_name;last_name;street_name;street_number;postal_code;city;iban"]
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for number, data in enumerate(scans):
            name = f"{prefix}-{number:03d}{suffix.get(data[:4], suffix.get(data[:3], '.jpg'))}"
            archive.writestr(name, data)
            rows.append(
                f"{name};{prefix}-{number}@bench.example;Frau;Anna;Muster;Hauptstr.;{number + 1};10115;Berlin;"
                "DE89370400440532013000"
            )
    return buffer.getvalue(), ("\n".join(rows) + "\n").encode()


class WorkerSampler(threading.Thread):
    """Peak resident size per huey worker process, alone and with its Tesseract children."""

    def __init__(self, consumer_pid: int) -> None:
        super().__init__(daemon=True)
        self.consumer = psutil.Process(consumer_pid)
        self.peak_with_children: dict[int, int] = {}
        self.peak_hwm: dict[int, float] = {}
        # resident size when first seen (idle, before its first scan) and at the end (after
        # the last): the difference is what a worker keeps, whatever the number of files
        self.first_rss: dict[int, float] = {}
        self.last_rss: dict[int, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                workers = self.consumer.children()
            except psutil.Error:
                return
            for worker in workers:
                try:
                    total = worker.memory_info().rss
                    self.first_rss.setdefault(worker.pid, total / 2**20)
                    self.last_rss[worker.pid] = total / 2**20
                    for child in worker.children(recursive=True):
                        total += child.memory_info().rss
                    self.peak_hwm[worker.pid] = max(self.peak_hwm.get(worker.pid, 0), _hwm_mb(worker.pid))
                except psutil.Error:
                    continue
                self.peak_with_children[worker.pid] = max(self.peak_with_children.get(worker.pid, 0), total)
            time.sleep(0.05)


def _hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _consumer(workers: int, queue: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "HUEY_IMMEDIATE": "0",
        "HUEY_FILENAME": str(queue),
        "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "run_huey", "--workers", str(workers), "--worker-type", "process"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        # the consumer's log (a task's traceback) stays for a look after the run
        stderr=(ROOT / "var" / "bench" / f"huey-{workers}-workers.log").open("wb"),
    )


@pytest.fixture
def real_queue(tmp_path: Path) -> Iterator[Path]:
    """Tasks of this process go to a SQLite queue the consumers read (not run in-process)."""
    queue = tmp_path / "huey.sqlite3"
    saved = dict(HUEY.storage_kwargs)
    HUEY.storage_kwargs["filename"] = str(queue)
    HUEY.immediate = False
    HUEY.storage = HUEY.create_storage()
    yield queue
    HUEY.storage_kwargs.clear()
    HUEY.storage_kwargs.update(saved)
    HUEY.immediate = True


def _run(
    partner: Any, scans: list[bytes], prefix: str, workers: int, queue: Path, years: list[int]
) -> dict[str, Any]:
    from operations import bulk
    from operations.models import BulkUpload
    from operations.tasks import bulk_item_run

    archive, owners = _archive(scans, prefix)
    consumer = _consumer(workers, queue)
    try:
        time.sleep(3)  # the consumer is up and its workers started
        sampler = WorkerSampler(consumer.pid)
        sampler.start()
        start = time.perf_counter()
        upload = bulk.bulk_upload_create(
            partner=partner,
            actor=None,
            upload=io.BytesIO(archive),
            file_name=f"{prefix}.zip",
            size=len(archive),
            owner_csv=owners,
            registration_years=years,
            enqueue=lambda schema, item: bulk_item_run(schema, item),
        )
        while True:
            upload.refresh_from_db()
            if upload.status not in (
                BulkUpload.Status.NEW,
                BulkUpload.Status.CSV_OK,
                BulkUpload.Status.IN_PROGRESS,
            ):
                break
            time.sleep(0.5)
        wall = time.perf_counter() - start
        sampler.stop.set()
        sampler.join()
        counts = dict.fromkeys(("accepted", "refused", "duplicate"), 0)
        codes: dict[str, int] = {}
        for status, code in upload.items.values_list("status", "error_code"):
            counts[status] = counts.get(status, 0) + 1
            if code:
                codes[code] = codes.get(code, 0) + 1
        result = {
            "scans": len(scans),
            "archive_mb": round(len(archive) / 1e6, 1),
            "workers": workers,
            "wall_s": round(wall, 1),
            "status": upload.status,
            **counts,
            "refusal_codes": codes,
            "worker_peak_rss_mb (VmHWM)": sorted(round(v) for v in sampler.peak_hwm.values()),
            "worker_with_tesseract_peak_mb": sorted(
                round(v / 2**20) for v in sampler.peak_with_children.values()
            ),
            "worker_rss_first_last_mb": sorted(
                (round(sampler.first_rss[pid]), round(sampler.last_rss[pid])) for pid in sampler.first_rss
            ),
        }
        bulk.bulk_upload_rollback(upload=upload)
        return result
    finally:
        consumer.terminate()
        consumer.wait(timeout=60)


def test_bulk_upload_of_200_scans_on_2_huey_workers(
    django_db_setup: None, django_db_blocker: Any, real_queue: Path
) -> None:
    from common.partner_config import PartnerConfig
    from tenants.models import Partner
    from tenants.quota_years import allowed_registration_years

    serial_scans = _samples(SERIAL_SCANS, 0)
    parallel_scans = _samples(PARALLEL_SCANS, SERIAL_SCANS)
    with django_db_blocker.unblock():
        partner = Partner.objects.get(subdomain="autohaus")
        years = allowed_registration_years(PartnerConfig.model_validate(partner.config))[:1]
        with tenant_context(partner):
            serial = _run(partner, serial_scans, "serial", 1, real_queue, years)
            parallel = _run(partner, parallel_scans, "parallel", 2, real_queue, years)
        connection.close()
    single = serial["wall_s"] / SERIAL_SCANS
    ideal = PARALLEL_SCANS * single / 2
    record(
        "bulk_upload_200_scans_2_huey_workers",
        {
            "single_scan_s (serial scans on 1 worker, wall / n)": round(single, 2),
            "ideal_wall_s (n x single / 2)": round(ideal, 1),
            "scans (serial, parallel)": f"{SERIAL_SCANS}, {PARALLEL_SCANS}",
            "wall_s": parallel["wall_s"],
            "parallel_efficiency": round(ideal / parallel["wall_s"], 2),
            "accepted/refused/duplicate": f"{parallel['accepted']}/{parallel['refused']}/{parallel['duplicate']}",
            "refusal_codes": parallel["refusal_codes"],
            "status": parallel["status"],
            "worker_peak_rss_mb (VmHWM)": parallel["worker_peak_rss_mb (VmHWM)"],
            "worker_with_tesseract_peak_mb": parallel["worker_with_tesseract_peak_mb"],
            "worker_rss_first_last_mb": parallel["worker_rss_first_last_mb"],
            "serial_worker_peak_rss_mb": serial["worker_peak_rss_mb (VmHWM)"],
            "archive_mb": parallel["archive_mb"],
            "cpu_count": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "target": "efficiency >= 0.8, peak RSS per worker <= 400 MB",
        },
    )
