"""Input and output of the partner's interface calls (docs/partner-api.md, "API keys")."""

from __future__ import annotations

from typing import Literal

from ninja import Field, Schema

from common.text import CleanText


class ApiKeyIn(Schema):
    name: CleanText = Field(max_length=200)
    scope: Literal["read", "write"]


class ApiKeyOut(Schema):
    id: int
    name: str
    scope: Literal["read", "write"]
    key_hint: str = Field(description="The key's public part, e.g. thg_ab12cd34ef_…")
    state: Literal["active", "revoked", "dormant"] = Field(
        description="dormant: the admin it acts for is no longer an active partner admin (rotate it)"
    )
    created_by: str | None
    created_at: str
    rotated_at: str | None
    revoked_at: str | None
    last_used_at: str | None


class ApiKeyMadeOut(ApiKeyOut):
    key: str = Field(description="The whole key: shown this once, stored only as a keyed hash")


class WebhookIn(Schema):
    url: CleanText = Field(max_length=500)
    events: list[str] = Field(max_length=10)


class WebhookOut(Schema):
    id: int
    url: str
    events: list[str]
    is_active: bool
    created_by: str | None
    created_at: str
    last_delivery_status: Literal["pending", "delivered", "failed"] | None = Field(
        description="The last delivery's status; null: none yet"
    )
    last_delivery_at: str | None


class WebhookMadeOut(WebhookOut):
    secret: str = Field(description="The signing secret (whsec_…): shown this once")


class AttemptOut(Schema):
    at: str
    manual: bool
    status_code: int | None
    error: str
    duration_ms: int


class DeliveryOut(Schema):
    id: int
    uuid: str
    endpoint_id: int
    event_id: str
    event_type: str
    occurred_at: str
    status: Literal["pending", "delivered", "failed"]
    tries: int
    next_attempt_at: str | None
    delivered_at: str | None
    created_at: str
    payload: dict[str, object]
    attempts: list[AttemptOut]


class DeliveryPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[DeliveryOut]
