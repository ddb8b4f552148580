"""The admin's writes on a partner's host in the partner's audit log (docs/partner-api.md: every
write of the partner area, and of the admin for the partner, makes one entry). Every ModelAdmin
registered on the staff site gets this mixin (staff.sites.StaffAdminSite.register)."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.http import HttpRequest

from common.crypto import encrypted_fields
from staff.audit import audit_record
from tenants.middleware import request_partner

# Never copied into the log: hashes and secrets. Encrypted fields (bank data, addresses) are
# masked as well: the audit log must not become a clear-text copy of them.
SECRET_FIELDS = frozenset({"password", "key", "key_hash", "code_hash", "sealed", "token"})
MASK = "***"


def admin_snapshot(obj: models.Model) -> dict[str, Any]:
    hidden = SECRET_FIELDS | set(encrypted_fields(type(obj)))
    data: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        value = getattr(obj, field.attname)
        if field.name in hidden:
            value = MASK if value else ""
        elif isinstance(value, models.fields.files.FieldFile):
            value = value.name or ""
        data[field.name] = value
    return data


def _changed(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    # A masked field is listed only when it was set or cleared: the log cannot tell a new IBAN
    # from the old one, on purpose.
    keys = [key for key in after if before.get(key) != after[key]]
    return {key: before.get(key) for key in keys}, {key: after[key] for key in keys}


class AuditedAdminMixin:
    """save_model, delete_model and delete_queryset record an AuditEntry on a partner's host."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if request_partner(request) is None:
            super().save_model(request, obj, form, change)  # type: ignore[misc]
            return
        old = type(obj)._default_manager.filter(pk=obj.pk).first() if change and obj.pk else None
        before = admin_snapshot(old) if old is not None else None
        super().save_model(request, obj, form, change)  # type: ignore[misc]
        # Read back: a ModelAdmin may write through a service rather than obj.save() (the
        # quota admin moves an application so), leaving `obj` as it was.
        stored = type(obj)._default_manager.filter(pk=obj.pk).first() if obj.pk else None
        after = admin_snapshot(stored if stored is not None else obj)
        if before is not None:
            before, after = _changed(before, after)
            if not after:
                return
        audit_record(
            actor=request.user,  # type: ignore[arg-type]
            action="admin.change" if change else "admin.add",
            obj=obj,
            before=before,
            after=after,
        )

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        self._deleted(request, [obj], lambda: super(AuditedAdminMixin, self).delete_model(request, obj))  # type: ignore[misc]

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        self._deleted(
            request,
            list(queryset),
            lambda: super(AuditedAdminMixin, self).delete_queryset(request, queryset),  # type: ignore[misc]
        )

    def _deleted(self, request: HttpRequest, objs: list[Any], delete: Any) -> None:
        if request_partner(request) is None:
            delete()
            return
        gone = [(obj._meta.label_lower, str(obj.pk), admin_snapshot(obj)) for obj in objs]
        delete()
        for object_type, object_id, before in gone:
            audit_record(
                actor=request.user,  # type: ignore[arg-type]
                action="admin.delete",
                object_type=object_type,
                object_id=object_id,
                before=before,
            )
