"""Custom domains: pending until the TXT record `_thg-verify.{domain}` holds the partner's
token, checked with dnspython against a real DNS server (dnslib) started here; only then served."""

import html
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from dnslib import QTYPE, RCODE, RR, TXT
from dnslib.server import BaseResolver, DNSServer

from accounts.models import User
from tenants.domains import pending_domains_verify
from tenants.models import Domain, Partner
from tenants.services import partner_provision
from tenants.tasks import pending_domains_verify_all
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db

CUSTOM = "thg.sonne.example"


class Zone(BaseResolver):  # type: ignore[misc]
    """TXT records by name; everything else NXDOMAIN."""

    def __init__(self) -> None:
        self.txt: dict[str, list[str]] = {}

    def resolve(self, request: Any, handler: Any) -> Any:
        reply = request.reply()
        name = str(request.q.qname).rstrip(".").lower()
        if request.q.qtype == QTYPE.TXT and name in self.txt:
            for value in self.txt[name]:
                reply.add_answer(RR(request.q.qname, QTYPE.TXT, rdata=TXT(value), ttl=60))
        else:
            reply.header.rcode = RCODE.NXDOMAIN
        return reply


@pytest.fixture
def zone(settings: Any) -> Iterator[Zone]:
    resolver = Zone()
    server = DNSServer(resolver, port=0, address="127.0.0.1")
    server.start_thread()
    port = server.server.server_address[1]
    settings.DOMAIN_VERIFY_NAMESERVERS = f"127.0.0.1:{port}"
    yield resolver
    server.stop()


@pytest.fixture
def partner() -> Partner:
    return partner_provision(subdomain="sonne", name="Sonne GmbH", custom_domain=CUSTOM)


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def served(host: str) -> int:
    return Client().get("/api/configs/sonne/", HTTP_HOST=host).status_code


def test_a_new_custom_domain_is_pending_and_not_served(partner: Partner) -> None:
    domain = Domain.objects.get(domain=CUSTOM)

    assert domain.verified_at is None
    assert Domain.objects.get(domain="sonne.localhost").verified_at is not None
    assert served(CUSTOM) == 404
    assert served("sonne.localhost") == 200
    assert partner.primary_domain() == "sonne.localhost"


def test_the_change_page_shows_the_state_and_the_record_to_create(staff: Client, partner: Partner) -> None:
    page = html.unescape(
        staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    )

    assert "ausstehend" in page
    assert f"_thg-verify.{CUSTOM}" in page and partner.domain_token in page
    assert "Domains jetzt prüfen" in page


def test_a_missing_or_wrong_record_keeps_it_pending(zone: Zone, partner: Partner) -> None:
    assert pending_domains_verify() == {CUSTOM: False}
    assert Domain.objects.get(domain=CUSTOM).check_result == f"Kein TXT-Eintrag _thg-verify.{CUSTOM}."

    zone.txt[f"_thg-verify.{CUSTOM}"] = ["thg-verify=someone-else", "v=spf1 -all"]
    assert pending_domains_verify() == {CUSTOM: False}
    domain = Domain.objects.get(domain=CUSTOM)
    assert "ohne den Token" in domain.check_result and domain.verified_at is None
    assert served(CUSTOM) == 404


def test_the_right_record_verifies_it_from_the_console_and_it_is_served(
    zone: Zone, staff: Client, partner: Partner, django_capture_on_commit_callbacks: Any
) -> None:
    assert served(CUSTOM) == 404
    zone.txt[f"_thg-verify.{CUSTOM}"] = ["v=spf1 -all", partner.domain_token]

    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(f"/admin/tenants/partner/{partner.pk}/domains/verify/", HTTP_HOST="localhost")

    assert response.status_code == 302
    assert Domain.objects.get(domain=CUSTOM).verified_at is not None
    assert served(CUSTOM) == 200
    page = html.unescape(
        staff.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    )
    assert "bestätigt (" in page


def test_the_periodic_task_verifies_pending_domains(
    zone: Zone, partner: Partner, django_capture_on_commit_callbacks: Any
) -> None:
    zone.txt[f"_thg-verify.{CUSTOM}"] = [partner.domain_token]

    with django_capture_on_commit_callbacks(execute=True):
        pending_domains_verify_all.call_local()

    assert Domain.objects.get(domain=CUSTOM).verified_at is not None
    assert served(CUSTOM) == 200


def test_renaming_a_verified_domain_starts_over(zone: Zone, partner: Partner) -> None:
    zone.txt[f"_thg-verify.{CUSTOM}"] = [partner.domain_token]
    pending_domains_verify()
    domain = Domain.objects.get(domain=CUSTOM)

    domain.domain = "thg2.sonne.example"
    domain.save()

    assert Domain.objects.get(pk=domain.pk).verified_at is None


def test_another_partners_token_does_not_verify(zone: Zone, partner: Partner) -> None:
    other = Partner.objects.get(subdomain="autohaus")
    zone.txt[f"_thg-verify.{CUSTOM}"] = [other.domain_token]

    assert pending_domains_verify() == {CUSTOM: False}
