"""Every bad request to the API is a JSON 400/413 in the spec's shape, answered by gunicorn
as `make run` serves it; no traceback or HTML page reaches a client."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.test import Client

from tests.api.live import HOST, committed_owner_tokens, raw_request, request

UPLOAD = "/api/bev_registrations/"
OTP = "/api/auth/registration/otp/"
VAT = "/api/clients/validate_vat_number/"


@pytest.fixture(scope="module")
def token(django_db_setup: None, django_db_blocker: Any) -> str:
    return committed_owner_tokens(django_db_blocker)["access"]


def assert_detail(answer: Any, status: int) -> dict[str, Any]:
    assert answer.status == status, (answer.status, answer.body[:500])
    body = answer.json()
    assert isinstance(body.get("detail"), str) and body["detail"], body
    assert b"Traceback" not in answer.body and b"<html" not in answer.body.lower()
    return body  # type: ignore[no-any-return]


def test_multipart_without_boundary_is_a_json_400(live_server_port: int, token: str) -> None:
    answer = request(
        live_server_port, "POST", UPLOAD, b"--x\r\n\r\n", content_type="multipart/form-data", token=token
    )

    assert_detail(answer, 400)


def test_a_body_over_the_limit_is_a_json_413_before_it_is_sent(live_server_port: int, token: str) -> None:
    # given a JSON body over DATA_UPLOAD_MAX_MEMORY_SIZE (read by the endpoint: RequestDataTooBig)
    big = json.dumps({"email": "a@example.org", "partner": "autohaus", "pad": "x" * 3_000_000}).encode()
    answer = request(live_server_port, "POST", OTP, big, content_type="application/json")
    assert_detail(answer, 413)

    # and an upload announcing 50 MB: answered without waiting for a byte of it
    head = (
        f"POST {UPLOAD} HTTP/1.1\nHost: {HOST}\nConnection: close\nAuthorization: Bearer {token}\n"
        f"Content-Type: multipart/form-data; boundary=b\nContent-Length: {50 * 1024 * 1024}"
    )
    started = time.monotonic()
    upload = raw_request(live_server_port, head, send_body=False, timeout=10)
    assert time.monotonic() - started < 5
    assert_detail(upload, 413)


def test_more_than_1000_fields_is_a_json_400(live_server_port: int, token: str) -> None:
    fields = "&".join(f"f{number}=1" for number in range(1001)).encode()

    answer = request(
        live_server_port, "POST", VAT, fields, content_type="application/x-www-form-urlencoded", token=token
    )

    assert_detail(answer, 400)
    # 1,000 fields are still read: the VAT number among them is checked (and refused)
    fine = "&".join(f"f{number}=1" for number in range(999)).encode() + b"&vat_number=DE1"
    ok = request(
        live_server_port, "POST", VAT, fine, content_type="application/x-www-form-urlencoded", token=token
    )
    assert ok.status == 400 and ok.json() == {"error_code": "VAT001"}, ok.body


def test_a_chunked_body_is_a_json_400(live_server_port: int) -> None:
    payload = json.dumps({"email": "chunked@example.org", "partner": "autohaus"}).encode()
    chunked = f"{len(payload):x}\r\n".encode() + payload + b"\r\n0\r\n\r\n"
    head = (
        f"POST {OTP} HTTP/1.1\nHost: {HOST}\nConnection: close\nContent-Type: application/json\n"
        "Transfer-Encoding: chunked"
    )

    answer = raw_request(live_server_port, head, chunked)

    body = assert_detail(answer, 400)
    assert body["error_code"] == "LENGTH_REQUIRED"


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", b'{"email": "a@example.org", "partner": '),  # invalid JSON
        ("application/json", b"\xff\xfe\x00"),  # not UTF-8
        ("text/plain", b"email=a@example.org"),  # wrong content type
        ("application/json", b"[1, 2]"),  # JSON, but not an object
    ],
)
def test_invalid_json_and_wrong_content_types_are_a_json_400(
    live_server_port: int, content_type: str, body: bytes
) -> None:
    answer = request(live_server_port, "POST", OTP, body, content_type=content_type)

    assert answer.status == 400, answer.body
    assert isinstance(answer.json(), dict)


def test_a_wrong_method_and_an_unknown_path_are_json(live_server_port: int) -> None:
    wrong = request(live_server_port, "DELETE", OTP)
    unknown = request(live_server_port, "GET", "/api/no/such/call/")

    assert_detail(wrong, 405)
    assert "POST" in wrong.headers["allow"]
    assert unknown.json() == {"detail": "Not found."}


def test_a_404_names_no_model(live_server_port: int, token: str) -> None:
    answer = request(live_server_port, "POST", "/api/bev_registrations/987654321/lock/", token=token)

    assert answer.status == 404
    assert answer.json() == {"detail": "Not found."}


def test_personal_data_and_tokens_are_not_stored_by_caches(live_server_port: int, token: str) -> None:
    profile = request(live_server_port, "GET", "/api/auth/user/profile/end-user-portal/", token=token)
    refused = request(
        live_server_port, "POST", "/api/auth/registration/otp/verify/", b"{}", content_type="application/json"
    )
    unauthorised = request(live_server_port, "GET", "/api/end_user_portal/quota_applications/")
    config = request(live_server_port, "GET", "/api/configs/autohaus/")

    for answer in (profile, refused, unauthorised):
        assert answer.headers.get("cache-control") == "no-store", (answer.status, answer.headers)
    # the public configuration keeps its own revalidation
    assert config.status == 200 and config.headers["cache-control"] == "no-cache"


def test_an_unhandled_error_is_a_json_500_without_traceback(
    monkeypatch: pytest.MonkeyPatch, settings: Any, db: None
) -> None:
    from registrations import services

    def broken() -> None:
        raise RuntimeError("secret internals /srv/app/registrations/services.py")

    monkeypatch.setattr(services, "scan_limits", broken)
    client = Client(raise_request_exception=False)

    api = client.get("/api/system_constraints/", HTTP_HOST=HOST)
    assert api.status_code == 500
    assert api.json() == {"detail": "Interner Fehler."}
    assert b"secret internals" not in api.content

    # outside the API a plain page, without the error either
    settings.WEB_DIST = 0  # the app's index lookup fails
    page = client.get("/some/app/route", HTTP_HOST=HOST)
    assert page.status_code == 500
    assert b"Traceback" not in page.content and b"WEB_DIST" not in page.content
