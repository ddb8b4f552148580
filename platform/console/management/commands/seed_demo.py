import os
from typing import Any

from django.core.management.base import BaseCommand
from django_tenants.utils import schema_context

from quota.services import back_office_staff_ensure
from staff.services import demo_device_ensure, staff_member_ensure
from tenants.demo import DEMO_PARTNERS, DEMO_STAFF_NAME, DEMO_STAFF_USERNAME, demo_totp_key
from tenants.models import Partner
from tenants.services import partner_host, partner_provision, partner_update

# The demo back office (`/admin/` on each demo partner's host): user "backoffice", its second
# factor an authenticator whose current code `tools/demo_totp.py SUB` prints.
DEMO_STAFF_PASSWORD = os.environ.get("DEMO_BACKOFFICE_PASSWORD", "Backoffice_2026!")


class Command(BaseCommand):
    help = "Provision (or bring up to date) the demo partners; safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        for demo in DEMO_PARTNERS:
            existing = Partner.objects.filter(subdomain=demo["subdomain"]).first()
            if existing is None:
                partner_provision(**demo)
                verb = "created"
            else:
                fields = {key: value for key, value in demo.items() if key != "subdomain"}
                partner_update(partner=existing, **fields)
                verb = "up to date"
            schema = Partner.objects.get(subdomain=demo["subdomain"]).schema_name
            with schema_context(schema):
                staff = back_office_staff_ensure(
                    username=DEMO_STAFF_USERNAME,
                    email=f"backoffice@{demo['subdomain']}.example",
                    password=DEMO_STAFF_PASSWORD,
                )
                demo_device_ensure(user=staff, key=demo_totp_key(schema))
                # The same login opens the partner area (/partner) as its partner admin.
                staff_member_ensure(user=staff, role="partner_admin", name=DEMO_STAFF_NAME)
            state = "" if demo["frontend_active"] else " (deactivated)"
            self.stdout.write(
                f"  {demo['kind']:<9} http://{partner_host(demo['subdomain'])}:8000/  {verb}{state}"
            )
