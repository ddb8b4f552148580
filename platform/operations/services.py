"""Operations writes: sub-partners and single deals, every write audited (staff.audit)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Model
from django.utils.text import slugify

from common.payout_bounds import german_euros, payout_max_any
from operations import errors
from operations.attribution import single_deal_vehicles_used
from operations.errors import OperationsError
from operations.models import CENT, KEY_PATTERN, SingleDeal, SubPartner
from staff.audit import audit_record

# ---- sub-partners and single deals (the partner area; every write audited) ----

SUB_PARTNER_FIELDS = (
    "name", "contact_name", "contact_email", "contact_phone", "referral_key", "fee_share_percent", "is_active",
)  # fmt: skip
SINGLE_DEAL_FIELDS = (
    "name", "customer", "deal_key", "price_net", "vat_percent", "legislation_years", "vehicle_cap", "is_active",
)  # fmt: skip
MAX_PRICE = Decimal("99999999.99")


def _snapshot(obj: Model, fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in fields}


def _key_generate(name: str, model: type[SubPartner] | type[SingleDeal], field: str) -> str:
    stem = slugify(name)[:30].strip("-") or "key"
    while True:
        key = f"{stem}-{secrets.token_hex(3)}"
        if not model.objects.filter(**{f"{field}__iexact": key}).exists():
            return key


def _key_clean(value: str, *, field: str, model: type[SubPartner] | type[SingleDeal], pk: int | None) -> str:
    key = value.strip().lower()
    if not re.fullmatch(KEY_PATTERN, key):
        raise OperationsError(errors.KEY_INVALID, field=field)
    others = model.objects.filter(**{f"{field}__iexact": key})
    if pk is not None:
        others = others.exclude(pk=pk)
    if others.exists():
        raise OperationsError(errors.KEY_TAKEN, field=field)
    return key


def _percent_clean(value: Any, *, field: str) -> Decimal:
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise OperationsError(errors.PERCENT_INVALID, field=field) from None
    if not number.is_finite() or not (0 <= number <= 100) or number != number.quantize(CENT):
        raise OperationsError(errors.PERCENT_INVALID, field=field)
    return number.quantize(CENT)


def _sub_partner_clean(data: dict[str, Any], *, instance: SubPartner | None) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for name in ("name", "contact_name", "contact_email", "contact_phone"):
        if name in data:
            clean[name] = (data[name] or "").strip()
    if ("name" in clean or instance is None) and not clean.get("name"):
        raise OperationsError(errors.NAME_MISSING, field="name")
    if clean.get("contact_email"):
        try:
            validate_email(clean["contact_email"])
        except ValidationError:
            raise OperationsError(errors.EMAIL_INVALID, field="contact_email") from None
        clean["contact_email"] = clean["contact_email"].lower()
    if data.get("referral_key"):
        clean["referral_key"] = _key_clean(
            data["referral_key"], field="referral_key", model=SubPartner, pk=instance.pk if instance else None
        )
    elif instance is None:
        clean["referral_key"] = _key_generate(clean["name"], SubPartner, "referral_key")
    if data.get("fee_share_percent") is not None:
        clean["fee_share_percent"] = _percent_clean(data["fee_share_percent"], field="fee_share_percent")
    if data.get("is_active") is not None:
        clean["is_active"] = bool(data["is_active"])
    return clean


def sub_partner_create(*, actor: Any, data: dict[str, Any]) -> SubPartner:
    return _create(SUB_PARTNERS, actor=actor, cleaned=_sub_partner_clean(data, instance=None))


def sub_partner_update(*, actor: Any, sub_partner: SubPartner, data: dict[str, Any]) -> SubPartner:
    return _update(SUB_PARTNERS, actor=actor, instance=sub_partner, data=data)


def sub_partner_delete(*, actor: Any, sub_partner: SubPartner) -> bool:
    """Delete it; one that applications refer to is deactivated instead (their attribution is
    kept). True when it was deleted."""
    return _delete(SUB_PARTNERS, actor=actor, instance=sub_partner)


def _deal_clean(data: dict[str, Any], *, instance: SingleDeal | None) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for name in ("name", "customer"):
        if name in data:
            clean[name] = (data[name] or "").strip()
    if ("name" in clean or instance is None) and not clean.get("name"):
        raise OperationsError(errors.NAME_MISSING, field="name")
    if data.get("deal_key"):
        clean["deal_key"] = _key_clean(
            data["deal_key"], field="deal_key", model=SingleDeal, pk=instance.pk if instance else None
        )
    elif instance is None:
        clean["deal_key"] = _key_generate(clean["name"], SingleDeal, "deal_key")
    if "price_net" in data or instance is None:
        try:
            price = Decimal(str(data.get("price_net")))
        except ArithmeticError:
            raise OperationsError(errors.PRICE_INVALID, field="price_net") from None
        if not price.is_finite() or not (0 <= price <= MAX_PRICE) or price != price.quantize(CENT):
            raise OperationsError(errors.PRICE_INVALID, field="price_net")
        clean["price_net"] = price.quantize(CENT)
    if data.get("vat_percent") is not None:
        clean["vat_percent"] = _percent_clean(data["vat_percent"], field="vat_percent")
    if "legislation_years" in data or instance is None:
        years = data.get("legislation_years") or []
        if not years or any(
            not isinstance(y, int) or isinstance(y, bool) or not 2020 <= y <= 2100 for y in years
        ):
            raise OperationsError(errors.YEARS_INVALID, field="legislation_years")
        clean["legislation_years"] = sorted(set(years))
    if "vehicle_cap" in data:
        cap = data["vehicle_cap"]
        if cap is not None and (
            not isinstance(cap, int) or isinstance(cap, bool) or not 1 <= cap <= 10_000_000
        ):
            raise OperationsError(errors.CAP_INVALID, field="vehicle_cap")
        if cap is not None and instance is not None:
            used = single_deal_vehicles_used(instance)
            if cap < used:
                raise OperationsError(errors.CAP_BELOW_USED, field="vehicle_cap", used=used)
        clean["vehicle_cap"] = cap
    priced: Decimal | None = clean.get("price_net", instance.price_net if instance is not None else None)
    if priced is not None and ("price_net" in clean or "legislation_years" in clean):
        # The platform's bounds (common.payout_bounds): a deal covers vehicles of any class,
        # so the highest class ceiling of its years; the settlement holds each vehicle to its
        # own class.
        years = clean.get("legislation_years", instance.legislation_years if instance is not None else [])
        ceiling = payout_max_any(years)
        if not Decimal(0) < priced <= ceiling:
            raise OperationsError(
                errors.PRICE_OUT_OF_BOUNDS, field="price_net", ceiling=german_euros(ceiling)
            )
    if data.get("is_active") is not None:
        clean["is_active"] = bool(data["is_active"])
    return clean


def single_deal_create(*, actor: Any, data: dict[str, Any]) -> SingleDeal:
    return _create(SINGLE_DEALS, actor=actor, cleaned=_deal_clean(data, instance=None))


def single_deal_update(*, actor: Any, single_deal: SingleDeal, data: dict[str, Any]) -> SingleDeal:
    return _update(SINGLE_DEALS, actor=actor, instance=single_deal, data=data)


def single_deal_delete(*, actor: Any, single_deal: SingleDeal) -> bool:
    """Delete it; one that applications carry is deactivated instead. True when deleted."""
    return _delete(SINGLE_DEALS, actor=actor, instance=single_deal)


# ---- one create, update and delete for both kinds ----


@dataclass(frozen=True)
class _Kind:
    model: type[SubPartner] | type[SingleDeal]
    fields: tuple[str, ...]
    key_field: str  # unique per schema: a race on it is KEY_TAKEN
    action: str  # the audit entry's prefix
    clean: Callable[..., dict[str, Any]]


SUB_PARTNERS = _Kind(SubPartner, SUB_PARTNER_FIELDS, "referral_key", "sub_partner", _sub_partner_clean)
SINGLE_DEALS = _Kind(SingleDeal, SINGLE_DEAL_FIELDS, "deal_key", "single_deal", _deal_clean)


def _save(kind: _Kind, obj: Any, **options: Any) -> None:
    try:
        with transaction.atomic():
            obj.save(**options)
    except IntegrityError:  # the same key written at the same moment
        raise OperationsError(errors.KEY_TAKEN, field=kind.key_field) from None


def _create(kind: _Kind, *, actor: Any, cleaned: dict[str, Any]) -> Any:
    with transaction.atomic():
        obj = kind.model(**cleaned)
        _save(kind, obj)
        audit_record(actor=actor, action=f"{kind.action}.create", obj=obj, after=_snapshot(obj, kind.fields))
    return obj


def _update(kind: _Kind, *, actor: Any, instance: Any, data: dict[str, Any]) -> Any:
    with transaction.atomic():
        obj = kind.model.objects.select_for_update().get(pk=instance.pk)
        before = _snapshot(obj, kind.fields)
        changes = {k: v for k, v in kind.clean(data, instance=obj).items() if before[k] != v}
        if not changes:
            return obj
        for name, value in changes.items():
            setattr(obj, name, value)
        _save(kind, obj, update_fields=list(changes))
        audit_record(
            actor=actor, action=f"{kind.action}.update", obj=obj,
            before={k: before[k] for k in changes}, after=changes,
        )  # fmt: skip
    return obj


def _delete(kind: _Kind, *, actor: Any, instance: Any) -> bool:
    with transaction.atomic():
        obj = kind.model.objects.select_for_update().get(pk=instance.pk)
        before = _snapshot(obj, kind.fields)
        if obj.quota_applications.exists():
            if obj.is_active:
                obj.is_active = False
                obj.save(update_fields=["is_active"])
            audit_record(
                actor=actor, action=f"{kind.action}.deactivate", obj=obj,
                before={"is_active": before["is_active"]}, after={"is_active": False},
            )  # fmt: skip
            return False
        audit_record(actor=actor, action=f"{kind.action}.delete", obj=obj, before=before, after=None)
        obj.delete()
    return True
