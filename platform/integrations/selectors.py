"""Reads of the partner's interfaces (issue 49)."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from integrations.keys import key_label
from integrations.models import ApiKey, ApplicationReference, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from staff.models import StaffMember


def api_key_list() -> QuerySet[ApiKey]:
    return ApiKey.objects.select_related("created_by")


def _local(value: Any) -> str | None:
    return timezone.localtime(value).isoformat() if value is not None else None


def api_key_out(key: ApiKey) -> dict[str, Any]:
    """A key as the partner area shows it: never its secret. `state`: active, revoked, or
    dormant (its admin is no longer an active partner admin: rotate it to take it over)."""
    admin = key.created_by
    if key.revoked_at is not None:
        state = "revoked"
    elif admin is None or not admin.is_active or admin.role != StaffMember.Role.PARTNER_ADMIN:
        state = "dormant"
    else:
        state = "active"
    return {
        "id": key.pk,
        "name": key.name,
        "scope": key.scope,
        "key_hint": key_label(key),
        "state": state,
        "created_by": admin.name if admin is not None else None,
        "created_at": _local(key.created_at),
        "rotated_at": _local(key.rotated_at),
        "revoked_at": _local(key.revoked_at),
        "last_used_at": _local(key.last_used_at),
    }


def webhook_list() -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.select_related("created_by")


def webhook_out(endpoint: WebhookEndpoint) -> dict[str, Any]:
    last = endpoint.deliveries.order_by("-created_at", "-pk").first()
    return {
        "id": endpoint.pk,
        "url": endpoint.url,
        "events": endpoint.events,
        "is_active": endpoint.is_active,
        "created_by": endpoint.created_by.name if endpoint.created_by is not None else None,
        "created_at": _local(endpoint.created_at),
        "last_delivery_status": last.status if last else None,
        "last_delivery_at": _local(last.created_at) if last else None,
    }


def delivery_page(
    *, endpoint: WebhookEndpoint, page: int, page_size: int
) -> tuple[int, list[WebhookDelivery]]:
    deliveries = endpoint.deliveries.select_related("event").prefetch_related(
        Prefetch("attempts", queryset=WebhookAttempt.objects.order_by("at", "pk"))
    )
    start = (page - 1) * page_size
    return deliveries.count(), list(deliveries[start : start + page_size])


def delivery_out(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "uuid": str(delivery.uuid),
        "endpoint_id": delivery.endpoint_id,
        "event_id": str(delivery.event.uuid),
        "event_type": delivery.event.type,
        "occurred_at": _local(delivery.event.occurred_at),
        "status": delivery.status,
        "tries": delivery.tries,
        "next_attempt_at": _local(delivery.next_attempt_at),
        "delivered_at": _local(delivery.delivered_at),
        "created_at": _local(delivery.created_at),
        "payload": delivery.event.payload,
        "attempts": [
            {
                "at": _local(attempt.at),
                "manual": attempt.manual,
                "status_code": attempt.status_code,
                "error": attempt.error,
                "duration_ms": attempt.duration_ms,
            }
            for attempt in delivery.attempts.all()
        ],
    }


# ---- the partner's own references of applications (also quota's, through quota.hooks)


def references_of(application_ids: list[int]) -> dict[int, str]:
    """The partner's own references of these applications (those that have one)."""
    return dict(
        ApplicationReference.objects.filter(application_id__in=application_ids).values_list(
            "application_id", "reference"
        )
    )


def reference_sql(application_id_sql: str) -> str:
    """The reference of the application whose id is the SQL expression `application_id_sql`,
    as a scalar subquery (NULL without one)."""
    table = ApplicationReference._meta.db_table
    return f"(SELECT x.reference FROM {table} x WHERE x.application_id = {application_id_sql})"  # noqa: S608
