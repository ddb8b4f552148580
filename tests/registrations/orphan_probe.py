"""A worker that dies between writing a scan and committing its row.

Usage: python -m tests.registrations.orphan_probe FILE (DATABASE_URL and VAR_DIR set by the
test). Runs the real registration_create in p_autohaus; the row's save announces 'written'
on stdout (both files are in storage by then, the transaction still open) and then waits
for the SIGKILL the test sends."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> None:
    import django

    django.setup()
    from django.db import transaction
    from django_tenants.utils import schema_context

    from accounts.models import User
    from registrations import services
    from registrations.models import BevRegistration
    from tenants.models import Partner

    def save_then_hang(self: BevRegistration, *args: object, **kwargs: object) -> None:
        print("written", flush=True)
        time.sleep(600)

    BevRegistration.save = save_then_hang  # type: ignore[method-assign,assignment]
    data = Path(sys.argv[1]).read_bytes()
    partner = Partner.objects.get(subdomain="autohaus")
    with schema_context("p_autohaus"), transaction.atomic():
        owner = User.objects.create(username="orphan-probe@example.de", email="orphan-probe@example.de")
        services.registration_create(
            partner=partner,
            owner=owner,
            data=data,
            source="B2C-FE",
            registration_years=[],
            skip_classifier=False,
            login="probe",
        )


if __name__ == "__main__":
    main()
