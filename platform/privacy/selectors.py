"""What the platform holds about one owner, for the export (GDPR Art. 15/20)."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from ninja_jwt.token_blacklist.models import OutstandingToken

from accounts.models import LoginCode, LoginLink, User
from billing.models import Client
from privacy.consents import consent_list
from privacy.inventory import owner_records
from quota.models import AdvertisementClick, QuotaApplication, StatusChange
from registrations.models import BevRegistration, DeviceInfo


def _at(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def owner_data(*, user: User) -> dict[str, Any]:
    """Every row of this owner, as JSON-ready documents (IBAN and address decrypted: the owner
    is entitled to them). Runs inside the partner's schema."""
    registrations = list(
        BevRegistration.objects.filter(owner=user)
        .prefetch_related(
            Prefetch(
                "quota_applications",
                queryset=QuotaApplication.objects.prefetch_related(
                    Prefetch("status_changes", queryset=StatusChange.objects.order_by("created_at", "pk"))
                ),
            )
        )
        .order_by("sequence")
    )
    clients = list(Client.objects.filter(owner=user).order_by("pk"))
    account = {
        "email": user.email,
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": _at(user.date_joined),
        "last_login": _at(user.last_login),
        "has_password": user.has_usable_password(),
    }
    registration_rows = [
        {
            "sequence": r.sequence,
            "uuid": str(r.uuid),
            "source": r.source,
            "registration_years": r.registration_years,
            "vin": r.vin,
            "first_registration": _at(r.first_registration),
            "vehicle_class": r.vehicle_class,
            "energy_code": r.energy_code,
            "created_at": _at(r.created_at),
            "locked_at": _at(r.locked_at),
            "original_scan_deleted_at": _at(r.original_deleted_at),
            "applications": [
                {
                    "id": a.pk,
                    "legislation_year": a.legislation_year,
                    "status": a.status,
                    "free_text": a.free_text,
                    "created_at": _at(a.created_at),
                    "history": [
                        {"status": c.status, "at": _at(c.created_at), "reason": c.reason}
                        for c in a.status_changes.all()
                    ],
                }
                for a in r.quota_applications.all()
            ],
        }
        for r in registrations
    ]
    billing = [
        {
            "id": c.pk,
            "gender": c.gender,
            "first_name": c.first_name,
            "last_name": c.last_name,
            "street_name": c.street_name,
            "street_number": c.street_number,
            "postal_code": c.postal_code,
            "city": c.city,
            "account_name": c.account_name,
            "account_iban": c.account_iban,
            "account_bic": c.account_bic,
            "charge_card": c.charge_card,
            "vehicle_owner_type": c.vehicle_owner_type,
            "name_of_business": c.name_of_business,
            "is_vat_mandatory": c.is_vat_mandatory,
            "vat_number": c.vat_number,
            "partner_variable": c.partner_variable,
            "campaign": c.campaign,
            "free_text": c.free_text,
            "source": c.source,
            "created_at": _at(c.created_at),
            "locked_at": _at(c.locked_at),
        }
        for c in clients
    ]
    # The consent records (what was agreed, to which text version, when, where), then the
    # opt-in as each billing data and application carries it.
    consents: list[dict[str, Any]] = consent_list(user=user)
    consents += [
        {"kind": "email_promotion", "given": c.email_promotion_opt_in, "at": _at(c.created_at),
         "channel": c.source or "web", "record": f"billing data {c.pk}"}
        for c in clients
    ] + [
        {"kind": "email_promotion", "given": a.email_promotion_opt_in, "at": _at(a.created_at),
         "channel": "portal", "record": f"application {a.pk}"}
        for r in registrations for a in r.quota_applications.all()
    ]  # fmt: skip
    logins = [
        {"kind": "session", "started_at": _at(t.created_at), "expires_at": _at(t.expires_at)}
        for t in OutstandingToken.objects.filter(user=user).order_by("created_at")
    ]
    logins += [
        {"kind": f"code ({c.purpose})", "sent_at": _at(c.created_at), "used_at": _at(c.used_at)}
        for c in LoginCode.objects.filter(email=user.email).order_by("created_at")
    ]
    logins += [
        {"kind": f"link ({link.purpose})", "sent_at": _at(link.created_at), "used_at": _at(link.used_at)}
        for link in LoginLink.objects.filter(email=user.email).order_by("created_at")
    ]
    devices = [
        {
            "registration": d.registration.sequence,
            "device_type": d.device_type,
            "device_name": d.device_name,
            "browser_version": d.browser_version,
            "os_name": d.os_name,
            "os_version": d.os_version,
            "full_user_agent_string": d.full_user_agent_string,
            "created_at": _at(d.created_at),
        }
        for d in DeviceInfo.objects.filter(registration__owner=user).select_related("registration")
    ]
    clicks = [
        {"advertisement": c.advertisement_id, "at": _at(c.created_at)}
        for c in AdvertisementClick.objects.filter(user=user).order_by("created_at")
    ]
    return {
        "account": account,
        "registrations": registration_rows,
        "billing": billing,
        "history": {"logins": logins, "advertisement_clicks": clicks},
        "consents": consents,
        "devices": devices,
        # every column of every table that holds this owner's data (privacy.inventory), as stored
        "records": owner_records(user),
    }


def owner_scans(*, user: User) -> list[tuple[str, str]]:
    """(name in the ZIP, storage path) of the owner's scans: the original while it is kept,
    and the display copy."""
    found = []
    for sequence, original, display in BevRegistration.objects.filter(owner=user).values_list(
        "sequence", "zlb_scan", "display_scan"
    ):
        if original:
            found.append((f"scans/{sequence}-original.jpg", original))
        if display:
            found.append((f"scans/{sequence}-display.jpg", display))
    return found
