"""Sentry is initialised only with SENTRY_DSN, and what it would send has no personal data.

Each case imports the settings in a fresh process (sentry-sdk's client is process-global);
the client's transport is replaced by one that keeps the envelopes instead of sending them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sentry_sdk
from sentry_sdk.transport import Transport
from config import settings

client = sentry_sdk.get_client()
out = {"active": client.is_active()}
if client.is_active():
    out["send_default_pii"] = client.options["send_default_pii"]
    out["max_request_body_size"] = client.options["max_request_body_size"]
    sent = []

    class Keep(Transport):
        def capture_envelope(self, envelope):
            sent.extend(item.get_bytes().decode() for item in envelope.items)

    client.transport = Keep(client.options)
    sentry_sdk.add_breadcrumb(message="login link for erika.mustermann@example.org sent")
    def register(owner_email, iban):
        raise ValueError(f"cannot register {owner_email} with {iban} /login?key=s3cr3tkey")
    try:
        register("max.mustermann@example.com", "DE89 3704 0044 0532 0130 00")
    except ValueError:
        sentry_sdk.capture_exception()
    client.flush(timeout=5)
    out["sent"] = sent
print("OUT" + json.dumps(out))
"""


def run(**env: str) -> dict[str, object]:
    base = {key: value for key, value in os.environ.items() if not key.startswith("SENTRY_")}
    base.update({"PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}", "DEBUG": "1", **env})
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("OUT"))
    return json.loads(line.removeprefix("OUT"))  # type: ignore[no-any-return]


def test_off_without_a_dsn() -> None:
    assert run() == {"active": False}


def test_on_with_a_dsn_and_personal_data_scrubbed() -> None:
    out = run(SENTRY_DSN="https://public@o0.ingest.sentry.invalid/1")

    assert out["active"] is True
    assert out["send_default_pii"] is False
    assert out["max_request_body_size"] == "never"
    sent = "\n".join(out["sent"])  # type: ignore[arg-type]
    # the event went out, with its exception, local variables and breadcrumb ...
    assert "ValueError" in sent and "register" in sent and "login link for" in sent
    assert "owner_email" in sent  # the local variable is there, its value masked
    # ... and without an e-mail address, IBAN or login key anywhere in it
    for personal in ("mustermann", "example.com", "example.org", "DE89", "3704 0044", "s3cr3tkey"):
        assert personal not in sent, personal
    assert "[email]" in sent and "[iban]" in sent
