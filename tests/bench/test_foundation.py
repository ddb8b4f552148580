"""Foundation figures, each a ratio against a baseline measured in the same run:

1. config-call throughput / a bare django-ninja endpoint's (same server, same middleware);
2. config-call latency with 200 partners / with 1 partner;
3. provisioning one partner by template clone at 200 partners, beside a migrate replay.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django_tenants.utils import schema_exists

from tenants.models import Partner
from tenants.services import partner_provision
from tests.bench.conftest import record
from tests.conftest import start_server

WRK = shutil.which("wrk")
LUA = Path(__file__).with_name("wrk.lua")
EXTRA_PARTNERS = 200


def wrk(
    port: int,
    hosts: list[str],
    path: str,
    *,
    seconds: int,
    connections: int,
    threads: int = 2,
    script: Path = LUA,
) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as handle:
        handle.write("\n".join(hosts) + "\n")
    env = {**os.environ, "WRK_HOSTS": handle.name, "WRK_PATH": path, "WRK_HOST": hosts[0]}
    command = [
        WRK or "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "-s",
        str(script),
        f"http://127.0.0.1:{port}",
    ]
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    os.unlink(handle.name)
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
    assert result["errors"] == 0, output
    return result


@pytest.fixture(scope="module")
def server(django_db_setup: None) -> Iterator[int]:
    if WRK is None:
        pytest.skip("wrk is not installed (make bench installs Debian's wrk as root)")
    process, port = start_server(workers=2, threads=4, extra_env={"BENCH_ENDPOINTS": "1"})
    yield port
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def many_partners(django_db_setup: None, django_db_blocker: Any) -> Iterator[list[str]]:
    """200 more partners, committed so the server sees them; removed afterwards."""
    subdomains = [f"bench-{i:03d}" for i in range(EXTRA_PARTNERS)]
    with django_db_blocker.unblock():
        for index, subdomain in enumerate(subdomains):
            if not Partner.objects.filter(subdomain=subdomain).exists():
                partner_provision(
                    subdomain=subdomain,
                    name=f"Bench {index}",
                    kind=("standard", "utility", "wallbox")[index % 3],
                )
    yield subdomains
    with django_db_blocker.unblock():
        for partner in Partner.objects.filter(subdomain__startswith="bench-"):
            partner.delete(force_drop=True)


def test_config_call_throughput_against_a_bare_endpoint(server: int) -> None:
    host = ["autohaus.localhost"]
    paths = {"config": "/api/configs/{sub}/", "constant": "/api/bench/constant/"}
    for path in paths.values():  # warm both workers on both endpoints
        wrk(server, host, path, seconds=2, connections=8)
    rounds: dict[str, list[float]] = {"config": [], "constant": []}
    for index in range(4):
        # Alternating order, so neither endpoint always runs on the warmer machine.
        order = ("config", "constant") if index % 2 else ("constant", "config")
        for name in order:
            rounds[name].append(wrk(server, host, paths[name], seconds=3, connections=8)["rps"])

    config, constant = statistics.median(rounds["config"]), statistics.median(rounds["constant"])
    record(
        "config_call_throughput",
        {
            "config_rps_median": round(config, 1),
            "constant_rps_median": round(constant, 1),
            "ratio": round(config / constant, 3),
            "target": ">= 0.9",
            "rounds": {k: [round(v, 1) for v in vs] for k, vs in rounds.items()},
        },
    )
    assert config > 0 and constant > 0


def test_config_call_latency_at_1_and_at_200_partners(server: int, many_partners: list[str]) -> None:
    one = ["autohaus.localhost"]
    all_hosts = [f"{s}.localhost" for s in many_partners]
    for hosts in (one, all_hosts):  # each worker's directory learns every host first
        wrk(server, hosts, "/api/configs/{sub}/", seconds=2, connections=4)
    samples: dict[str, list[dict[str, Any]]] = {"1": [], "200": []}
    for _ in range(5):  # interleaved, so a noisy neighbour hits both sides alike
        samples["1"].append(wrk(server, one, "/api/configs/{sub}/", seconds=4, connections=1, threads=1))
        samples["200"].append(
            wrk(server, all_hosts, "/api/configs/{sub}/", seconds=4, connections=1, threads=1)
        )

    def median(key: str, count: str) -> float:
        return statistics.median(sample[key] for sample in samples[count])

    record(
        "config_call_latency_partners",
        {
            "mean_us_1_partner": median("mean_us", "1"),
            "mean_us_200_partners": median("mean_us", "200"),
            "p50_us_1_partner": median("p50_us", "1"),
            "p50_us_200_partners": median("p50_us", "200"),
            "p90_us_1_partner": median("p90_us", "1"),
            "p90_us_200_partners": median("p90_us", "200"),
            "p99_us_1_partner": median("p99_us", "1"),
            "p99_us_200_partners": median("p99_us", "200"),
            "ratio_p50_200_to_1": round(median("p50_us", "200") / median("p50_us", "1"), 3),
            "ratio_p90_200_to_1": round(median("p90_us", "200") / median("p90_us", "1"), 3),
            "ratio_mean_200_to_1": round(median("mean_us", "200") / median("mean_us", "1"), 3),
            "target": "<= 1.10 (p50 and p90; the mean carries this VM's stalls, which hit either side)",
        },
    )


def test_provisioning_at_200_partners_against_migrate_replay(
    many_partners: list[str], django_db_blocker: Any
) -> None:
    clone_times: list[float] = []
    replay_times: list[float] = []
    with django_db_blocker.unblock():
        assert Partner.objects.count() >= EXTRA_PARTNERS
        for index in range(7):
            started = time.perf_counter()
            partner = partner_provision(subdomain=f"bench-new-{index}", name="Neu", kind="standard")
            clone_times.append(time.perf_counter() - started)
            partner.delete(force_drop=True)
        for index in range(3):
            schema = f"bench_replay_{index}"
            started = time.perf_counter()
            with connection.cursor() as cursor:
                cursor.execute(f'CREATE SCHEMA "{schema}"')
            call_command("migrate_schemas", schema_name=schema, tenant=True, interactive=False, verbosity=0)
            replay_times.append(time.perf_counter() - started)
            with connection.cursor() as cursor:
                cursor.execute(f'DROP SCHEMA "{schema}" CASCADE')
            assert not schema_exists(schema)

    clone, replay = statistics.median(clone_times), statistics.median(replay_times)
    record(
        "provisioning_at_200_partners",
        {
            "clone_median_s": round(clone, 3),
            "clone_samples_s": [round(t, 3) for t in clone_times],
            "migrate_replay_median_s": round(replay, 3),
            "replay_samples_s": [round(t, 3) for t in replay_times],
            "clone_to_replay_ratio": round(clone / replay, 3),
            "target": "clone median <= 1 s",
        },
    )
