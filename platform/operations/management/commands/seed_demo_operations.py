import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django_tenants.utils import schema_context

from common.partner_config import PartnerConfig
from operations.demo import applications_generate, demo_fee_table_ensure, demo_operations_ensure
from quota.models import QuotaApplication
from tenants.demo import DEMO_PARTNERS
from tenants.models import Partner


class Command(BaseCommand):
    help = (
        "Give each active demo partner two sub-partners, a single deal, prices when it has none and a few hundred applications "
        "spread over statuses and days (for the partner area's lists and dashboard); safe to run again. "
        "A step of `make run`, not of the test session (tests count their own rows)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", type=int, default=300, help="applications per partner (default 300)")
        parser.add_argument("--days", type=int, default=90, help="spread over this many days (default 90)")

    def handle(self, *args: Any, **options: Any) -> None:
        for index, demo in enumerate(DEMO_PARTNERS):
            if not demo["frontend_active"]:
                continue
            partner = Partner.objects.filter(subdomain=demo["subdomain"]).first()
            if partner is None:
                self.stderr.write(f"  {demo['subdomain']}: not provisioned (run seed_demo first)")
                continue
            started = time.monotonic()
            with schema_context(partner.schema_name):
                sub_partners, deal = demo_operations_ensure()
                if demo_fee_table_ensure(PartnerConfig.model_validate(partner.config)):
                    self.stdout.write(f"  {demo['subdomain']}: demo fee table written")
                generated = QuotaApplication.objects.filter(
                    registration__owner__email__endswith="@demo.example"
                )
                if generated.exists():
                    self.stdout.write(f"  {demo['subdomain']}: demo applications present")
                    continue
                made = applications_generate(
                    count=options["count"], days=options["days"], sub_partners=sub_partners, single_deal=deal,
                    seed=16 + index,
                )  # fmt: skip
            self.stdout.write(
                f"  {demo['subdomain']}: {made} applications, 2 sub-partners, 1 single deal"
                f" ({time.monotonic() - started:.1f} s)"
            )
