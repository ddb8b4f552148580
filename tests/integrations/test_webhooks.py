"""Webhooks of the partner API (issue 49, docs/partner-api.md "Webhooks"): a partner admin adds
an https address for some events; application status changes, finished uploads and payouts
are sent to it signed (HMAC-SHA256 over timestamp and body), retried with growing pauses for a
day, logged per attempt and resent by hand. A local receiver (a thread with an HTTP server)
checks each signature the way a partner's system would. Addresses in private networks are
refused (SSRF). Through HTTP and the real middleware; the clock is frozen per step."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from integrations.models import WebhookDelivery
from integrations.services import RETRY_AFTER
from integrations.tasks import webhooks_sweep_all
from operations.models import BulkUpload
from quota.models import QuotaApplication, QuotaStatus
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import money_config
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
OTHER_HOST = "stadtwerk.localhost"
API = "/api/partner/"
HOOKS = API + "integrations/webhooks/"


class Receiver:
    """A partner's system: answers with the queued codes (then `default`) and checks every
    request's signature with the secret it was shown, and its timestamp's age."""

    def __init__(self) -> None:
        self.secret = ""
        self.codes: list[int] = []
        self.default = 200
        self.requests: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                stamp = self.headers["X-THG-Timestamp"]
                expected = hmac.new(receiver.secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256)
                receiver.requests.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": json.loads(body),
                        "verified": hmac.compare_digest(
                            self.headers["X-THG-Signature"], "v1=" + expected.hexdigest()
                        )
                        and abs(time.time() - int(stamp)) <= 300,
                    }
                )
                code = receiver.codes.pop(0) if receiver.codes else receiver.default
                self.send_response(code)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/thg/hook?system=flotte"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings: Any) -> Iterator[Receiver]:
    settings.WEBHOOK_PRIVATE_ALLOWED = True  # the receiver is on 127.0.0.1
    found = Receiver()
    yield found
    found.close()


@pytest.fixture
def autohaus() -> Partner:
    return Partner.objects.get(subdomain="autohaus")


def session(partner: Partner, role: str = "partner_admin", host: str = HOST) -> Client:
    member, password = staff_member(partner, role)
    return partner_session(Client(enforce_csrf_checks=True), host, member, password)


@pytest.fixture
def admin(autohaus: Partner) -> Client:
    return session(autohaus)


def post(client: Client, path: str, body: dict[str, Any] | None = None, host: str = HOST) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=host)


def hook(admin: Client, receiver: Receiver, events: list[str]) -> dict[str, Any]:
    made = post(admin, HOOKS, {"url": receiver.url, "events": events})
    assert made.status_code == 201, made.content
    receiver.secret = made.json()["secret"]
    return dict(made.json())


def sweep_at(moment: datetime) -> None:
    with freeze_time(moment):
        webhooks_sweep_all()


def log_of(admin: Client, endpoint_id: int) -> dict[str, Any]:
    response = admin.get(f"{HOOKS}{endpoint_id}/deliveries/", HTTP_HOST=HOST)
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_a_status_change_is_sent_signed_and_retried_with_back_off_until_answered(
    admin: Client, receiver: Receiver
) -> None:
    with schema_context("p_autohaus"):
        application = ApplicationFactory.create()
    made = hook(admin, receiver, ["application.status_changed"])
    assert made["secret"].startswith("whsec_") and made["url"] == receiver.url
    assert receiver.secret not in admin.get(HOOKS, HTTP_HOST=HOST).content.decode()  # shown once
    moved = post(
        admin, API + "quota_applications/moves/", {"ids": [application.pk], "status": "qa_picked_up"}
    )
    assert moved.status_code == 200 and moved.json()["results"][0]["ok"], moved.content
    receiver.codes = [500, 503]
    start = timezone.now() + timedelta(seconds=1)

    sweep_at(start)  # at once: 500
    sweep_at(start + timedelta(seconds=30))  # not due yet
    sweep_at(start + RETRY_AFTER[0] + timedelta(seconds=1))  # after a minute: 503
    sweep_at(start + RETRY_AFTER[1] - timedelta(seconds=5))  # not due yet
    sweep_at(start + RETRY_AFTER[1] + timedelta(seconds=1))  # after five minutes: 200
    sweep_at(start + RETRY_AFTER[2] + timedelta(seconds=1))  # delivered: never again

    assert len(receiver.requests) == 3
    assert all(request["verified"] for request in receiver.requests)
    first = receiver.requests[0]
    assert first["path"] == "/thg/hook?system=flotte"
    assert first["headers"]["X-THG-Event"] == "application.status_changed"
    assert len({request["headers"]["X-THG-Delivery"] for request in receiver.requests}) == 1
    stamps = [int(request["headers"]["X-THG-Timestamp"]) for request in receiver.requests]
    assert [stamp - stamps[0] for stamp in stamps] == [0, 61, 301]
    body = first["body"]
    assert body["type"] == "application.status_changed" and body["partner"] == "autohaus"
    assert body["data"]["application"]["id"] == application.pk
    assert body["data"]["status"] == "qa_picked_up" and body["data"]["status_label"]
    log = log_of(admin, made["id"])
    assert log["count"] == 1
    delivery = log["results"][0]
    assert delivery["status"] == "delivered" and delivery["tries"] == 3
    assert delivery["uuid"] == first["headers"]["X-THG-Delivery"] and delivery["event_id"] == body["id"]
    assert [(a["status_code"], a["manual"]) for a in delivery["attempts"]] == [
        (500, False),
        (503, False),
        (200, False),
    ]
    assert delivery["attempts"][0]["error"] == "HTTP 500"
    assert admin.get(HOOKS, HTTP_HOST=HOST).json()[0]["last_delivery_status"] == "delivered"


def test_after_a_day_of_failures_the_delivery_fails_and_a_resend_by_hand_delivers_it(
    admin: Client, receiver: Receiver
) -> None:
    with schema_context("p_autohaus"):
        application = ApplicationFactory.create()
    made = hook(admin, receiver, ["application.status_changed"])
    post(admin, API + "quota_applications/moves/", {"ids": [application.pk], "status": "qa_picked_up"})
    receiver.default = 500
    # the day of tries lies in the past, so that the admin's session is fresh for the resend
    start = timezone.now() - timedelta(days=3)

    sweep_at(start)
    for pause in RETRY_AFTER:
        sweep_at(start + pause + timedelta(seconds=1))
    sweep_at(start + timedelta(days=2))

    assert len(receiver.requests) == 1 + len(RETRY_AFTER) == 8
    assert RETRY_AFTER[-1] == timedelta(days=1)
    failed = log_of(admin, made["id"])["results"][0]
    assert failed["status"] == "failed" and failed["next_attempt_at"] is None
    assert len(failed["attempts"]) == 8

    receiver.default = 200
    resent = post(admin, f"{API}integrations/webhook_deliveries/{failed['id']}/resend/")

    assert resent.status_code == 200, resent.content
    assert resent.json()["status"] == "delivered"
    assert (
        resent.json()["attempts"][-1]["manual"] is True
        and resent.json()["attempts"][-1]["status_code"] == 200
    )
    assert len(receiver.requests) == 9 and receiver.requests[-1]["verified"]
    assert receiver.requests[-1]["headers"]["X-THG-Delivery"] == failed["uuid"]
    with schema_context("p_autohaus"):
        assert AuditEntry.objects.filter(action="webhook.resend", object_id=str(failed["id"])).count() == 1


def test_the_test_send_pings_once_and_reports_the_answer(admin: Client, receiver: Receiver) -> None:
    made = hook(admin, receiver, ["bulk_upload.finished"])
    receiver.codes = [404]

    refused = post(admin, f"{HOOKS}{made['id']}/test/")
    answered = post(admin, f"{HOOKS}{made['id']}/test/")

    assert refused.status_code == 200 and refused.json()["status"] == "failed"
    assert refused.json()["attempts"][0]["status_code"] == 404
    assert answered.json()["status"] == "delivered" and answered.json()["event_type"] == "ping"
    assert [r["headers"]["X-THG-Event"] for r in receiver.requests] == ["ping", "ping"]
    assert all(request["verified"] for request in receiver.requests)
    # a ping is not retried
    sweep_at(timezone.now() + timedelta(hours=1))
    assert len(receiver.requests) == 2


def test_finished_uploads_and_payouts_are_sent_to_who_asked_for_them(
    autohaus: Partner, admin: Client, receiver: Receiver
) -> None:
    money_config(autohaus)
    with schema_context("p_autohaus"):
        paid, failed = (ApplicationFactory.create(status=QuotaStatus.TO_PAY) for _ in range(2))
    hook(admin, receiver, ["bulk_upload.finished", "payout.paid", "payout.failed"])
    with schema_context("p_autohaus"):
        upload = BulkUpload.objects.create(
            status=BulkUpload.Status.CREATED, file_name="flotte.zip", size=10, file_count=0,
            finished_at=timezone.now(),
        )  # fmt: skip
    batches = API + "settlement_batches/"
    batch = post(admin, batches, {"ids": [paid.pk, failed.pk]}).json()
    failed_item = next(item for item in batch["items"] if item["application"]["id"] == failed.pk)
    assert (
        post(admin, f"{batches}{batch['id']}/items/{failed_item['id']}/fail/", {"reason": "AC04"}).status_code
        == 200
    )
    assert post(admin, f"{batches}{batch['id']}/mark_paid/").status_code == 200

    sweep_at(timezone.now() + timedelta(seconds=1))

    by_type = {request["body"]["type"]: request["body"]["data"] for request in receiver.requests}
    assert set(by_type) == {"bulk_upload.finished", "payout.paid", "payout.failed"}  # no status change
    assert all(request["verified"] for request in receiver.requests)
    assert by_type["bulk_upload.finished"]["bulk_upload"]["uuid"] == str(upload.uuid)
    assert by_type["bulk_upload.finished"]["bulk_upload"]["status_label"] == "Alle Registrierungen angelegt"
    payout = by_type["payout.paid"]["settlement_batch"]
    assert payout["id"] == batch["id"] and [i["application_id"] for i in payout["items"]] == [paid.pk]
    assert by_type["payout.failed"]["payout"]["application_id"] == failed.pk
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=paid.pk).status == "qa_paid"
    # taken up once: a later sweep (the overlap reads them again) sends nothing new
    sweep_at(timezone.now() + timedelta(minutes=2))
    assert len(receiver.requests) == 3


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("https://127.0.0.1/hook", "WEBHOOK003"),
        ("https://localhost:8443/hook", "WEBHOOK003"),
        ("https://10.1.2.3/hook", "WEBHOOK003"),
        ("https://169.254.169.254/latest/meta-data/", "WEBHOOK003"),
        ("https://[::1]/hook", "WEBHOOK003"),
        ("https://[::ffff:192.168.0.1]/hook", "WEBHOOK003"),
        ("https://100.64.0.1/hook", "WEBHOOK003"),
        ("ftp://example.com/hook", "WEBHOOK001"),
        ("https://user:pass@example.com/hook", "WEBHOOK001"),
        ("hook", "WEBHOOK001"),
    ],
)
def test_addresses_in_private_networks_and_odd_urls_are_refused(admin: Client, url: str, code: str) -> None:
    refused = post(admin, HOOKS, {"url": url, "events": ["payout.paid"]})

    assert refused.status_code == 400, refused.content
    assert refused.json()["url"]["error_code"] == code


def test_http_only_in_the_development_run_and_events_must_be_known(admin: Client, settings: Any) -> None:
    settings.WEBHOOK_HTTP_ALLOWED = False
    plain = post(admin, HOOKS, {"url": "http://93.184.215.14/hook", "events": ["payout.paid"]})
    unknown = post(admin, HOOKS, {"url": "https://93.184.215.14/hook", "events": ["ping"]})
    empty = post(admin, HOOKS, {"url": "https://93.184.215.14/hook", "events": []})

    assert plain.status_code == 400 and plain.json()["url"] == {
        "error_code": "WEBHOOK002",
        "message": "Die Adresse muss mit https:// beginnen.",
    }
    assert unknown.json()["events"]["error_code"] == "WEBHOOK004"
    assert empty.json()["events"]["error_code"] == "WEBHOOK004"


def test_a_receiver_that_turned_private_is_not_called(
    admin: Client, receiver: Receiver, settings: Any
) -> None:
    with schema_context("p_autohaus"):
        application = ApplicationFactory.create()
    made = hook(admin, receiver, ["application.status_changed"])
    post(admin, API + "quota_applications/moves/", {"ids": [application.pk], "status": "qa_picked_up"})
    settings.WEBHOOK_PRIVATE_ALLOWED = False  # as in production: 127.0.0.1 is no public address

    sweep_at(timezone.now() + timedelta(seconds=1))

    assert receiver.requests == []
    attempt = log_of(admin, made["id"])["results"][0]["attempts"][0]
    assert attempt["status_code"] is None and attempt["error"] == "Adresse abgelehnt (WEBHOOK003)"


def test_only_the_partner_admin_manages_webhooks_and_partner_b_sees_none_of_a(
    autohaus: Partner, admin: Client, receiver: Receiver
) -> None:
    made = hook(admin, receiver, ["payout.paid"])
    post(admin, f"{HOOKS}{made['id']}/test/")
    with schema_context("p_autohaus"):
        delivery_id = WebhookDelivery.objects.get().pk
    key = post(admin, API + "integrations/api_keys/", {"name": "Flotte", "scope": "write"}).json()["key"]
    for role in ("back_office", "viewer"):
        other = session(autohaus, role)
        assert other.get(HOOKS, HTTP_HOST=HOST).status_code == 403
        assert post(other, HOOKS, {"url": receiver.url, "events": ["payout.paid"]}).status_code == 403
        assert post(other, f"{API}integrations/webhook_deliveries/{delivery_id}/resend/").status_code == 403
    keyed = Client(enforce_csrf_checks=True)
    assert keyed.get(HOOKS, HTTP_HOST=HOST, HTTP_X_API_KEY=key).status_code == 403
    admin_b = session(Partner.objects.get(subdomain="stadtwerk"), host=OTHER_HOST)
    assert admin_b.get(HOOKS, HTTP_HOST=OTHER_HOST).json() == []
    assert admin_b.get(f"{HOOKS}{made['id']}/deliveries/", HTTP_HOST=OTHER_HOST).status_code == 404
    assert (
        post(
            admin_b, f"{API}integrations/webhook_deliveries/{delivery_id}/resend/", host=OTHER_HOST
        ).status_code
        == 404
    )
    assert post(admin_b, f"{HOOKS}{made['id']}/test/", host=OTHER_HOST).status_code == 404
    assert len(receiver.requests) == 1

    removed = admin.delete(f"{HOOKS}{made['id']}/", HTTP_HOST=HOST)
    assert removed.status_code == 204 and admin.get(HOOKS, HTTP_HOST=HOST).json() == []
