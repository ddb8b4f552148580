"""Issue 13, item 1: a request is served only for a host the product knows; X-SUBDOMAIN may
only agree with that host; every mailed link is built from the partner's configured domain."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import LoginLink, User
from tenants.directory import directory
from tenants.models import Domain, Partner

pytestmark = pytest.mark.django_db

EMAIL = "halter@example.de"
MISMATCH = {"detail": "X-SUBDOMAIN does not match this host."}
CUSTOM = "thg.autohaus-sonnenschein.example"


@pytest.fixture(autouse=True)
def _owner(db: None) -> Iterator[None]:
    with schema_context("p_autohaus"):
        User.objects.create_user(username=EMAIL, email=EMAIL, password="Geheim-123!")
    yield


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[Callable[[], Any]], Any]:
    """Run a call with its on-commit mails sent, as the server does."""

    def run(call: Callable[[], Any]) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return run


def post(client: Client, path: str, body: dict[str, Any], host: str, **headers: str) -> Any:
    return client.post(path, body, content_type="application/json", HTTP_HOST=host, headers=headers)


def reset(client: Client, host: str, **headers: str) -> Any:
    return post(client, "/api/auth/user/password-reset/verify-email/", {"email": EMAIL}, host, **headers)


def mail_links() -> list[str]:
    return [link for message in mail.outbox for link in re.findall(r"https?://\S+", str(message.body))]


def all_mail_text() -> str:
    parts = []
    for message in mail.outbox:
        parts.append(str(message.body))
        parts.extend(str(content) for content, _ in getattr(message, "alternatives", []))
    return "\n".join(parts)


# --- resolution ---------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["attacker.example", "autohaus.localhost.attacker.example", "p_autohaus"])
def test_an_unknown_host_naming_a_partner_is_refused_with_json_400(client: Client, host: str) -> None:
    api = client.get("/api/configs/autohaus/", HTTP_HOST=host, headers={"X-Subdomain": "autohaus"})
    page = client.get("/portal", HTTP_HOST=host, headers={"X-Subdomain": "autohaus"})

    assert api.status_code == 400
    assert api["Content-Type"] == "application/json"
    assert api.json() == MISMATCH
    assert page.status_code == 400
    assert b"Autohaus" not in page.content


def test_a_partner_host_refuses_a_header_naming_another_partner(client: Client) -> None:
    api = client.get(
        "/api/auth/bot-check/challenge/", HTTP_HOST="autohaus.localhost", headers={"X-Subdomain": "stadtwerk"}
    )
    unknown = client.get(
        "/api/auth/bot-check/challenge/", HTTP_HOST="autohaus.localhost", headers={"X-Subdomain": "nobody"}
    )

    assert api.status_code == 400 and api.json() == MISMATCH
    assert unknown.status_code == 400 and unknown.json() == MISMATCH


def test_a_header_agreeing_with_the_host_is_fine_in_any_case(client: Client) -> None:
    response = client.get(
        "/api/configs/autohaus/", HTTP_HOST="autohaus.localhost:8000", headers={"X-Subdomain": " AutoHaus "}
    )

    assert response.status_code == 200
    assert response.json()["subdomain"] == "autohaus"


def test_on_the_public_host_the_header_selects_no_partner(client: Client, committed: Any) -> None:
    send = committed(
        lambda: post(
            client,
            "/api/auth/registration/otp/",
            {"email": EMAIL, "partner": "autohaus", "verify_email_url": ""},
            "localhost",
            X_Subdomain="autohaus",
        )
    )
    # The config call: the path decides; a header agreeing with it is harmless, another is not.
    by_path = client.get("/api/configs/autohaus/", HTTP_HOST="localhost", headers={"X-Subdomain": "autohaus"})
    other = client.get("/api/configs/autohaus/", HTTP_HOST="localhost", headers={"X-Subdomain": "stadtwerk"})

    assert send.status_code == 400 and send.json() == MISMATCH
    assert not mail.outbox
    assert by_path.status_code == 200 and by_path.json()["subdomain"] == "autohaus"
    assert other.status_code == 400 and other.json() == MISMATCH


def test_a_custom_domain_is_a_known_host(client: Client) -> None:
    Domain.objects.create(
        domain=CUSTOM,
        tenant=Partner.objects.get(subdomain="autohaus"),
        is_primary=False,
        verified_at=timezone.now(),
    )
    directory.clear()

    served = client.get("/api/configs/autohaus/", HTTP_HOST=CUSTOM, headers={"X-Subdomain": "autohaus"})
    crossed = client.get("/api/configs/autohaus/", HTTP_HOST=CUSTOM, headers={"X-Subdomain": "stadtwerk"})

    assert served.status_code == 200
    assert crossed.status_code == 400


def test_the_page_names_its_partner_so_the_app_works_on_a_custom_domain(
    client: Client, settings: Any, tmp_path: Any
) -> None:
    # given: a built page with the placeholder the server fills, and a custom domain whose
    # name does not contain the subdomain
    (tmp_path / "index.html").write_text(
        '<!doctype html><head><meta name="thg-partner" content="" /></head>', encoding="utf-8"
    )
    settings.WEB_DIST = tmp_path
    Domain.objects.create(
        domain=CUSTOM,
        tenant=Partner.objects.get(subdomain="autohaus"),
        is_primary=False,
        verified_at=timezone.now(),
    )
    directory.clear()

    # when
    page = client.get("/portal/auth/login", HTTP_HOST=CUSTOM)
    public = client.get("/", HTTP_HOST="autohaus.localhost")

    # then: the app reads "autohaus" from the page, not the host's first label
    assert b'<meta name="thg-partner" content="autohaus" />' in page.content
    assert b'content="autohaus"' in public.content


# --- mailed links -------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{"X_Subdomain": "autohaus"}, {}], ids=["with-header", "without-header"])
def test_a_reset_asked_through_a_foreign_host_mails_nothing_with_that_host(
    client: Client, committed: Any, headers: dict[str, str]
) -> None:
    response = committed(lambda: reset(client, "attacker.example", **headers))

    assert response.status_code in {400, 404}
    assert response["Content-Type"] == "application/json"
    assert "attacker.example" not in all_mail_text()
    assert not mail.outbox


def test_a_forged_host_with_port_on_the_public_host_mails_nothing(client: Client, committed: Any) -> None:
    response = committed(lambda: reset(client, "localhost:8000", X_Subdomain="autohaus"))

    assert response.status_code == 400
    assert not mail.outbox


def test_the_reset_link_is_built_from_the_partners_primary_domain(client: Client, committed: Any) -> None:
    autohaus = Partner.objects.get(subdomain="autohaus")
    autohaus.domains.update(is_primary=False)
    Domain.objects.create(domain=CUSTOM, tenant=autohaus, is_primary=True, verified_at=timezone.now())
    directory.clear()

    # Asked on the partner's other (subdomain) host, with a port: the link names the primary.
    response = committed(lambda: reset(client, "autohaus.localhost:8000"))

    assert response.status_code == 200
    [link] = mail_links()
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", CUSTOM, "/portal/auth/reset-password")
    assert "localhost" not in all_mail_text()


def test_on_a_developer_host_the_link_keeps_http_and_the_port_of_that_same_host(
    client: Client, committed: Any
) -> None:
    response = committed(lambda: reset(client, "autohaus.localhost:8000"))

    assert response.status_code == 200
    [link] = mail_links()
    assert link.startswith("http://autohaus.localhost:8000/portal/auth/reset-password?")


@pytest.mark.parametrize(
    "url",
    [
        f"http://{CUSTOM}/verify-email",  # plain http on a real host
        "https://attacker.example/verify-email",
        f"https://user@{CUSTOM}@attacker.example/verify-email",
        "https://stadtwerk.localhost/verify-email",
    ],
)
def test_the_login_link_target_is_https_on_the_partners_own_host(client: Client, url: str) -> None:
    Domain.objects.create(
        domain=CUSTOM,
        tenant=Partner.objects.get(subdomain="autohaus"),
        is_primary=False,
        verified_at=timezone.now(),
    )
    directory.clear()

    response = post(
        client,
        "/api/auth/registration/email/",
        {"email": EMAIL, "partner": "autohaus", "verify_email_url": url},
        CUSTOM,
    )

    assert response.status_code == 400
    assert "verify_email_url" in response.json()
    with schema_context("p_autohaus"):
        assert not LoginLink.objects.exists()


def test_an_https_login_link_on_the_partners_custom_domain_is_mailed(client: Client, committed: Any) -> None:
    Domain.objects.create(
        domain=CUSTOM,
        tenant=Partner.objects.get(subdomain="autohaus"),
        is_primary=False,
        verified_at=timezone.now(),
    )
    directory.clear()

    response = committed(
        lambda: post(
            client,
            "/api/auth/registration/email/",
            {"email": EMAIL, "partner": "autohaus", "verify_email_url": f"https://{CUSTOM}/verify-email?x=1"},
            CUSTOM,
        )
    )

    assert response.status_code == 200
    [link] = mail_links()
    assert link.startswith(f"https://{CUSTOM}/verify-email?x=1&key=")
