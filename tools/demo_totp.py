"""The code the demo back office (user `backoffice` of a demo partner) can log in with now: the
second factor of /admin/ and /partner after `make run`. A developer's tool (tools/ is not in the
image): the demo authenticator's key is derived from this installation's SECRET_KEY
(tenants.demo.demo_totp_key), and only the demo partners have one.

    .venv/bin/python tools/demo_totp.py stadtwerk       # or autohaus, wallbox
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class NoDemoCode(Exception):
    """The partner is not a demo partner, or the demo is not seeded."""


def demo_code(subdomain: str) -> str:
    # Django's models are imported once settings are set up (main, or the test process).
    from django_otp.plugins.otp_totp.models import TOTPDevice
    from django_tenants.utils import schema_context

    from staff.services import totp_code_now
    from tenants.demo import DEMO_PARTNERS, DEMO_STAFF_USERNAME
    from tenants.models import Partner

    subdomain = subdomain.strip().lower()
    # Only the demo partners' back office has a known authenticator; real staff enrol their own.
    if subdomain not in {demo["subdomain"] for demo in DEMO_PARTNERS}:
        raise NoDemoCode(f"{subdomain!r} is not a demo partner")
    partner = Partner.objects.filter(subdomain=subdomain).first()
    if partner is None:
        raise NoDemoCode(f"the demo partner {subdomain!r} is not provisioned: run `manage.py seed_demo`")
    with schema_context(partner.schema_name):
        device = TOTPDevice.objects.filter(user__username=DEMO_STAFF_USERNAME, confirmed=True).first()
        if device is None:
            raise NoDemoCode("the demo back office has no authenticator: run `manage.py seed_demo`")
        return totp_code_now(device)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("subdomain", help="a demo partner, e.g. autohaus")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    try:
        print(demo_code(args.subdomain))
    except NoDemoCode as refusal:
        print(f"demo_totp: {refusal}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
