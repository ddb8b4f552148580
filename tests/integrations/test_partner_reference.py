"""The applications list for a partner's system (issue 49, docs/partner-api.md): the partner's
own reference, set with a write key, and `changed_since` for a sync; both filter the list and
count exactly. Through HTTP with API keys; the clock frozen per step."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django_tenants.utils import schema_context
from freezegun import freeze_time

from integrations import events
from integrations.selectors import references_of
from quota.models import QuotaApplication
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
API = "/api/partner/"
LIST = API + "quota_applications/"


@pytest.fixture
def keys() -> dict[str, str]:
    member, password = staff_member(Partner.objects.get(subdomain="autohaus"), "partner_admin")
    admin = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    made = {}
    for scope in ("read", "write"):
        response = admin.post(
            API + "integrations/api_keys/", {"name": scope, "scope": scope}, content_type="application/json",
            HTTP_HOST=HOST,
        )  # fmt: skip
        made[scope] = response.json()["key"]
    return made


def call(key: str, method: str, path: str, body: dict[str, Any] | None = None, **params: Any) -> Any:
    client = Client(enforce_csrf_checks=True)
    if method == "get":
        return client.get(path, params, HTTP_HOST=HOST, HTTP_X_API_KEY=key)
    return getattr(client, method)(
        path, json.dumps(body), content_type="application/json", HTTP_HOST=HOST, HTTP_X_API_KEY=key
    )


def test_a_write_key_sets_the_partners_reference_and_the_list_finds_it(keys: dict[str, str]) -> None:
    with schema_context("p_autohaus"):
        first, second = ApplicationFactory.create(), ApplicationFactory.create()

    refused = call(keys["read"], "put", f"{API}quota_applications/{first.pk}/reference/", {"reference": "x"})
    made = call(
        keys["write"], "put", f"{API}quota_applications/{first.pk}/reference/", {"reference": " FL-4711 "}
    )
    call(keys["write"], "put", f"{API}quota_applications/{second.pk}/reference/", {"reference": "FL-4712"})
    unknown = call(keys["write"], "put", f"{API}quota_applications/999999/reference/", {"reference": "x"})
    found = call(keys["read"], "get", LIST, reference="FL-4711")

    assert refused.status_code == 403
    assert made.status_code == 200 and made.json() == {"id": first.pk, "reference": "FL-4711"}
    assert unknown.status_code == 404
    assert found.status_code == 200, found.content
    assert found.json()["count"] == 1 and found.json()["count_exact"] is True
    assert [(row["id"], row["reference"]) for row in found.json()["results"]] == [(first.pk, "FL-4711")]
    everything = {row["id"]: row["reference"] for row in call(keys["read"], "get", LIST).json()["results"]}
    assert everything[second.pk] == "FL-4712"
    # the detail is the row and more (quota.schemas.ApplicationDetailOut): the same reference
    detail = call(keys["read"], "get", f"{LIST}{first.pk}/")
    assert detail.status_code == 200, detail.content
    assert detail.json()["reference"] == "FL-4711"
    with schema_context("p_autohaus"):
        assert AuditEntry.objects.filter(
            action="quota_application.reference", object_id=str(first.pk)
        ).exists()
        # webhooks carry it too
        found_events, _ = events.status_changes(0, references_of)
        payloads = [data for _, _, _, data in found_events if data["application"]["id"] == first.pk]
        assert payloads and all(data["application"]["reference"] == "FL-4711" for data in payloads)

    removed = call(keys["write"], "put", f"{API}quota_applications/{first.pk}/reference/", {"reference": ""})
    assert (
        removed.json()["reference"] == ""
        and call(keys["read"], "get", LIST, reference="FL-4711").json()["count"] == 0
    )


def test_changed_since_lists_what_changed_at_or_after_the_moment(keys: dict[str, str]) -> None:
    with schema_context("p_autohaus"), freeze_time("2026-03-02 08:00:00"):
        old, moved, renamed = (ApplicationFactory.create() for _ in range(3))
    with freeze_time("2026-03-03 09:00:00"):
        move = {"ids": [moved.pk], "status": "qa_picked_up"}
        assert call(keys["write"], "post", LIST + "moves/", move).json()["results"][0]["ok"]
    with freeze_time("2026-03-04 10:00:00"):
        call(keys["write"], "put", f"{API}quota_applications/{renamed.pk}/reference/", {"reference": "R-1"})

    def ids(**params: Any) -> set[int]:
        response = call(keys["read"], "get", LIST, page_size=100, **params)
        assert response.status_code == 200, response.content
        assert response.json()["count"] == len(response.json()["results"])
        return {row["id"] for row in response.json()["results"]}

    since_move = ids(changed_since="2026-03-03T09:00:00+00:00")
    since_reference = ids(changed_since="2026-03-04T11:00:00")  # Berlin time: 10:00 UTC
    later = ids(changed_since="2026-03-04T10:00:01Z")
    bad = call(keys["read"], "get", LIST, changed_since="gestern")

    assert {moved.pk, renamed.pk} <= since_move and old.pk not in since_move
    assert renamed.pk in since_reference and moved.pk not in since_reference
    assert not {old.pk, moved.pk, renamed.pk} & later
    assert bad.status_code == 400 and "changed_since" in bad.json()
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=old.pk).status == "qa_created"
