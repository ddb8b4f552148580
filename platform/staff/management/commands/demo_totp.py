from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from staff.services import totp_code_now
from tenants.demo import DEMO_PARTNERS, DEMO_STAFF_USERNAME
from tenants.models import Partner


class Command(BaseCommand):
    help = "Print a code the demo back office (user 'backoffice') of a demo partner can log in with now."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("subdomain", help="a demo partner, e.g. autohaus")

    def handle(self, *args: Any, **options: Any) -> None:
        subdomain = str(options["subdomain"]).strip().lower()
        # Only the demo partners' back office has a known authenticator; real staff enrol their own.
        if subdomain not in {demo["subdomain"] for demo in DEMO_PARTNERS}:
            raise CommandError(f"{subdomain!r} is not a demo partner")
        partner = Partner.objects.filter(subdomain=subdomain).first()
        if partner is None:
            raise CommandError(
                f"the demo partner {subdomain!r} is not provisioned: run `manage.py seed_demo`"
            )
        with schema_context(partner.schema_name):
            device = TOTPDevice.objects.filter(user__username=DEMO_STAFF_USERNAME, confirmed=True).first()
            if device is None:
                raise CommandError("the demo back office has no authenticator: run `manage.py seed_demo`")
            self.stdout.write(totp_code_now(device))
