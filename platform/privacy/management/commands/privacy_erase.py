"""Erase an owner on a request received by mail (GDPR Art. 17), as the portal's erasure does.

    manage.py privacy_erase --partner SUBDOMAIN --email ADDRESS [--yes]

Audited: an entry `privacy.erasure` in the partner's audit log (as from the partner area) and
one log line (logger `privacy.audit`) with the partner, the operator's login name and the
counts, never the address. Without --yes it shows what would be erased and stops.
"""

from __future__ import annotations

import getpass
import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import schema_context

from accounts.models import User, canonical_name
from privacy.services import partner_erasure
from registrations.models import BevRegistration
from tenants.models import Partner

audit = logging.getLogger("privacy.audit")


class Command(BaseCommand):
    help = "Erase a vehicle owner's account and data at one partner (a request received by mail)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--partner", required=True, help="the partner's subdomain")
        parser.add_argument("--email", required=True, help="the owner's e-mail address")
        parser.add_argument("--yes", action="store_true", help="erase (without it: only show)")

    def handle(self, *args: Any, **options: Any) -> None:
        partner = Partner.objects.filter(subdomain=options["partner"].strip().lower()).first()
        if partner is None:
            raise CommandError(f"no partner {options['partner']!r}")
        with schema_context(partner.schema_name):
            user = User.objects.filter(email_canonical=canonical_name(options["email"])).first()
            if user is None:
                raise CommandError("no owner with this e-mail address at this partner")
            if user.is_staff or user.is_superuser:
                raise CommandError("this is a staff account, not an owner")
            registrations = BevRegistration.objects.filter(owner=user).count()
            if not options["yes"]:
                self.stdout.write(
                    f"{partner.subdomain}: owner {user.pk} with {registrations} registrations; "
                    "run again with --yes to erase"
                )
                return
            operator = getpass.getuser()
            # Also in the partner's audit log, as an erasure from the partner area is.
            counts = partner_erasure(
                partner=partner,
                member=None,
                email=user.email,
                reference=f"manage.py privacy_erase (operator {operator})",
            )
        audit.warning(
            "erasure on request by mail: partner %s, operator %s, %s",
            partner.subdomain,
            operator,
            ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
        )
        self.stdout.write(
            f"{partner.subdomain}: erased ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})"
        )
