"""Advertisement clicks count once per user and advertisement per minute (issue 13, item 8)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client as HttpClient
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.models import User
from accounts.tokens import tokens_issue
from quota.models import AdvertisementClick
from tenants.models import Partner
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"


@pytest.fixture(autouse=True)
def _in_stadtwerk() -> Iterator[None]:
    with schema_context("p_stadtwerk"):
        yield


def click(client: HttpClient, user: User) -> Any:
    access = tokens_issue(user=user, partner=Partner.objects.get(subdomain="stadtwerk"))["access"]
    return client.post(
        "/api/end_user_portal/advertisement_count/",
        {"partner_advertisement": 1},
        content_type="application/json",
        HTTP_HOST=HOST,
        HTTP_AUTHORIZATION=f"Bearer {access}",
    )


def test_repeated_clicks_within_a_minute_count_once_per_user(client: HttpClient) -> None:
    paula, peter = UserFactory.create(email="paula@example.de"), UserFactory.create(email="peter@example.de")
    start = timezone.now()

    with freeze_time(start) as clock:
        answers = [click(client, paula) for _ in range(5)]
        clock.tick(timedelta(seconds=59))
        answers.append(click(client, paula))
        other = click(client, peter)
        clock.tick(timedelta(seconds=2))
        later = click(client, paula)

    assert {answer.status_code for answer in [*answers, other, later]} == {201}
    assert len({answer.json()["id"] for answer in answers}) == 1
    assert AdvertisementClick.objects.filter(advertisement_id=1, user=paula).count() == 2
    assert AdvertisementClick.objects.filter(advertisement_id=1, user=peter).count() == 1
    assert later.json()["id"] != answers[0].json()["id"]
