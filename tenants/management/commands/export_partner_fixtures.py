"""Storybook's partner fixtures: what `GET /api/configs/{subdomain}/` answers, compiled by the
real theme compiler. The demo partners (one per kind, and the deactivated one) come from their
definitions, so no database is needed; any other partner is read by its subdomain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from common.partner_config import config_normalise, config_public
from tenants.demo import DEMO_PARTNERS
from tenants.models import Partner
from tenants.selectors import partner_config
from themes.compiler import theme_compile

FIXTURE_NAMES = {
    "autohaus": "standard",
    "stadtwerk": "utility",
    "wallbox": "wallbox",
    "inaktiv": "deactivated",
}


def demo_fixture(demo: dict[str, Any]) -> dict[str, Any]:
    config = config_normalise(demo["config"])
    return {
        **config_public(config),
        "frontend_active": demo["frontend_active"],
        "subdomain": demo["subdomain"],
        "name": demo["name"],
        "kind": demo["kind"],
        "theme": theme_compile(config, demo["kind"]),
    }


def write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


class Command(BaseCommand):
    help = "Write the compiled partner bundles Storybook reads (demo partners, and partners by subdomain)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("subdomains", nargs="*", help="partners (from the database) to export as well")
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "storybook" / "fixtures"))

    def handle(self, *args: Any, **options: Any) -> None:
        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        for demo in DEMO_PARTNERS:
            name = FIXTURE_NAMES[demo["subdomain"]]
            write(out / f"{name}.json", demo_fixture(demo))
            self.stdout.write(f"  {name:<12} {out / f'{name}.json'}")
        for subdomain in options["subdomains"]:
            partner = Partner.objects.get(subdomain=subdomain)
            write(out / f"partner-{subdomain}.json", partner_config(partner))
            self.stdout.write(f"  {subdomain:<12} {out / f'partner-{subdomain}.json'}")
