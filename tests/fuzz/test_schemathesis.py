"""`make fuzz`: schemathesis over every operation of /api/openapi.json, served by gunicorn on
the test database as `make run` serves it, once without and once with an owner's token.

Every check runs (server errors, status codes, content types, response schemas, negative data
rejected, positive data accepted, ...); the run passes with 0 failures. FUZZ_EXAMPLES sets the
examples per operation (default 100)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import pytest
import requests
from django_tenants.utils import schema_context

from accounts.models import User
from tests.api.live import HOST, committed_owner_tokens
from tests.conftest import ROOT, start_server, stop_server

REPORTS = ROOT / "var" / "fuzz"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "100"))
OWNER = "fuzz-owner@example.org"


@pytest.fixture(scope="module")
def fuzz_server(django_db_setup: None) -> Iterator[int]:
    # Rate limits stay on (their 429 is part of the contract); mails go to the test outbox.
    process, port = start_server(workers=2, threads=4, extra_env={"LOG_LEVEL": "ERROR"})
    yield port
    stop_server(process)


def openapi_document(port: int) -> Path:
    """The server's /api/openapi.json, read once into var/fuzz for both runs. Schemathesis reads
    a schema URL with a fixed 10 s timeout; on a busy machine the first answer of a cold worker
    (a document of every operation) took longer (18.6 s measured at a load of 11 on 2 cores)."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    answer = requests.get(f"http://127.0.0.1:{port}/api/openapi.json", headers={"Host": HOST}, timeout=120)
    answer.raise_for_status()
    document = REPORTS / "openapi.json"
    document.write_bytes(answer.content)
    return document


def schemathesis(port: int, document: Path, name: str, *headers: str) -> dict[str, Any]:
    REPORTS.mkdir(parents=True, exist_ok=True)
    report = REPORTS / f"{name}.ndjson"
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file",
        str(Path(__file__).with_name("schemathesis.toml")),
        "run",
        str(document),
        "--url",
        f"http://127.0.0.1:{port}",
        "--header",
        f"Host: {HOST}",
        *[part for header in headers for part in ("--header", header)],
        # Each call's own limit (schemathesis' default is 10 s): the machine is shared, and a
        # cut-off there measured its load rather than the server.
        "--request-timeout",
        "60",
        "--checks",
        "all",
        "--max-examples",
        str(EXAMPLES),
        # One worker: hypothesis parses lambda sources with ast, which CPython 3.11 does not
        # survive from several threads at once ("AST constructor recursion depth mismatch").
        "--workers",
        "1",
        "--seed",
        "13",
        "--no-color",
        "--report",
        "ndjson",
        "--report-ndjson-path",
        str(report),
        "--suppress-health-check",
        "all",
    ]
    # Run inside var/fuzz: schemathesis keeps its crash cache in the working folder.
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600, cwd=REPORTS)
    (REPORTS / f"{name}.txt").write_text(result.stdout + result.stderr)
    return {"returncode": result.returncode, "stdout": result.stdout}


def long_access_token(django_db_blocker: Any) -> str:
    """An owner's access token that outlives the run (a real one lives 5 minutes)."""
    from accounts.tokens import PartnerAccessToken

    committed_owner_tokens(django_db_blocker, email=OWNER)
    with django_db_blocker.unblock(), schema_context("p_autohaus"):
        token: Any = cast(Any, PartnerAccessToken).for_user(User.objects.get(username=OWNER))
    token["aud"] = "p_autohaus"
    token.set_exp(lifetime=timedelta(hours=3))
    return str(token)


def summary(stdout: str) -> str:
    """The fuzzer's own summary: operations, phases, failures, test cases."""
    return stdout[stdout.rfind("SUMMARY") - 40 :] if "SUMMARY" in stdout else stdout[-3000:]


def test_schema_fuzzing_finds_no_server_error_and_no_contract_failure(
    fuzz_server: int, django_db_blocker: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    token = long_access_token(django_db_blocker)

    document = openapi_document(fuzz_server)
    anonymous = schemathesis(fuzz_server, document, "anonymous")
    owner = schemathesis(fuzz_server, document, "owner", f"Authorization: Bearer {token}")

    with capsys.disabled():
        for name, run in (("without a token", anonymous), ("with an owner's token", owner)):
            print(f"\n== schemathesis {name} (full output: var/fuzz/)\n{summary(run['stdout'])}")
    assert anonymous["returncode"] == 0, anonymous["stdout"][-4000:]
    assert owner["returncode"] == 0, owner["stdout"][-4000:]
