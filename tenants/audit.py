"""The onboarding console's audit log (tenants.models.ConsoleAuditEntry, public schema): every
create, change, draft, publish, rollback, archive, purge, domain, brand asset, invite, preview
link, backup and restore, with who, before/after and when."""

from __future__ import annotations

import datetime
import getpass
from typing import Any

from tenants.models import ConsoleAuditEntry, Partner
from tenants.selectors import config_diff

# Fields of a partner row the log shows (config is logged as a per-field diff).
PARTNER_FIELDS = ("subdomain", "name", "kind", "frontend_active", "archived_at", "published_version")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(item) for item in value]
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    return value


def partner_snapshot(partner: Partner) -> dict[str, Any]:
    return {field: _jsonable(getattr(partner, field)) for field in PARTNER_FIELDS}


def config_change_lists(
    before: dict[str, Any], after: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The configuration's changed leaves, as {path: value} before and after."""
    changes = config_diff(before, after)
    return (
        {change.path: change.before for change in changes},
        {change.path: change.after for change in changes},
    )


def command_actor() -> str:
    """Who ran a management command: the operating-system account (no Django user there)."""
    try:
        return f"manage.py ({getpass.getuser()})"
    except (KeyError, OSError):  # no passwd entry in some containers
        return "manage.py"


def console_audit_record(
    *,
    actor: Any,
    action: str,
    partner: Partner | None,
    summary: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    partner_label: str = "",
) -> ConsoleAuditEntry:
    """One entry. `actor`: the platform admin (request.user) or a label (a command)."""
    user = actor if actor is not None and getattr(actor, "pk", None) is not None else None
    if user is not None:
        label = user.get_username() + (f" <{user.email}>" if getattr(user, "email", "") else "")
    else:
        label = str(actor) if isinstance(actor, str) and actor else "System"
    return ConsoleAuditEntry.objects.create(
        actor=user,
        actor_label=label[:300],
        action=action,
        partner=partner if partner is not None and partner.pk is not None else None,
        partner_label=(partner.subdomain if partner is not None else partner_label)[:63],
        summary=summary[:300],
        before=_jsonable(before) if before is not None else None,
        after=_jsonable(after) if after is not None else None,
    )
