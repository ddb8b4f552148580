"""Export (GDPR Art. 15/20): the owner asks in the portal; a ZIP of everything (and only) theirs
is mailed as a one-time link valid 24 hours; one request per interval."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from privacy.models import DataExport
from tests.privacy.conftest import HOST, bearer, owner_with_everything

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_autohaus")]
URL = "/api/end_user_portal/data_export/"


def _ask(client: Client, headers: dict[str, str], capture: Any) -> Any:
    with capture(execute=True):
        return client.post(URL, HTTP_HOST=HOST, headers=headers)


def _link() -> str:
    match = re.search(r"(https?://\S+/api/end_user_portal/data_export/\S+/)", str(mail.outbox[-1].body))
    assert match, mail.outbox[-1].body
    return match.group(1)


def test_the_owner_gets_a_zip_of_all_their_data_and_nothing_of_others(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    # given two owners with every kind of data
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000")
    owner_with_everything("bert@example.de", "DE02120300000000202051")

    # when Anna asks for her data and opens the mailed link
    response = _ask(client, bearer(anna), django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    assert "E-Mail" in response.json()["detail"]
    assert mail.outbox[-1].to == ["anna@example.de"]
    link = _link()
    assert link.startswith("http://autohaus.localhost/")  # the partner's own domain
    download = client.get(link.split("localhost", 1)[1], HTTP_HOST=HOST)

    # then the ZIP holds account, registrations, billing (IBAN in clear), history, consents,
    # devices and her scans, and nothing of Bert's
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))  # type: ignore[attr-defined]
    names = set(archive.namelist())
    assert {
        "account.json",
        "registrations.json",
        "billing.json",
        "history.json",
        "consents.json",
        "devices.json",
    } <= names
    assert any(n.startswith("scans/") and n.endswith("-original.jpg") for n in names)
    assert any(n.startswith("scans/") and n.endswith("-display.jpg") for n in names)
    everything = b"".join(archive.read(n) for n in names).decode("utf-8", "replace")
    assert json.loads(archive.read("account.json"))["email"] == "anna@example.de"
    assert json.loads(archive.read("billing.json"))[0]["account_iban"] == "DE89370400440532013000"
    assert json.loads(archive.read("billing.json"))[0]["street_name"] == "Geheimweg"
    assert json.loads(archive.read("registrations.json"))[0]["applications"][0]["history"]
    assert json.loads(archive.read("devices.json"))[0]["full_user_agent_string"] == "UA anna@example.de"
    assert json.loads(archive.read("consents.json"))[0]["kind"] == "email_promotion"
    assert json.loads(archive.read("history.json"))["logins"]
    assert "bert@example.de" not in everything and "DE02120300000000202051" not in everything

    # and the link works once
    again = client.get(link.split("localhost", 1)[1], HTTP_HOST=HOST)
    assert again.status_code == 404 and again.json()["error_code"] == "PRIV002"


def test_the_link_expires_after_24_hours_and_works_only_at_its_partner(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000")
    assert _ask(client, bearer(anna), django_capture_on_commit_callbacks).status_code == 202
    path = _link().split("localhost", 1)[1]

    assert client.get(path, HTTP_HOST="stadtwerk.localhost").status_code == 404
    DataExport.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert client.get(path, HTTP_HOST=HOST).status_code == 404


def test_exports_are_rate_limited(client: Client, django_capture_on_commit_callbacks: Any) -> None:
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000")
    assert _ask(client, bearer(anna), django_capture_on_commit_callbacks).status_code == 202

    second = _ask(client, bearer(anna), django_capture_on_commit_callbacks)

    assert second.status_code == 429
    assert second.json()["error_code"] == "PRIV001"
    assert 3500 < int(second["Retry-After"]) <= 3601
    assert DataExport.objects.count() == 1


def test_no_token_no_export(client: Client) -> None:
    assert client.post(URL, HTTP_HOST=HOST).status_code == 401


def test_the_queue_and_the_log_carry_no_link(
    client: Client, django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    anna = owner_with_everything("anna@example.de", "DE89370400440532013000")
    with caplog.at_level("DEBUG"):
        _ask(client, bearer(anna), django_capture_on_commit_callbacks)
    key = _link().rstrip("/").rsplit("/", 1)[1]

    assert key not in caplog.text and "anna@example.de" not in caplog.text
    row = DataExport.objects.get()
    assert row.sealed == "" and key not in row.key_hash
