"""Registration-flow login by e-mail code and by e-mail link (spec section 7), with tokens."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.models import LoginCode, LoginLink, User
from tests.accounts.conftest import last_mail_code, last_mail_link

pytestmark = pytest.mark.django_db
Post = Callable[..., Any]
EMAIL = "Erika.Mustermann@Example.de"
VERIFY_URL = "http://autohaus.localhost:8000/verify-email?campaign=herbst&user_reference=r-1"


def send_code(api: Post, email: str = EMAIL, **kwargs: Any) -> Any:
    return api(
        "/api/auth/registration/otp/",
        {"email": email, "partner": "autohaus", "verify_email_url": ""},
        **kwargs,
    )


def test_a_code_is_mailed_in_german_with_html_and_the_partners_branding(
    api: Post, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = send_code(api)

    assert response.status_code == 200
    assert response.json() == {"email": "erika.mustermann@example.de"}
    message = mail.outbox[-1]
    assert message.to == ["erika.mustermann@example.de"]
    assert message.subject == "Ihr Bestätigungscode – Autohaus Sonnenschein"
    html = str(message.alternatives[0][0])  # type: ignore[union-attr]
    assert "#1d4ed8" in html and "data:image/svg+xml;base64," in html
    assert len(last_mail_code()) == 6
    assert LoginCode.objects.get().code_hash != last_mail_code()


def test_the_right_code_logs_in_and_creates_the_end_user_once(
    api: Post, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        send_code(api)

    response = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": last_mail_code()})

    assert response.status_code == 200
    assert set(response.json()) == {"access", "refresh"}
    user = User.objects.get(email="erika.mustermann@example.de")
    with schema_context("p_stadtwerk"):
        assert not User.objects.filter(email__iexact=EMAIL).exists()
    # A known e-mail logs in as the same user.
    LoginCode.objects.update(created_at=timezone.now() - timedelta(minutes=2))
    with django_capture_on_commit_callbacks(execute=True):
        send_code(api)
    again = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": last_mail_code()})
    assert again.status_code == 200
    assert User.objects.filter(email__iexact=EMAIL).count() == 1
    assert User.objects.get(email__iexact=EMAIL) == user


def test_a_wrong_code_is_ungueltiger_code(api: Post) -> None:
    send_code(api)

    response = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": "000000"})

    assert response.status_code == 400
    assert response.json() == {"detail": "Ungültiger Code", "error_code": "OTP001"}
    assert not User.objects.filter(is_staff=False).exists()  # only the demo back office


def test_a_code_is_single_use(api: Post, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        send_code(api)
    code = last_mail_code()

    first = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": code})
    second = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": code})

    assert first.status_code == 200
    assert second.status_code == 400
    assert second.json()["error_code"] == "OTP001"


def test_five_wrong_tries_kill_the_code(api: Post, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        send_code(api)
    code = last_mail_code()
    wrong = "111111" if code != "111111" else "222222"

    answers = [
        api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": wrong}).json()
        for _ in range(5)
    ]
    right = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": code})

    assert [a["error_code"] for a in answers] == ["OTP001"] * 4 + ["OTP002"]
    assert right.status_code == 400
    assert right.json()["error_code"] == "OTP002"


def test_a_code_expires_after_ten_minutes(api: Post, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        send_code(api)

    with freeze_time(timezone.now() + timedelta(minutes=10, seconds=1)):
        response = api("/api/auth/registration/otp/verify/", {"email": EMAIL, "otp_code": last_mail_code()})

    assert response.status_code == 400
    assert response.json()["error_code"] == "OTP001"


def test_sends_to_one_address_are_60_seconds_apart(api: Post) -> None:
    first = send_code(api)
    second = send_code(api)
    link = api(
        "/api/auth/registration/email/",
        {"email": EMAIL, "partner": "autohaus", "verify_email_url": VERIFY_URL},
    )

    assert first.status_code == 200
    assert second.status_code == 429
    assert second.json()["error_code"] == "RATE001"
    assert 1 <= int(second["Retry-After"]) <= 60
    assert link.status_code == 429
    assert LoginCode.objects.count() == 1
    with freeze_time(timezone.now() + timedelta(seconds=61)):
        assert send_code(api).status_code == 200


def test_a_client_address_cannot_mail_without_limit(api: Post, settings: Any) -> None:
    settings.LOGIN_SENDS_PER_ADDRESS_HOUR = 3

    answers = [
        send_code(api, email=f"person{i}@example.de", REMOTE_ADDR="203.0.113.9").status_code for i in range(4)
    ]

    assert answers == [200, 200, 200, 429]


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"email": "", "partner": "autohaus"}, "email", "Eingabe erforderlich."),
        ({"partner": "autohaus"}, "email", "Eingabe erforderlich."),
        (
            {"email": "kein-at.example.de", "partner": "autohaus"},
            "email",
            "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
        ),
        (
            {"email": "a@" + "x" * 64 + ".de", "partner": "autohaus"},
            "email",
            "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
        ),
        ({"email": "smile😀@example.de", "partner": "autohaus"}, "email", "Bitte keine Emojis verwenden"),
        (
            {"email": "a@example.de", "partner": "stadtwerk"},
            "partner",
            "Dieser Partner passt nicht zu dieser Website.",
        ),
        ({"email": "a@example.de"}, "partner", "Eingabe erforderlich."),
    ],
)
def test_bad_login_input_gets_a_field_error(
    api: Post, payload: dict[str, str], field: str, message: str
) -> None:
    response = api("/api/auth/registration/otp/", payload)

    assert response.status_code == 400
    assert response.json()[field] == [message]
    assert not LoginCode.objects.exists()


def test_a_body_that_is_not_json_gets_a_clear_error(client: Client) -> None:
    response = client.post(
        "/api/auth/registration/otp/",
        "not json",
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )

    assert response.status_code == 400
    assert isinstance(response.json(), dict)


def test_the_magic_link_keeps_the_query_keys_and_logs_in_once(
    api: Post, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        sent = api(
            "/api/auth/registration/email/",
            {"email": EMAIL, "partner": "autohaus", "verify_email_url": VERIFY_URL},
        )
    assert sent.status_code == 200
    link = urlsplit(last_mail_link())
    query = parse_qs(link.query)

    assert (link.scheme, link.netloc, link.path) == ("http", "autohaus.localhost:8000", "/verify-email")
    assert query["campaign"] == ["herbst"] and query["user_reference"] == ["r-1"]
    first = api("/api/auth/registration/email/verify/", {"key": query["key"][0]})
    second = api("/api/auth/registration/email/verify/", {"key": query["key"][0]})
    assert first.status_code == 200 and set(first.json()) == {"access", "refresh"}
    assert second.status_code == 400
    assert second.json() == {
        "detail": "Der Link ist ungültig oder abgelaufen. Bitte melden Sie sich erneut an.",
        "error_code": "LINK001",
    }
    assert mail.outbox[-1].subject == "Bitte bestätigen Sie Ihre E-Mail-Adresse – Autohaus Sonnenschein"


def test_a_link_expires_after_ten_minutes_and_is_bound_to_its_partner(
    api: Post, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        api(
            "/api/auth/registration/email/",
            {"email": EMAIL, "partner": "autohaus", "verify_email_url": VERIFY_URL},
        )
    key = parse_qs(urlsplit(last_mail_link()).query)["key"][0]

    elsewhere = api("/api/auth/registration/email/verify/", {"key": key}, host="stadtwerk.localhost")
    with freeze_time(timezone.now() + timedelta(minutes=10, seconds=1)):
        late = api("/api/auth/registration/email/verify/", {"key": key})

    assert elsewhere.status_code == 400
    assert late.status_code == 400
    assert LoginLink.objects.get().used_at is None


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/verify-email",
        "javascript:alert(1)",
        "http://stadtwerk.localhost:8000/verify-email",
        "",
    ],
)
def test_the_link_may_only_lead_to_the_partners_own_site(api: Post, url: str) -> None:
    response = api(
        "/api/auth/registration/email/", {"email": EMAIL, "partner": "autohaus", "verify_email_url": url}
    )

    assert response.status_code == 400
    assert "verify_email_url" in response.json()
    assert not LoginLink.objects.exists()
