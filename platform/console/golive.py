"""The go-live checklist of the onboarding console (issue 49): what a partner's site needs before
"Aktivieren" switches it on. A site without an imprint, privacy text, terms, prices for the
years it sells or the account its payouts are debited from must not take registrations.

The checks read the published configuration (activation makes that one live) and, for the
prices, the partner's fee table (quota.amounts.fee_schedule: the partner admin's versions, or
the configuration's table as version 0) for the quota years open today. An item only the
draft has is named as such: publish first.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django_tenants.utils import schema_context

from common.partner_config import PartnerConfig
from quota.amounts import fee_schedule
from tenants.models import Partner
from tenants.quota_years import next_open_year, open_years
from tenants.services import config_draft, partner_update


@dataclass(frozen=True)
class CheckItem:
    key: str
    label: str  # German, as the checklist and the refusal name it
    done: bool
    hint: str  # where it is set, German
    in_draft: bool = False  # missing live, present in the unpublished draft


def _document(page: Any) -> bool:
    return bool((page.text or "").strip() or page.file)


def _price_years(config: PartnerConfig, today: datetime.date) -> list[int]:
    years = open_years(today, config)
    if years:
        return years
    upcoming = next_open_year(today, config)
    return [upcoming] if upcoming is not None else []


def _checks(
    partner: Partner, config: PartnerConfig, today: datetime.date
) -> dict[str, tuple[str, bool, str]]:
    years = _price_years(config, today)
    with schema_context(partner.schema_name):
        current = fee_schedule(config).current
    priced = {year for year, _ in current.rows}
    unpriced = [year for year in years if year not in priced]
    year_text = ", ".join(str(year) for year in (unpriced or years))
    prices_label = f"Preistabelle für {year_text}" if year_text else "Preistabelle"
    account = config.payout_account
    return {
        "impressum": (
            "Impressum",
            config.show_impressum and bool(config.impressum_details.strip()),
            "Rechtliche Seiten: „Impressum anzeigen“ einschalten und das Impressum ausfüllen.",
        ),
        "datenschutz": (
            "Datenschutzerklärung",
            _document(config.pages.privacydetails),
            "Rechtliche Seiten: Datenschutzerklärung (Text oder Datei).",
        ),
        "bedingungen": (
            "Teilnahmebedingungen",
            _document(config.pages.termsdetails),
            "Rechtliche Seiten: Teilnahmebedingungen (Text oder Datei).",
        ),
        "preise": (
            prices_label,
            not unpriced,
            "Jahre und Preise: eine Preiszeile je offenem Quotenjahr (oder die Preise im Partnerbereich).",
        ),
        "auszahlungskonto": (
            "Auszahlungskonto",
            bool(account.name and account.iban),
            "Auszahlungskonto: Kontoinhaber und IBAN.",
        ),
    }


def golive_checklist(partner: Partner, today: datetime.date | None = None) -> list[CheckItem]:
    """The checklist, in the order the console shows it."""
    day = today or timezone.localdate()
    live = _checks(partner, PartnerConfig.model_validate(partner.config), day)
    draft = config_draft(partner)
    drafted = _checks(partner, PartnerConfig.model_validate(draft.config), day) if draft else {}
    return [
        CheckItem(
            key=key,
            label=label,
            done=done,
            hint=hint,
            in_draft=not done and key in drafted and drafted[key][1],
        )
        for key, (label, done, hint) in live.items()
    ]


def golive_missing_message(items: list[CheckItem]) -> str | None:
    """The refusal's German message naming what is missing, or None when nothing is."""
    missing = [item for item in items if not item.done]
    if not missing:
        return None
    names = ", ".join(
        item.label + (" (nur im Entwurf: erst veröffentlichen)" if item.in_draft else "") for item in missing
    )
    return f"Aktivieren nicht möglich, es fehlt: {names}."


def partner_activate(*, partner: Partner, today: datetime.date | None = None) -> Partner:
    """Switch the site on once the checklist is complete; ValidationError naming what is missing
    otherwise."""
    if partner.archived_at is not None:
        raise ValidationError("Ein archivierter Partner kann nicht aktiviert werden.")
    message = golive_missing_message(golive_checklist(partner, today))
    if message:
        raise ValidationError(message)
    return partner_update(partner=partner, frontend_active=True)
