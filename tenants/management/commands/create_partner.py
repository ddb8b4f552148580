import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants.audit import command_actor, console_audit_record, partner_snapshot
from tenants.models import PartnerKind
from tenants.services import partner_host, partner_provision


class Command(BaseCommand):
    help = "Provision a partner: its schema (cloned from the template), domains and configuration."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("subdomain")
        parser.add_argument("name")
        parser.add_argument("--kind", choices=PartnerKind.values, default=PartnerKind.STANDARD)
        parser.add_argument("--config", type=Path, help="JSON file with the partner configuration")
        parser.add_argument("--domain", help="an additional custom domain, e.g. thg.example.de")
        parser.add_argument("--inactive", action="store_true", help="provision with the frontend off")
        parser.add_argument(
            "--domain-verified",
            action="store_true",
            help="serve --domain at once (the operator has checked it); otherwise it waits for its "
            "TXT record _thg-verify.DOMAIN",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        config = None
        if options["config"]:
            try:
                config = json.loads(options["config"].read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise CommandError(f"Cannot read the configuration: {exc}") from exc
        try:
            partner = partner_provision(
                subdomain=options["subdomain"],
                name=options["name"],
                kind=options["kind"],
                config=config,
                frontend_active=not options["inactive"],
                custom_domain=options["domain"],
                custom_domain_verified=options["domain_verified"],
            )
        except ValidationError as exc:
            lines = [
                f"{field}: {message}" for field, messages in exc.message_dict.items() for message in messages
            ]
            raise CommandError("\n".join(lines)) from exc
        console_audit_record(
            actor=command_actor(),
            action="create",
            partner=partner,
            summary="Partner angelegt (create_partner)",
            after={**partner_snapshot(partner), "config": partner.config},
        )
        self.stdout.write(
            f"Partner {partner.subdomain} is live at http://{partner_host(partner.subdomain)}:8000/"
        )
        if options["domain"] and not options["domain_verified"]:
            self.stdout.write(
                f"{options['domain']} is served once its TXT record _thg-verify.{options['domain']} "
                f"holds {partner.domain_token}"
            )
