"""Operations writes: sub-partners and single deals (every write audited), and the single
deal's admission rule shared by the flow and the staff's assignment."""

from __future__ import annotations

from operations.models import SingleDeal

DEAL_INACTIVE = "DEAL001"
DEAL_YEAR = "DEAL002"
DEAL_CAP = "DEAL003"

DEAL_REFUSALS = {
    DEAL_INACTIVE: "Der Einzelvertrag ist nicht aktiv.",
    DEAL_YEAR: "Der Einzelvertrag gilt nicht für das Quotenjahr {year}.",
    DEAL_CAP: "Der Einzelvertrag ist ausgeschöpft ({cap} Fahrzeuge).",
}


def single_deal_vehicles_used(deal: SingleDeal) -> int:
    """The vehicles (registrations) the deal covers: one vehicle may have several years."""
    return deal.quota_applications.values("registration_id").distinct().count()


def single_deal_refusal(deal: SingleDeal, *, year: int, registration_id: int) -> tuple[str, str] | None:
    """(code, message) when the deal cannot take this vehicle for this year, else None. The
    caller holds the deal's row lock (select_for_update), so two owners cannot both take the
    last place."""
    if not deal.is_active:
        return DEAL_INACTIVE, DEAL_REFUSALS[DEAL_INACTIVE]
    if year not in (deal.legislation_years or []):
        return DEAL_YEAR, DEAL_REFUSALS[DEAL_YEAR].format(year=year)
    if deal.vehicle_cap is not None:
        known = deal.quota_applications.filter(registration_id=registration_id).exists()
        if not known and single_deal_vehicles_used(deal) >= deal.vehicle_cap:
            return DEAL_CAP, DEAL_REFUSALS[DEAL_CAP].format(cap=deal.vehicle_cap)
    return None
