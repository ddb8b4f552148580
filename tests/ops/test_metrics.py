"""/metrics: request counts and latency by route pattern, status and partner, summed over
gunicorn's workers; readable only when enabled, by an allowed peer, never through a proxy."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.conftest import start_server


def get(port: int, host: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"Host": host, **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def samples(text: str, name: str) -> dict[str, float]:
    """{'label="value",...': value} of one metric."""
    found = {}
    for line in text.splitlines():
        match = re.match(rf"^{name}\{{(.*)\}} (\S+)$", line)
        if match:
            found[match.group(1)] = float(match.group(2))
    return found


@pytest.fixture(scope="module")
def metrics_server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    folder: Path = tmp_path_factory.mktemp("prometheus")
    process, port = start_server(
        workers=2,
        threads=1,
        extra_env={"METRICS_ENABLED": "1", "PROMETHEUS_MULTIPROC_DIR": str(folder)},
    )
    yield port
    process.terminate()
    process.wait(timeout=10)


def test_requests_show_up_by_route_status_and_partner_summed_over_workers(metrics_server: int) -> None:
    for _ in range(12):
        status, _body = get(metrics_server, "autohaus.localhost", "/api/configs/autohaus/")
        assert status == 200
    # a path no route matches, with personal data in it
    get(
        metrics_server, "autohaus.localhost", "/api/nothing/max.mustermann@example.com/DE89370400440532013000"
    )

    status, text = get(metrics_server, "127.0.0.1", "/metrics")

    assert status == 200
    requests = samples(text, "thg_http_requests_total")
    config_calls = {labels: value for labels, value in requests.items() if "api/configs" in labels}
    # one series: the route pattern, not the path; all 12 requests though 2 workers answered them
    assert len(config_calls) == 1, requests
    labels, value = next(iter(config_calls.items()))
    assert value == 12
    assert 'method="GET"' in labels and 'status="200"' in labels and 'partner="p_autohaus"' in labels
    assert "<" in labels  # the pattern's parameter, e.g. <str:subdomain>
    # the 404 is counted under the pattern that got it (the API's prefix), not under its path
    not_found = [labels for labels in requests if 'status="404"' in labels]
    assert not_found == ['method="GET",partner="p_autohaus",route="/^api/",status="404"'], requests
    assert "example.com" not in text and "DE89" not in text and "mustermann" not in text
    latency = samples(text, "thg_http_request_duration_seconds_count")
    assert sum(v for k, v in latency.items() if "api/configs" in k) == 12


def test_metrics_are_refused_through_a_proxy(metrics_server: int) -> None:
    status, text = get(metrics_server, "127.0.0.1", "/metrics", {"X-Forwarded-For": "203.0.113.9"})

    assert status == 404
    assert "thg_http" not in text


def test_metrics_are_off_by_default_and_refused_outside_the_allowed_networks(
    client: Client, settings: Any
) -> None:
    assert client.get("/metrics", HTTP_HOST="127.0.0.1").status_code == 404

    settings.METRICS_ENABLED = True
    assert client.get("/metrics", HTTP_HOST="127.0.0.1").status_code == 200
    outside = client.get("/metrics", HTTP_HOST="autohaus.localhost", REMOTE_ADDR="198.51.100.7")
    assert outside.status_code == 404
    assert outside.json() == {"detail": "Not found."}
