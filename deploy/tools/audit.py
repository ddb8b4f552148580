"""`make audit`: known vulnerabilities in what ships, the Python runtime lock and the production
npm packages. Exit 1 on a finding; exit 0 with a message saying what was skipped when a
vulnerability service cannot be asked.

- Python: pip-audit over requirements.lock (the image's packages, hashed pins, no resolving).
  pip-audit asks PyPI's JSON API, which has no severities: any known vulnerability fails.
  A release known to be vulnerable (Django 4.2.0) is looked up first: a service that does not
  list advisories for it (a registry mirror without the vulnerability data, no internet) would
  make pip-audit report every package as "not found" and pass, so the check is skipped instead.
- npm: `npm audit --omit=dev --audit-level=high` (high and critical fail). A registry that
  answers the bulk advisory endpoint with an error (a mirror without it) skips the check.

AUDIT_REQUIRED=1 turns a skip into a failure (for a CI runner that does reach the services).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPI_CANARY = "https://pypi.org/pypi/django/4.2/json"
TIMEOUT = 20


def pypi_answers() -> str | None:
    """None when PyPI's JSON API lists advisories; else why not."""
    try:
        url = os.environ.get("AUDIT_PYPI_CANARY", PYPI_CANARY)
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:  # noqa: S310 (our own constant or the tests' server)
            data = json.load(answer)
    except (urllib.error.URLError, OSError, ValueError) as error:
        return f"{PYPI_CANARY} did not answer ({error})"
    if not data.get("vulnerabilities"):
        return f"{PYPI_CANARY} lists no advisories for Django 4.2.0 (a mirror without vulnerability data)"
    return None


def audit_python() -> tuple[bool, str]:
    reason = pypi_answers()
    if reason:
        return True, f"pip-audit skipped: {reason}."
    pip_audit = Path(sys.executable).with_name("pip-audit")
    command = [str(pip_audit), "--progress-spinner", "off", "--disable-pip", "--require-hashes"]
    command += ["-r", str(ROOT / "requirements.lock"), "-r", str(ROOT / "requirements-ocr.lock")]
    result = subprocess.run(command, cwd=ROOT, check=False)  # noqa: S603 (a fixed command)
    return result.returncode == 0, "pip-audit: " + (
        "no known vulnerabilities" if result.returncode == 0 else "failed"
    )


def audit_npm() -> tuple[bool, str]:
    command = ["npm", "audit", "--omit=dev", "--audit-level=high", "--json"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)  # noqa: S603
    try:
        report = json.loads(result.stdout or "{}")
    except ValueError:
        report = {"error": {"summary": result.stdout[:200] or result.stderr[-200:]}}
    if "error" in report:
        error = report["error"]
        summary = (error.get("summary") or "") if isinstance(error, dict) else str(error)
        why = report.get("message") or summary or "no answer"
        return True, f"npm audit skipped: the registry's advisory endpoint answered an error ({why})."
    counts = report.get("metadata", {}).get("vulnerabilities", {})
    high = counts.get("high", 0) + counts.get("critical", 0)
    if result.returncode != 0 or high:
        for name, finding in sorted(report.get("vulnerabilities", {}).items()):
            if finding.get("severity") in ("high", "critical"):
                print(f"  {name}: {finding['severity']} ({finding.get('range', '')})", file=sys.stderr)
        return False, f"npm audit: {high} high or critical vulnerabilities in production packages"
    return True, f"npm audit: no high or critical vulnerabilities ({sum(counts.values())} lower ones)"


def main() -> int:
    required = os.environ.get("AUDIT_REQUIRED") == "1"
    failed = False
    for check in (audit_python, audit_npm):
        passed, message = check()
        skipped = "skipped" in message
        print(message, file=sys.stderr if (not passed or skipped) else sys.stdout)
        failed = failed or not passed or (skipped and required)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
