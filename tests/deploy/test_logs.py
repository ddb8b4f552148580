"""Structured logs: one JSON object per line, the partner on each, no personal data."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from common.logs import JsonFormatter, PartnerFilter, redact
from tests.fixtures.zlb.generate import zlb_document

HOST = "autohaus.localhost"
YEAR = timezone.localdate().year

# The personal values of the flow below; none may appear in a log line.
EMAIL = "lena.vogelsang@example.org"
FIRST_NAME = "Lena"
LAST_NAME = "Vogelsang"
IBAN = "DE89 3704 0044 0532 0130 00"
STREET = "Lindenallee"
PERSONAL = [EMAIL, FIRST_NAME, LAST_NAME, IBAN, IBAN.replace(" ", ""), STREET, "lena.vogelsang"]


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """Everything logged at INFO and above, formatted as in production."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(PartnerFilter())
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in ("", "thg.request", "huey", "django")}
    root.addHandler(handler)
    for name in levels:
        logging.getLogger(name).setLevel(logging.INFO)
    # huey's own handler does not propagate; ours must see its lines too.
    logging.getLogger("huey").addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        logging.getLogger("huey").removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


@pytest.mark.django_db
def test_a_full_registration_flow_logs_no_personal_data(
    client: Client,
    log_output: io.StringIO,
    settings: Any,
    tmp_path: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.MEDIA_ROOT = tmp_path

    def post(path: str, payload: dict[str, Any], **headers: str) -> Any:
        return client.post(path, payload, content_type="application/json", HTTP_HOST=HOST, headers=headers)

    # login by code (the mail task runs in-process), one wrong code first
    with django_capture_on_commit_callbacks(execute=True):
        assert post("/api/auth/registration/otp/", {"email": EMAIL, "partner": "autohaus"}).status_code == 200
    code = re.search(r"\b(\d{6})\b", str(mail.outbox[-1].body)).group(1)  # type: ignore[union-attr]
    assert (
        post("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": "000000"}).status_code == 400
    )
    tokens = post("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": code}).json()
    auth = {"Authorization": f"Bearer {tokens['access']}"}
    # upload, device data, lock
    scan = io.BytesIO(zlb_document(21)[0])
    scan.name = "scan.jpg"
    form = {"partner": "autohaus", "source": "", "registration_years": str(YEAR), "zlb_scan": scan}
    uploaded = client.post("/api/bev_registrations/", form, HTTP_HOST=HOST, headers=auth)
    assert uploaded.status_code == 201, uploaded.json()
    registration_id = uploaded.json()[0]["id"]
    device = {
        "registration": registration_id,
        "device_type": "mobile",
        "full_user_agent_string": "Mozilla/5.0",
    }
    assert post("/api/fe_user_agent_data/", device, **auth).status_code == 201
    lock = client.post(f"/api/bev_registrations/{registration_id}/lock/", HTTP_HOST=HOST, headers=auth)
    assert lock.status_code == 200
    # billing: a wrong IBAN first, then the right one, and lock
    billing = {
        "gender": "woman", "first_name": FIRST_NAME, "last_name": LAST_NAME,
        "account_iban": "DE00 1234 5678 9012 3456 78", "account_name": f"{FIRST_NAME} {LAST_NAME}",
        "charge_card": "", "account_bic": "", "partner_variable": "", "street_name": STREET,
        "street_number": "7", "postal_code": "10115", "city": "Berlin", "campaign": "", "free_text": "",
        "full_url_variable_string": "", "vehicle_owner_type": "private", "is_vat_mandatory": None,
        "name_of_business": "", "vat_number": "", "email_promotion_opt_in": False,
    }  # fmt: skip
    assert post("/api/clients/", billing, **auth).status_code == 400
    created = post("/api/clients/", {**billing, "account_iban": IBAN}, **auth)
    assert created.status_code == 201, created.json()
    locked = client.post(f"/api/clients/{created.json()['id']}/lock/", HTTP_HOST=HOST, headers=auth)
    assert locked.status_code == 200

    output = log_output.getvalue()
    records = lines(log_output)
    requests = [record for record in records if record["logger"] == "thg.request"]
    # then every call of the flow left one line, in the partner's schema, by route pattern
    assert len(requests) == 9
    assert {record["partner"] for record in requests} == {"p_autohaus"}
    assert "/api/bev_registrations/<registration_id>/lock/" in {record["route"] for record in requests}
    assert {record["status"] for record in requests} == {200, 201, 400}
    # the mail task and Django's 400 warnings were logged too, with the partner
    others = [record for record in records if record["logger"] in {"django.request", "huey"}]
    assert {record["logger"] for record in others} == {"django.request", "huey"}
    assert {record["partner"] for record in others} == {"p_autohaus"}
    # and no personal value is in any line
    for value in PERSONAL:
        assert value.lower() not in output.lower(), value


def test_every_line_is_one_json_object_with_its_partner(log_output: io.StringIO) -> None:
    logger = logging.getLogger("thg.test")
    logger.info("outside any partner")
    with schema_context("p_stadtwerk"):
        logger.warning("inside a partner\nover two lines", extra={"registration": 7})
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("failed")

    records = lines(log_output)

    assert [record["partner"] for record in records] == ["public", "p_stadtwerk", "public"]
    assert records[1]["message"] == "inside a partner\nover two lines" and records[1]["registration"] == 7
    assert "ValueError: boom" in records[2]["exception"]
    assert {"time", "level", "logger", "partner", "message"} <= set(records[0])


def test_personal_data_that_slips_into_a_line_is_masked(log_output: io.StringIO) -> None:
    logging.getLogger("thg.test").warning(
        "mail to %s failed, iban %s", EMAIL, IBAN, extra={"to": EMAIL, "iban": IBAN.replace(" ", "")}
    )

    record = lines(log_output)[0]

    assert record["message"] == "mail to [email] failed, iban [iban]"
    assert record["to"] == "[email]" and record["iban"] == "[iban]"
    assert redact("registration 100001 of p_autohaus, VIN WVWZZZ1JZXW000001") == (
        "registration 100001 of p_autohaus, VIN WVWZZZ1JZXW000001"
    )
