"""Storybook's partner fixtures: what `GET /api/configs/{subdomain}/` answers, compiled by the
real theme compiler. The demo partners (one per kind, and the deactivated one) come from their
definitions, so no database is needed; any other partner is read by its subdomain. A
developer's tool (tools/ is not in the image); tests/storybook/test_fixtures.py fails when the
committed fixtures are stale.

    .venv/bin/python tools/export_partner_fixtures.py [subdomain ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "storybook" / "fixtures"
FIXTURE_NAMES = {
    "autohaus": "standard",
    "stadtwerk": "utility",
    "wallbox": "wallbox",
    "inaktiv": "deactivated",
}


def write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


def fixtures_export(out: Path, subdomains: list[str], echo: Callable[[str], object] = print) -> None:
    # The project's modules are imported once Django is set up (main, or the test process).
    from common.partner_config import config_normalise, config_public
    from tenants.demo import DEMO_PARTNERS
    from tenants.models import Partner
    from tenants.selectors import partner_config
    from themes.compiler import theme_compile

    out.mkdir(parents=True, exist_ok=True)
    for demo in DEMO_PARTNERS:
        name = FIXTURE_NAMES[demo["subdomain"]]
        config = config_normalise(demo["config"])
        write(
            out / f"{name}.json",
            {
                **config_public(config),
                "frontend_active": demo["frontend_active"],
                "subdomain": demo["subdomain"],
                "name": demo["name"],
                "kind": demo["kind"],
                "theme": theme_compile(config, demo["kind"]),
            },
        )
        echo(f"  {name:<12} {out / f'{name}.json'}")
    for subdomain in subdomains:
        partner = Partner.objects.get(subdomain=subdomain)
        write(out / f"partner-{subdomain}.json", partner_config(partner))
        echo(f"  {subdomain:<12} {out / f'partner-{subdomain}.json'}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("subdomains", nargs="*", help="partners (from the database) to export as well")
    parser.add_argument("--out", type=Path, default=FIXTURES)
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    fixtures_export(args.out, args.subdomains)


if __name__ == "__main__":
    main()
