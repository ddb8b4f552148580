"""Attribution of new quota applications: the flow's URL variables (`?ref=KEY`, `?deal=KEY`,
kept by the web app and sent with the billing data as `full_url_variable_string`) or the
spec's `partner_variable` name a sub-partner and a single deal."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from django.db.models import Q

from billing.models import Client
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
