"""The audit log: every write of the partner area records who did what, with the object's
state before and after. Called inside the write's transaction, so an entry exists exactly when
the write does."""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

from django.db import models

from accounts.models import User
from staff.models import AuditEntry, StaffMember


def _jsonable(value: Any) -> Any:
    """Dates, decimals and UUIDs as strings; mappings and sequences element by element."""
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(item) for item in value]
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, models.Model):
        return value.pk
    return value


def _actor(actor: StaffMember | User | None) -> tuple[User | None, str]:
    if actor is None:
        return None, "System"
    if isinstance(actor, StaffMember):
        user = actor.user
        return user, f"{actor.name} <{user.email}>" if user.email else actor.name
    return actor, f"{actor.get_full_name() or actor.get_username()} <{actor.email}>" if actor.email else (
        actor.get_username()
    )


def audit_record(
    *,
    actor: StaffMember | User | None,
    action: str,
    obj: models.Model | None = None,
    object_type: str = "",
    object_id: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEntry:
    """One entry. `actor` is a StaffMember (partner area), a User (the admin) or None (system);
    `obj` fills object_type (app_label.model) and object_id unless they are given."""
    user, label = _actor(actor)
    if obj is not None:
        object_type = object_type or obj._meta.label_lower
        object_id = object_id or str(obj.pk)
    return AuditEntry.objects.create(
        actor=user,
        actor_label=label[:300],
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        before=_jsonable(before) if before is not None else None,
        after=_jsonable(after) if after is not None else None,
    )
