"""Writes of the partner's interfaces (issue 49): API keys and webhooks. Each write and its
audit entry in one transaction; a key or a webhook secret is returned once and never logged.
Webhook deliveries: integrations.webhooks (the request), integrations.events (the events)."""

from __future__ import annotations

import datetime
import secrets
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from integrations import events, webhooks
from integrations.errors import ENDPOINT_LIMIT, EVENTS_INVALID, KEY_LIMIT, KEY_NAME, IntegrationError
from integrations.keys import key_label, key_make
from integrations.models import (
    ApiKey,
    ApplicationReference,
    OutboundEvent,
    WebhookAttempt,
    WebhookCursor,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from integrations.selectors import references_of
from integrations.webhooks import url_check
from quota.models import QuotaApplication, StatusChange
from staff.audit import audit_record
from staff.models import StaffMember
from tenants.models import Partner


def application_reference_set(*, actor: StaffMember, application_id: int, reference: str) -> str | None:
    """The partner's own reference of an application ('' removes it); the application counts
    as changed (the list's changed_since finds it). None: no such application."""
    reference = " ".join(reference.split())[:100]
    with transaction.atomic():
        application = QuotaApplication.objects.select_for_update().filter(pk=application_id).first()
        if application is None:
            return None
        found = ApplicationReference.objects.filter(application=application).first()
        before = found.reference if found else ""
        if before == reference:
            return reference
        if reference:
            ApplicationReference.objects.update_or_create(
                application=application, defaults={"reference": reference}
            )
        elif found is not None:
            found.delete()
        application.save(update_fields=["updated_at"])
        audit_record(
            actor=actor, action="quota_application.reference", obj=application,
            before={"reference": before}, after={"reference": reference},
        )  # fmt: skip
    return reference


MAX_KEYS = 20


def _key_state(key: ApiKey) -> dict[str, object]:
    return {"name": key.name, "scope": key.scope, "key": key_label(key), "revoked_at": key.revoked_at}


def _name_clean(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > 100:
        raise IntegrationError(KEY_NAME, field="name")
    return cleaned


def api_key_create(*, actor: StaffMember, name: str, scope: str) -> tuple[ApiKey, str]:
    """A new key for the partner: (the row, the key to show once)."""
    name = _name_clean(name)
    with transaction.atomic():
        if ApiKey.objects.select_for_update().filter(revoked_at__isnull=True).count() >= MAX_KEYS:
            raise IntegrationError(KEY_LIMIT, limit=MAX_KEYS)
        secret, prefix, digest = key_make()
        key = ApiKey.objects.create(
            name=name, scope=ApiKey.Scope(scope), prefix=prefix, secret_hash=digest, created_by=actor
        )
        audit_record(actor=actor, action="api_key.create", obj=key, after=_key_state(key))
    return key, secret


def api_key_rotate(*, actor: StaffMember, key_id: int) -> tuple[ApiKey, str] | None:
    """A new secret for an active key: the old one stops at once; the key acts for `actor`
    from now on. None: no active key of that id."""
    with transaction.atomic():
        key = ApiKey.objects.select_for_update().filter(pk=key_id, revoked_at__isnull=True).first()
        if key is None:
            return None
        before = _key_state(key)
        secret, prefix, digest = key_make()
        key.prefix, key.secret_hash, key.created_by = prefix, digest, actor
        key.rotated_at = timezone.now()
        key.last_used_at = None
        key.save(update_fields=["prefix", "secret_hash", "created_by", "rotated_at", "last_used_at"])
        audit_record(actor=actor, action="api_key.rotate", obj=key, before=before, after=_key_state(key))
    return key, secret


def api_key_revoke(*, actor: StaffMember, key_id: int) -> ApiKey | None:
    """The key stops at once and for good (it stays listed as revoked). Revoking a revoked
    key changes nothing. None: no key of that id."""
    with transaction.atomic():
        key = ApiKey.objects.select_for_update().filter(pk=key_id).first()
        if key is None or key.revoked_at is not None:
            return key
        before = _key_state(key)
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        audit_record(actor=actor, action="api_key.revoke", obj=key, before=before, after=_key_state(key))
    return key


# ---------------------------------------------------------------- webhooks

MAX_ENDPOINTS = 10
# A delivery is tried at once, then these times after the event was taken up (a day in all);
# after the last it is failed (a resend by hand stays possible).
RETRY_AFTER = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=6),
    timedelta(hours=12),
    timedelta(hours=24),
)
# While a request is under way its delivery is not due (a second worker leaves it alone).
LEASE = timedelta(minutes=2)
SUBSCRIBABLE = [event for event in WebhookEvent.values if event != WebhookEvent.PING]
CURSOR_SOURCES = ("status_change", "bulk_upload", "payout_paid", "payout_failed")


def _partner_subdomain() -> str | None:
    schema = str(connection.schema_name)  # type: ignore[attr-defined]
    return Partner.objects.filter(schema_name=schema).values_list("subdomain", flat=True).first()


def _endpoint_state(endpoint: WebhookEndpoint) -> dict[str, object]:
    return {"url": endpoint.url, "events": endpoint.events, "is_active": endpoint.is_active}


def _cursors_start(now: datetime.datetime, *, reset: bool = False) -> None:
    """The sources are read from now on: no history floods a first endpoint (nor one made
    after every other was removed: the cursors stood still meanwhile)."""
    last_change = StatusChange.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    values = {"last_id": last_change, "since": now}
    for source in CURSOR_SOURCES:
        if reset:
            WebhookCursor.objects.update_or_create(source=source, defaults=values)
        else:
            WebhookCursor.objects.get_or_create(source=source, defaults=values)


def webhook_create(*, actor: StaffMember, url: str, events: list[str]) -> tuple[WebhookEndpoint, str]:
    """A new endpoint: (the row, its signing secret to show once)."""
    url = url.strip()
    url_check(url)
    chosen = sorted(set(events))
    if not chosen or not set(chosen) <= set(SUBSCRIBABLE):
        raise IntegrationError(EVENTS_INVALID, field="events")
    secret = "whsec_" + secrets.token_urlsafe(32)
    with transaction.atomic():
        existing = list(WebhookEndpoint.objects.select_for_update().values_list("is_active", flat=True))
        if len(existing) >= MAX_ENDPOINTS:
            raise IntegrationError(ENDPOINT_LIMIT, limit=MAX_ENDPOINTS)
        _cursors_start(timezone.now(), reset=not any(existing))
        endpoint = WebhookEndpoint.objects.create(url=url, events=chosen, secret=secret, created_by=actor)
        audit_record(actor=actor, action="webhook.create", obj=endpoint, after=_endpoint_state(endpoint))
    return endpoint, secret


def webhook_delete(*, actor: StaffMember, endpoint_id: int) -> bool:
    """The endpoint, its deliveries and their log removed; False: no such endpoint."""
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=endpoint_id).first()
        if endpoint is None:
            return False
        audit_record(actor=actor, action="webhook.delete", obj=endpoint, before=_endpoint_state(endpoint))
        endpoint.delete()
    return True


def events_collect(*, now: datetime.datetime) -> list[OutboundEvent]:
    """New events of every source since the cursors, each with a delivery for every active
    endpoint that asks for its type and existed when it happened."""
    endpoints = list(WebhookEndpoint.objects.filter(is_active=True))
    if not endpoints:
        return []
    partner = _partner_subdomain()
    made: list[OutboundEvent] = []
    with transaction.atomic():
        cursors = {
            cursor.source: cursor
            for cursor in WebhookCursor.objects.select_for_update().filter(source__in=CURSOR_SOURCES)
        }
        if len(cursors) < len(CURSOR_SOURCES):
            _cursors_start(now)
            cursors = {c.source: c for c in WebhookCursor.objects.select_for_update()}
        changes, rows = events.status_changes(cursors["status_change"].last_id, references_of)
        found = [
            *changes,
            *events.uploads_finished(cursors["bulk_upload"].since - events.SETTLE),
            *events.payouts_paid(cursors["payout_paid"].since - events.SETTLE, references_of),
            *events.payouts_failed(cursors["payout_failed"].since - events.SETTLE, references_of),
        ]
        for event_type, key, occurred, data in found:
            if OutboundEvent.objects.filter(source_key=key).exists():
                continue
            event = OutboundEvent.objects.create(
                type=event_type, source_key=key, occurred_at=occurred, payload={}
            )
            event.payload = {
                "id": str(event.uuid),
                "type": event_type,
                "partner": partner,
                "occurred_at": timezone.localtime(occurred).isoformat(),
                "data": data,
            }
            event.save(update_fields=["payload"])
            for endpoint in endpoints:
                if event_type in endpoint.events and endpoint.created_at <= occurred:
                    WebhookDelivery.objects.create(
                        event=event, endpoint=endpoint, created_at=now, next_attempt_at=now
                    )
            made.append(event)
        settled = [pk for pk, at in rows if at <= now - events.SETTLE]
        if settled:
            cursors["status_change"].last_id = max(cursors["status_change"].last_id, settled[-1])
        for source in CURSOR_SOURCES:
            cursors[source].since = max(cursors[source].since, now)
            cursors[source].save(update_fields=["last_id", "since"])
    return made


def deliveries_due(*, now: datetime.datetime) -> list[int]:
    return list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now, endpoint__is_active=True
        )
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:500]
    )


def delivery_attempt(*, delivery_id: int, manual: bool = False) -> WebhookDelivery | None:
    """One request of a delivery, logged. By the schedule (manual=False) only when it is due;
    by hand (resend, test) at once. None: no such delivery, or not due."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True)
            .select_related("event", "endpoint")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None:
            return None
        due = delivery.status == WebhookDelivery.Status.PENDING and (
            delivery.next_attempt_at is not None and delivery.next_attempt_at <= now
        )
        if not manual and not due:
            return None
        was_pending = delivery.status == WebhookDelivery.Status.PENDING
        if was_pending:
            delivery.next_attempt_at = now + LEASE
            delivery.save(update_fields=["next_attempt_at"])
    outcome = webhooks.send(
        url=delivery.endpoint.url,
        secret=delivery.endpoint.secret,
        event_type=delivery.event.type,
        delivery_id=str(delivery.uuid),
        payload=delivery.event.payload,
    )
    finished = timezone.now()
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_for_update().select_related("event").get(pk=delivery.pk)
        WebhookAttempt.objects.create(
            delivery=delivery,
            at=now,
            manual=manual,
            status_code=outcome.status_code,
            error=outcome.error,
            duration_ms=outcome.duration_ms,
        )
        fields = ["status", "tries", "next_attempt_at", "delivered_at"]
        scheduled = not manual and was_pending
        if scheduled:
            delivery.tries += 1
        if outcome.ok:
            delivery.status = WebhookDelivery.Status.DELIVERED
            delivery.delivered_at = finished
            delivery.next_attempt_at = None
        elif delivery.event.type == WebhookEvent.PING or was_pending and delivery.tries > len(RETRY_AFTER):
            delivery.status = WebhookDelivery.Status.FAILED
            delivery.next_attempt_at = None
        elif was_pending:
            # the next of the schedule (after a failed resend by hand: where it was)
            delivery.next_attempt_at = (
                delivery.created_at + RETRY_AFTER[delivery.tries - 1] if delivery.tries else now
            )
        delivery.save(update_fields=fields)
    return delivery


def webhook_test_send(*, actor: StaffMember, endpoint_id: int) -> WebhookDelivery | None:
    """A `ping` to one endpoint, sent at once (not retried)."""
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    if endpoint is None:
        return None
    now = timezone.now()
    partner = _partner_subdomain()
    with transaction.atomic():
        event = OutboundEvent.objects.create(
            type=WebhookEvent.PING, source_key=f"ping:{uuid.uuid4()}", occurred_at=now, payload={}
        )
        event.payload = {
            "id": str(event.uuid),
            "type": WebhookEvent.PING,
            "partner": partner,
            "occurred_at": timezone.localtime(now).isoformat(),
            "data": {"message": "Test der Schnittstelle", "requested_by": actor.name},
        }
        event.save(update_fields=["payload"])
        delivery = WebhookDelivery.objects.create(event=event, endpoint=endpoint, created_at=now)
    return delivery_attempt(delivery_id=delivery.pk, manual=True)


def webhooks_sweep(*, now: datetime.datetime, attempt: Callable[[int], object]) -> None:
    """The minute's work of one partner: new events taken up, due deliveries handed to
    `attempt` (a task per delivery in the worker)."""
    if not WebhookEndpoint.objects.filter(is_active=True).exists():
        return
    events_collect(now=now)
    for delivery_id in deliveries_due(now=now):
        attempt(delivery_id)


def delivery_resend(*, actor: StaffMember, delivery_id: int) -> WebhookDelivery | None:
    """A delivery's event once more, at once (whatever its state); the attempt is logged as
    by hand and the audit log names who asked."""
    delivery = WebhookDelivery.objects.filter(pk=delivery_id).first()
    if delivery is None:
        return None
    audit_record(
        actor=actor, action="webhook.resend", obj=delivery, after={"event": str(delivery.event.uuid)}
    )
    return delivery_attempt(delivery_id=delivery.pk, manual=True)
