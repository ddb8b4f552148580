"""The onboarding console's partner change form as a browser posts it (no domain rows)."""

from __future__ import annotations

import json

from tenants.models import Partner


def partner_form(partner: Partner, config: dict, **fields: str) -> dict[str, str]:  # type: ignore[type-arg]
    return {
        "name": partner.name,
        "kind": partner.kind,
        "frontend_active": "on" if partner.frontend_active else "",
        "config": json.dumps(config),
        "note": "",
        "domains-TOTAL_FORMS": "0",
        "domains-INITIAL_FORMS": "0",
        "domains-MIN_NUM_FORMS": "0",
        "domains-MAX_NUM_FORMS": "1000",
        **fields,
    }
