"""`make audit` (deploy/tools/audit.py): a high vulnerability in a production npm package fails;
a vulnerability service that cannot be asked is skipped with a message, or fails with
AUDIT_REQUIRED=1."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Registry(BaseHTTPRequestHandler):
    """An npm registry's advisory endpoint and a PyPI JSON API without advisory data."""

    advisories: dict[str, list[dict[str, object]]] | None = None
    asked: list[list[str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        Registry.asked.append(sorted(json.loads(body)))
        if Registry.advisories is None:
            self.send_response(405)
            self.end_headers()
            return
        answer = json.dumps(Registry.advisories).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self) -> None:
        # packuments and the PyPI canary: not here
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def registry() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Registry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def audit(registry: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "npm_config_registry": registry + "/",
        "AUDIT_PYPI_CANARY": registry + "/pypi/django/4.2/json",
        **env,
    }
    return subprocess.run(
        [sys.executable, "deploy/tools/audit.py"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def advisory(severity: str) -> dict[str, list[dict[str, object]]]:
    return {
        "react": [
            {
                "id": {"high": 99001, "moderate": 99002}[severity],  # npm caches advisories by id
                "url": f"https://example.test/advisory/{severity}",
                "title": "A test advisory",
                "severity": severity,
                "vulnerable_versions": "<100",
                "cwe": [],
                "cvss": {"score": 5.3 if severity == "moderate" else 8.1, "vectorString": None},
            }
        ]
    }


def test_a_high_vulnerability_in_a_production_package_fails(registry: str) -> None:
    Registry.advisories = advisory("high")

    result = audit(registry)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "high or critical vulnerabilities in production packages" in result.stderr
    assert "react: high" in result.stderr
    # only production packages were asked about
    asked = Registry.asked[-1]
    assert "react" in asked and "vitest" not in asked and "eslint" not in asked


def test_a_moderate_vulnerability_passes(registry: str) -> None:
    Registry.advisories = advisory("moderate")

    result = audit(registry)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "npm audit: no high or critical vulnerabilities" in result.stdout


def test_services_that_cannot_be_asked_are_skipped_with_a_message(registry: str) -> None:
    Registry.advisories = None  # the mirror's 405

    result = audit(registry)
    required = audit(registry, AUDIT_REQUIRED="1")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "pip-audit skipped: " in result.stderr and "did not answer" in result.stderr
    assert "npm audit skipped: the registry's advisory endpoint answered an error (405" in result.stderr
    assert required.returncode == 1
