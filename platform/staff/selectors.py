"""Reads of the partner area's staff pages."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from staff.models import AuditEntry, StaffInvite, StaffMember


def staff_member_list() -> QuerySet[StaffMember]:
    confirmed = TOTPDevice.objects.filter(user=OuterRef("user"), confirmed=True)
    return (
        StaffMember.objects.select_related("user")
        .annotate(has_second_factor=Exists(confirmed))
        .order_by("-is_active", "name", "pk")
    )


def staff_invite_open_list() -> QuerySet[StaffInvite]:
    return StaffInvite.objects.filter(used_at__isnull=True, expires_at__gt=timezone.now()).order_by(
        "-created_at"
    )


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def audit_entry_list(
    *,
    actor: int | None = None,
    action: str | None = None,
    object_type: str | None = None,
    object_id: str | None = None,
    created_from: date | None = None,
    created_to: date | None = None,
) -> QuerySet[AuditEntry]:
    """Newest first; `created_to` includes the whole day (in the site's time zone)."""
    entries = AuditEntry.objects.all()
    filters: dict[str, Any] = {}
    if actor is not None:
        filters["actor_id"] = actor
    if action:
        filters["action"] = action
    if object_type:
        filters["object_type"] = object_type
    if object_id:
        filters["object_id"] = object_id
    if created_from is not None:
        filters["created_at__gte"] = _day_start(created_from)
    if created_to is not None:
        filters["created_at__lt"] = _day_start(date.fromordinal(created_to.toordinal() + 1))
    return entries.filter(**filters).order_by("-created_at", "-id")
