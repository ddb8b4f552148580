"""Attribution of new quota applications: the flow's URL variables (`?ref=KEY`, `?deal=KEY`,
kept by the web app and sent with the billing data as `full_url_variable_string`) or the
spec's `partner_variable` name a sub-partner and a single deal.

quota's application writes use this module through their hook (quota.hooks.deals), which
OperationsConfig.ready() fills: quota sits below operations and never imports it."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from django.db.models import Q

from billing.models import Client
from common.payout_bounds import german_euros, payout_max
from operations.models import SingleDeal, SubPartner

REF_VARIABLE = "ref"
DEAL_VARIABLE = "deal"


@dataclass(frozen=True)
class Attribution:
    sub_partner: SubPartner | None
    single_deal: SingleDeal | None


def _variable(variables: dict[str, list[str]], name: str) -> str:
    values = variables.get(name) or [""]
    return values[0].strip()


def client_attribution(client: Client) -> Attribution:
    """The active sub-partner and single deal a client's URL variables name (keys compare
    case-insensitively; an unknown or inactive key is ignored, the owner sees no error)."""
    variables = parse_qs(client.full_url_variable_string or "", keep_blank_values=False)
    ref = _variable(variables, REF_VARIABLE)
    sub_partner = None
    keys = [key for key in (ref, (client.partner_variable or "").strip()) if key]
    if keys:
        query = Q()
        for key in keys:
            query |= Q(referral_key__iexact=key)
        found = {s.referral_key.lower(): s for s in SubPartner.objects.filter(query, is_active=True)}
        # The URL's key first; the owner-typed partner variable only when the URL has none.
        sub_partner = next((found[key.lower()] for key in keys if key.lower() in found), None)
    deal_key = _variable(variables, DEAL_VARIABLE)
    single_deal = (
        SingleDeal.objects.filter(deal_key__iexact=deal_key, is_active=True).first() if deal_key else None
    )
    return Attribution(sub_partner=sub_partner, single_deal=single_deal)


DEAL_INACTIVE = "DEAL001"
DEAL_YEAR = "DEAL002"
DEAL_CAP = "DEAL003"
DEAL_CEILING = "DEAL004"

DEAL_REFUSALS = {
    DEAL_INACTIVE: "Der Einzelvertrag ist nicht aktiv.",
    DEAL_YEAR: "Der Einzelvertrag gilt nicht für das Quotenjahr {year}.",
    DEAL_CAP: "Der Einzelvertrag ist ausgeschöpft ({cap} Fahrzeuge).",
    DEAL_CEILING: "Der Preis des Einzelvertrags ({price}) liegt über der Grenze der Plattform für "
    "die Fahrzeugklasse {vehicle_class} im Quotenjahr {year}: höchstens {ceiling} je Fahrzeug.",
}


def single_deal_lock(deal_id: int) -> SingleDeal:
    """The deal's row, locked in the caller's transaction: two owners cannot both take the
    last place (single_deal_refusal)."""
    return SingleDeal.objects.select_for_update().get(pk=deal_id)


def single_deal_ceiling_refusal(deal: SingleDeal, *, year: int, vehicle_class: str) -> str | None:
    """The message when the deal's price is above the platform's ceiling for this vehicle's
    class and year (common.payout_bounds): a deal may cover trucks and still not pay a car
    a truck's price. None when within."""
    ceiling = payout_max(year, vehicle_class)
    if deal.price_net <= ceiling:
        return None
    return DEAL_REFUSALS[DEAL_CEILING].format(
        price=german_euros(deal.price_net),
        vehicle_class=vehicle_class,
        year=year,
        ceiling=german_euros(ceiling),
    )


def single_deal_vehicles_used(deal: SingleDeal) -> int:
    """The vehicles (registrations) the deal covers: one vehicle may have several years."""
    return deal.quota_applications.values("registration_id").distinct().count()


def single_deal_refusal(
    deal: SingleDeal, *, year: int, registration_id: int, vehicle_class: str | None = None
) -> tuple[str, str] | None:
    """(code, message) when the deal cannot take this vehicle for this year (with its class
    given: nor pay its price for the class), else None. The caller holds the deal's row lock
    (select_for_update), so two owners cannot both take the last place."""
    if not deal.is_active:
        return DEAL_INACTIVE, DEAL_REFUSALS[DEAL_INACTIVE]
    if year not in (deal.legislation_years or []):
        return DEAL_YEAR, DEAL_REFUSALS[DEAL_YEAR].format(year=year)
    if vehicle_class is not None:
        above = single_deal_ceiling_refusal(deal, year=year, vehicle_class=vehicle_class)
        if above is not None:
            return DEAL_CEILING, above
    if deal.vehicle_cap is not None:
        known = deal.quota_applications.filter(registration_id=registration_id).exists()
        if not known and single_deal_vehicles_used(deal) >= deal.vehicle_cap:
            return DEAL_CAP, DEAL_REFUSALS[DEAL_CAP].format(cap=deal.vehicle_cap)
    return None
