"""Portal accounts (spec/customer-portal.md sections 7 and 8): password login behind the
self-hosted bot check, the e-mailed extra check, throttles, password reset and signup."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import mail
from django.test import Client
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.models import LoginCode, User
from tenants.models import Partner
from tests.accounts.conftest import last_mail_code, last_mail_link, solve_bot_check

pytestmark = pytest.mark.django_db
Post = Callable[..., Any]
PASSWORD = "Geheim-123!"
EMAIL = "portal@example.de"
PROFILE = "/api/auth/user/profile/end-user-portal/"


_capture: list[Any] = []


@pytest.fixture(autouse=True)
def _mails_at_once(django_capture_on_commit_callbacks: Any) -> Iterator[None]:
    """Each call's mails go out when the call's transaction commits, as in the server."""
    _capture.append(django_capture_on_commit_callbacks)
    yield
    _capture.pop()


def committed(call: Callable[[], Any]) -> Any:
    with _capture[-1](execute=True):
        return call()


@pytest.fixture
def portal_user(db: None) -> User:
    return User.objects.create_user(
        username=EMAIL, email=EMAIL, password=PASSWORD, first_name="Paula", last_name="Portal"
    )


def login(client: Client, username: str = EMAIL, password: str = PASSWORD, **extra: Any) -> Any:
    body = {"username": username, "password": password, "recaptcha": solve_bot_check(client)}
    body.update(extra)
    return committed(
        lambda: client.post(
            "/api/auth/user/login/", body, content_type="application/json", HTTP_HOST="autohaus.localhost"
        )
    )


def verify(client: Client, user_id: int, code: str) -> Any:
    return client.post(
        "/api/auth/2fa/otp/verify/",
        {"user_id": user_id, "otp_code": code},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )


def resend(client: Client, user_id: int) -> Any:
    return committed(
        lambda: client.post(
            "/api/auth/2fa/otp/resend/",
            {"user_id": user_id},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )
    )


def test_a_login_without_a_solved_bot_check_is_invalid_recaptcha(client: Client, portal_user: User) -> None:
    response = login(client, recaptcha="")
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid recaptcha"
    forged = login(client, recaptcha="eyJhbGdvcml0aG0iOiJTSEEtMjU2In0=")
    assert forged.status_code == 401 and forged.json()["detail"] == "Invalid recaptcha"


def test_a_solved_challenge_counts_once_and_only_on_its_partner(client: Client, portal_user: User) -> None:
    solution = solve_bot_check(client)
    first = login(client, recaptcha=solution)
    again = login(client, recaptcha=solution)
    elsewhere = client.post(
        "/api/auth/user/login/",
        {"username": EMAIL, "password": PASSWORD, "recaptcha": solve_bot_check(client)},
        content_type="application/json",
        HTTP_HOST="stadtwerk.localhost",
    )
    assert first.status_code == 200
    assert again.json()["detail"] == "Invalid recaptcha"
    # The autohaus challenge is no good for stadtwerk.
    assert elsewhere.json()["detail"] == "Invalid recaptcha"


def test_the_answer_never_tells_whether_the_username_exists(client: Client, portal_user: User) -> None:
    User.objects.create_user(username="flow@example.de", email="flow@example.de")  # no password: flow only
    wrong_password = login(client, password="Falsch-123!")
    unknown = login(client, username="nobody@example.de")
    flow_only = login(client, username="flow@example.de", password="")
    assert wrong_password.status_code == unknown.status_code == flow_only.status_code == 401
    assert wrong_password.json() == unknown.json() == flow_only.json()
    assert wrong_password.json()["error_code"] == "LOGIN001"


def test_a_new_device_gets_the_emailed_code_then_is_known(client: Client, portal_user: User) -> None:
    # given a browser that never passed the code
    response = login(client, username="  Portal@Example.DE ")

    # then no tokens, a code by e-mail
    assert response.status_code == 200
    assert response.json() == {"tokens": None, "recaptcha_extra_check": True, "user_id": portal_user.pk}
    assert mail.outbox[-1].to == [EMAIL]

    # when the code is entered
    verified = verify(client, portal_user.pk, last_mail_code())
    assert verified.status_code == 200
    assert set(verified.json()["tokens"]) == {"access", "refresh"}
    cookie = verified.cookies["thg_device"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"

    # then the next login from this browser gets tokens at once
    again = login(client)
    assert again.json()["recaptcha_extra_check"] is False
    access = again.json()["tokens"]["access"]
    profile = client.get(PROFILE, HTTP_HOST="autohaus.localhost", HTTP_AUTHORIZATION=f"Bearer {access}")
    assert profile.status_code == 200 and profile.json()[0]["first_name"] == "Paula"


def test_a_device_cookie_of_another_user_or_partner_is_a_new_device(
    client: Client, portal_user: User
) -> None:
    login(client)
    verify(client, portal_user.pk, last_mail_code())
    User.objects.create_user(username="zweite@example.de", email="zweite@example.de", password=PASSWORD)
    assert login(client, username="zweite@example.de").json()["recaptcha_extra_check"] is True
    with schema_context("p_stadtwerk"):
        User.objects.create_user(username=EMAIL, email=EMAIL, password=PASSWORD)
    # The test client sends the autohaus cookie to stadtwerk too; it must not count there.
    response = committed(
        lambda: client.post(
            "/api/auth/user/login/",
            {
                "username": EMAIL,
                "password": PASSWORD,
                "recaptcha": solve_bot_check(client, "stadtwerk.localhost"),
            },
            content_type="application/json",
            HTTP_HOST="stadtwerk.localhost",
        )
    )
    assert response.json()["recaptcha_extra_check"] is True


def test_a_partner_can_ask_for_the_code_on_every_login(client: Client, portal_user: User) -> None:
    login(client)
    verify(client, portal_user.pk, last_mail_code())
    partner = Partner.objects.get(subdomain="autohaus")
    partner.config = {**partner.config, "portal_login_extra_check": True}
    committed(partner.save)
    assert login(client).json()["recaptcha_extra_check"] is True


def test_failed_logins_make_each_further_try_wait_longer(client: Client, portal_user: User) -> None:
    with freeze_time() as clock:
        for _ in range(5):
            assert login(client, password="Falsch-123!").status_code == 401
        # the sixth try waits a second, even with the right password
        throttled = login(client)
        assert throttled.status_code == 429
        assert throttled["Retry-After"] == "1"
        clock.tick(timedelta(seconds=1.5))
        assert login(client, password="Falsch-123!").status_code == 401
        assert login(client)["Retry-After"] == "2"
        clock.tick(timedelta(seconds=2.5))
        assert login(client).status_code == 200


def test_an_unknown_username_is_throttled_alike(client: Client, db: None) -> None:
    with freeze_time():
        for _ in range(5):
            login(client, username="ghost@example.de")
        assert login(client, username="ghost@example.de").status_code == 429


def login_from(client: Client, address: str, username: str, password: str = PASSWORD) -> Any:
    """A login from its own client address, so only the per-username throttle can bite."""
    body = {"username": username, "password": password, "recaptcha": solve_bot_check(client)}
    return committed(
        lambda: client.post(
            "/api/auth/user/login/",
            body,
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
            REMOTE_ADDR=address,
        )
    )


# Spellings of one name: case, the long s (ſ), the Turkish dotless ı and dotted İ, the Kelvin sign.
SINA_VARIANTS = ["Sina", "SINA", "ſina", "sına", "SİNA", "ſına"]


def test_every_spelling_of_a_username_is_one_user(client: Client, db: None) -> None:
    sina = User.objects.create_user(username="sina", email="sina@example.org", password=PASSWORD)
    kelvin = User.objects.create_user(username="kai", email="kai@example.org", password=PASSWORD)
    for index, spelling in enumerate([*SINA_VARIANTS, "Sina@Example.ORG", "ſina@example.org"]):
        response = login_from(client, f"10.0.0.{index + 1}", spelling)
        assert response.status_code == 200, spelling
        assert response.json()["user_id"] == sina.pk, spelling
    assert login_from(client, "10.0.1.1", "\u212aai").json()["user_id"] == kelvin.pk  # KELVIN SIGN


def test_every_spelling_of_a_username_shares_one_throttle(client: Client, db: None) -> None:
    User.objects.create_user(username="sina", email="sina@example.org", password=PASSWORD)
    with freeze_time():
        # five failures, each from another client address, each in another spelling
        for index, spelling in enumerate(SINA_VARIANTS[:5]):
            assert login_from(client, f"10.0.0.{index + 1}", spelling, "Falsch-123!").status_code == 401
        # the sixth try waits, even in yet another spelling, with the right password
        assert login_from(client, "10.0.0.9", SINA_VARIANTS[5]).status_code == 429
        assert login_from(client, "10.0.0.10", "sina").status_code == 429
        # and the e-mail spellings of the same user count on their own key, also folded
        for index in range(5):
            login_from(client, f"10.0.2.{index}", ["Sina@Example.org", "SINA@EXAMPLE.ORG"][index % 2], "x")
        assert login_from(client, "10.0.2.9", "sina@example.org").status_code == 429


@pytest.mark.parametrize(
    ("username", "email"),
    [
        ("ſina", "andere@example.org"),
        ("SİNA", ""),
        ("sına", ""),
        ("neu", "SINA@example.org"),
        ("neu2", "ſina@example.org"),
    ],
)
def test_no_second_user_differs_only_by_spelling(db: None, username: str, email: str) -> None:
    from django.db import IntegrityError, transaction

    User.objects.create_user(username="sina", email="sina@example.org", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username=username, email=email)


def test_a_code_login_in_another_case_is_the_existing_user(client: Client, db: None) -> None:
    anna = User.objects.create_user(username="anna", email="anna@example.org", password=PASSWORD)
    users = User.objects.count()
    sent = committed(
        lambda: client.post(
            "/api/auth/registration/otp/",
            {"email": "Anna@Example.org", "partner": "autohaus"},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )
    )
    assert sent.status_code == 200
    # the code goes to the address the user has, not to the spelling typed
    assert mail.outbox[-1].to == ["anna@example.org"]
    tokens = client.post(
        "/api/auth/registration/otp/verify/",
        {"email": "ANNA@example.org", "otp_code": last_mail_code()},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    ).json()
    profile = client.get(
        PROFILE, HTTP_HOST="autohaus.localhost", HTTP_AUTHORIZATION=f"Bearer {tokens['access']}"
    )
    assert profile.json()[0]["username"] == "anna"
    assert profile.json()[0]["email"] == anna.email
    assert User.objects.count() == users


def test_a_reset_for_a_look_alike_address_mails_the_users_own_address(client: Client, db: None) -> None:
    # an address with the long s passes Django's EmailValidator (a case-insensitive regex)
    User.objects.create_user(username="kasimir", email="kasimir@example.org", password=PASSWORD)
    from accounts.models import canonical_name
    from accounts.services import password_reset_request

    partner = Partner.objects.get(subdomain="autohaus")
    assert canonical_name("kaſimir@example.org") == "kasimir@example.org"
    committed(
        lambda: password_reset_request(
            partner=partner, email="KAſIMIR@example.org", site_url="http://autohaus.localhost/", client_ip="1"
        )
    )
    assert mail.outbox[-1].to == ["kasimir@example.org"]


def test_a_shared_address_full_of_failures_never_blocks_a_right_password(client: Client, db: None) -> None:
    """An office or a mobile carrier: many people behind one address. Twenty colleagues (or a
    sprayer) fail from 10.9.9.9; a colleague who has not failed still gets in with the right
    password (through the e-mailed code, as after any failures from the address), while a
    wrong password from that address is told to wait, whoever's it is."""
    User.objects.create_user(username="kollegin", email="kollegin@example.org", password=PASSWORD)
    with freeze_time():
        for index in range(25):
            login_from(client, "10.9.9.9", f"sprayed{index}@example.org", "Falsch-123!")
        assert login_from(client, "10.9.9.9", "kollegin@example.org", "Falsch-123!").status_code == 429
        right = login_from(client, "10.9.9.9", "kollegin@example.org")
        assert right.status_code == 200, right.content
        assert right.json()["recaptcha_extra_check"] is True  # the e-mailed code, not tokens
        # (her right password cleared her own count) five failures of her own lock her out,
        # from any address
        for index in range(5):
            login_from(client, f"10.9.8.{index}", "kollegin@example.org", "Falsch-123!")
        assert login_from(client, "10.9.7.1", "kollegin@example.org").status_code == 429


def test_failures_from_one_address_make_even_a_known_device_enter_the_code(
    client: Client, portal_user: User
) -> None:
    login(client)
    verify(client, portal_user.pk, last_mail_code())
    for index in range(3):
        login(client, username=f"guess{index}@example.de")
    response = login(client)
    assert response.json()["recaptcha_extra_check"] is True, response.json()


def test_an_attackers_100_guesses_do_not_find_the_code(client: Client, portal_user: User) -> None:
    with mock.patch("accounts.services.secrets.randbelow", return_value=42):
        user_id = login(client).json()["user_id"]
    answers = [verify(client, user_id, f"{guess:06d}").json().get("error_code") for guess in range(100)]
    # Five wrong tries spend the code: 000042 is refused like the rest.
    assert answers[:4] == ["OTP001"] * 4
    assert set(answers[4:]) == {"OTP002"}
    assert "tokens" not in verify(client, user_id, "000042").json()


def test_resend_waits_60_seconds_and_replaces_the_code(client: Client, portal_user: User) -> None:
    with freeze_time() as clock:
        user_id = login(client).json()["user_id"]
        first = last_mail_code()
        too_soon = resend(client, user_id)
        assert too_soon.status_code == 429 and int(too_soon["Retry-After"]) <= 61
        clock.tick(timedelta(seconds=61))
        assert resend(client, user_id).json()["detail"].startswith("Ein neuer Code")
        second = last_mail_code()
        if first != second:
            assert verify(client, user_id, first).json()["error_code"] == "OTP001"
        assert verify(client, user_id, second).status_code == 200


def test_no_code_is_sent_or_taken_for_a_login_that_did_not_happen(client: Client, portal_user: User) -> None:
    assert resend(client, portal_user.pk).json()["error_code"] == "OTP003"
    assert verify(client, portal_user.pk, "123456").json()["error_code"] == "OTP003"
    assert verify(client, 999999, "123456").json()["error_code"] == "OTP003"
    assert not LoginCode.objects.exists()


def test_codes_expire_after_ten_minutes(client: Client, portal_user: User) -> None:
    with freeze_time() as clock:
        user_id = login(client).json()["user_id"]
        code = last_mail_code()
        clock.tick(timedelta(minutes=10, seconds=1))
        assert verify(client, user_id, code).json()["error_code"] == "OTP001"


# --- password reset ---------------------------------------------------------------------------


def reset_request(client: Client, email: str, host: str = "autohaus.localhost", **headers: str) -> Any:
    return committed(
        lambda: client.post(
            "/api/auth/user/password-reset/verify-email/",
            {"email": email},
            content_type="application/json",
            HTTP_HOST=host,
            headers=headers,
        )
    )


def complete(
    client: Client, query: dict[str, list[str]], password: str, again: str | None = None, **extra: Any
) -> Any:
    body = {
        "password": password,
        "password_again": password if again is None else again,
        "token": query["token"][0],
        "uidb64": query["id"][0],
        "recaptcha": solve_bot_check(client),
    }
    body.update(extra)
    return client.patch(
        "/api/auth/user/password-reset/complete/",
        body,
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )


def test_a_reset_for_an_unknown_address_is_email001(client: Client, db: None) -> None:
    response = reset_request(client, "fremd@example.de")
    assert response.status_code == 400
    assert response.json()["error_code"] == "EMAIL001"
    english = reset_request(client, "fremd2@example.de", **{"accept-language": "en-GB,en;q=0.9"})
    assert english.json()["detail"] == "The email you entered is not registered with your organisation"


def test_a_password_reset_end_to_end(client: Client, portal_user: User) -> None:
    # given a login with tokens from before
    login(client)
    old = verify(client, portal_user.pk, last_mail_code()).json()["tokens"]

    assert reset_request(client, " PORTAL@example.de ").status_code == 200
    link = last_mail_link()
    parts = urlsplit(link)
    assert parts.netloc == "autohaus.localhost" and parts.path == "/portal/auth/reset-password"
    query = parse_qs(parts.query)
    assert "is_user_creation" not in query
    token, uid = query["token"][0], query["id"][0]

    for path in (f"verify/{token}/{uid}/", f"verify{token}/{uid}/"):
        checked = client.get(f"/api/auth/user/password-reset/{path}", HTTP_HOST="autohaus.localhost")
        assert checked.status_code == 200, path
        assert checked.json()["email"] == EMAIL

    assert complete(client, query, "Neu_Passwort1!").status_code == 200

    assert login(client, password="Neu_Passwort1!").status_code == 200
    assert login(client).status_code == 401
    # the link is spent, and the tokens from before the reset are revoked
    assert complete(client, query, "Noch_neuer2!").json()["error_code"] == "RESET001"
    refreshed = client.post(
        "/api/auth/user/token/refresh/",
        {"refresh": old["refresh"]},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    assert refreshed.status_code == 401


@pytest.mark.parametrize(
    ("password", "again", "errors"),
    [
        (
            "",
            "",
            {
                "password": ["Neues Passwort ist erforderlich"],
                "password_again": ["Passwort wiederholen ist erforderlich"],
            },
        ),
        ("Ab1!", "Ab1!", {"password": ["Das neue Passwort muss mindestens 8 Zeichen lang sein"]}),
        ("abcdefg1!", "abcdefg1!", {"password": ["pattern"]}),
        ("Abcdefgh!", "Abcdefgh!", {"password": ["pattern"]}),
        ("Abcdefg12", "Abcdefg12", {"password": ["pattern"]}),
        ("Abcdefg1!€", "Abcdefg1!€", {"password": ["pattern"]}),
        (
            "Abcdefg1!",
            "Abcdefg1?",
            {"password_again": ["Neues Passwort und wiederholtes Passwort müssen übereinstimmen"]},
        ),
    ],
)
def test_the_password_rules_hold_on_the_server(
    client: Client, portal_user: User, password: str, again: str, errors: dict[str, list[str]]
) -> None:
    reset_request(client, EMAIL)
    query = parse_qs(urlsplit(last_mail_link()).query)
    response = complete(client, query, password, again)
    assert response.status_code == 400
    body = response.json()
    assert set(body) == set(errors)
    for field, messages in errors.items():
        if messages == ["pattern"]:
            assert body[field][0].startswith("Das Passwort braucht einen Klein- und einen Großbuchstaben")
        else:
            assert body[field] == messages
    assert login(client).status_code == 200  # unchanged


def test_reset_complete_needs_the_bot_check(client: Client, portal_user: User) -> None:
    reset_request(client, EMAIL)
    query = parse_qs(urlsplit(last_mail_link()).query)
    response = complete(client, query, "Neu_Passwort1!", recaptcha="")
    assert response.status_code == 400
    assert response.json() == {"recaptcha": ["Invalid recaptcha"]}


def test_reset_requests_wait_a_minute_per_address(client: Client, portal_user: User) -> None:
    assert reset_request(client, EMAIL).status_code == 200
    assert reset_request(client, EMAIL).status_code == 429
    assert len(mail.outbox) == 1


def test_a_password_reset_revokes_the_device_cookie(client: Client, portal_user: User) -> None:
    # given a browser that passed the e-mailed code (a known device)
    login(client)
    verify(client, portal_user.pk, last_mail_code())
    assert login(client).json()["recaptcha_extra_check"] is False

    # when the password is reset (after a suspected takeover, say)
    reset_request(client, EMAIL)
    assert complete(client, parse_qs(urlsplit(last_mail_link()).query), "Neu_Passwort1!").status_code == 200

    # then the cookie from before no longer skips the code
    after = login(client, password="Neu_Passwort1!")
    assert after.status_code == 200 and after.json()["recaptcha_extra_check"] is True
    assert after.json()["tokens"] is None
    # and passing the code again makes this browser known under the new password
    verify(client, portal_user.pk, last_mail_code())
    assert login(client, password="Neu_Passwort1!").json()["recaptcha_extra_check"] is False


def test_a_reset_link_of_partner_a_is_invalid_on_partner_b(client: Client, portal_user: User) -> None:
    with schema_context("p_stadtwerk"):
        # The same address and password on partner B (user ids may well match across schemas).
        User.objects.create_user(username=EMAIL, email=EMAIL, password=PASSWORD)
    reset_request(client, EMAIL)
    query = parse_qs(urlsplit(last_mail_link()).query)
    token, uid = query["token"][0], query["id"][0]
    response = client.get(
        f"/api/auth/user/password-reset/verify/{token}/{uid}/", HTTP_HOST="stadtwerk.localhost"
    )
    assert response.status_code == 400 and response.json()["error_code"] == "RESET001"


def test_a_flow_owner_without_password_gets_an_account_creation_link(client: Client, db: None) -> None:
    owner = User.objects.create_user(username="flow@example.de", email="flow@example.de")
    assert reset_request(client, "flow@example.de").status_code == 200
    assert mail.outbox[-1].subject.startswith("Ihr Zugang zum Kundenportal")
    query = parse_qs(urlsplit(last_mail_link()).query)
    assert query["is_user_creation"] == ["true"]
    token, uid = query["token"][0], query["id"][0]
    checked = client.get(
        f"/api/auth/user/password-reset/verify/{token}/{uid}/", HTTP_HOST="autohaus.localhost"
    )
    assert checked.json()["is_user_creation"] is True
    assert complete(client, query, "Erstes_Passwort1!").status_code == 200
    owner.refresh_from_db()
    assert owner.check_password("Erstes_Passwort1!")


# --- signup -----------------------------------------------------------------------------------

SIGNUP_URL = "http://autohaus.localhost:8000/portal/auth/signup"


def signup_send(client: Client, email: str) -> Any:
    return committed(
        lambda: client.post(
            "/api/end_user_portal/email_register/",
            {"email": email, "partner": "autohaus", "verify_email_url": SIGNUP_URL},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )
    )


def test_signup_for_an_address_the_partner_does_not_know(client: Client, db: None) -> None:
    response = signup_send(client, "fremd@example.de")
    assert response.status_code == 400
    assert response.json()["error_code"] == "EMAIL002"
    assert not mail.outbox


def test_signup_of_a_flow_owner_end_to_end(client: Client, db: None) -> None:
    User.objects.create_user(username="flow@example.de", email="flow@example.de")
    sent = signup_send(client, "flow@example.de")
    assert sent.status_code == 200
    link = last_mail_link()
    assert link.startswith(SIGNUP_URL + "?key=")
    key = parse_qs(urlsplit(link).query)["key"][0]

    verified = client.post(
        "/api/end_user_portal/verify_token/",
        {"key": key},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    body = verified.json()
    assert body["email_address"] == "flow@example.de" and body["is_unknown_user"] is True
    access = body["token"]["access"]
    again = client.post(
        "/api/end_user_portal/verify_token/",
        {"key": key},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    assert again.json()["error_code"] == "LINK001"

    bearer: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {access}", "HTTP_HOST": "autohaus.localhost"}
    assert client.get(PROFILE, **bearer).status_code == 403  # no account yet: the web app shows signup
    weak = client.post(
        "/api/end_user_portal/create_account/",
        {"password": "kurz", "subdomain": "autohaus", "recaptcha": solve_bot_check(client)},
        content_type="application/json",
        **bearer,
    )
    assert weak.status_code == 400 and "password" in weak.json()
    wrong_partner = client.post(
        "/api/end_user_portal/create_account/",
        {"password": "Gutes_Passwort1!", "subdomain": "stadtwerk", "recaptcha": solve_bot_check(client)},
        content_type="application/json",
        **bearer,
    )
    assert wrong_partner.status_code == 400 and "subdomain" in wrong_partner.json()
    created = client.post(
        "/api/end_user_portal/create_account/",
        {"password": "Gutes_Passwort1!", "subdomain": "autohaus", "recaptcha": solve_bot_check(client)},
        content_type="application/json",
        **bearer,
    )
    assert created.status_code == 201
    # the flow's tokens were revoked with the new password; the answer carries this session's new ones
    stale = client.post(
        "/api/auth/user/token/refresh/",
        {"refresh": body["token"]["refresh"]},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    assert stale.status_code == 401
    fresh = created.json()["tokens"]
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {fresh['access']}", "HTTP_HOST": "autohaus.localhost"}
    assert client.get(PROFILE, **bearer).status_code == 200
    # create_account proved the e-mail on this browser: the login needs no code
    assert (
        login(client, username="flow@example.de", password="Gutes_Passwort1!").json()["recaptcha_extra_check"]
        is False
    )


def test_create_account_needs_a_token(client: Client, db: None) -> None:
    response = client.post(
        "/api/end_user_portal/create_account/",
        {"password": "Gutes_Passwort1!", "subdomain": "autohaus"},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    assert response.status_code == 401


def test_signup_links_last_a_day(client: Client, db: None) -> None:
    User.objects.create_user(username="flow@example.de", email="flow@example.de")
    with freeze_time() as clock:
        signup_send(client, "flow@example.de")
        key = parse_qs(urlsplit(last_mail_link()).query)["key"][0]
        clock.tick(timedelta(hours=24, seconds=1))
        response = client.post(
            "/api/end_user_portal/verify_token/",
            {"key": key},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )
    assert response.json()["error_code"] == "LINK001"


def test_a_registration_code_is_not_a_portal_code(client: Client, portal_user: User) -> None:
    """The two kinds of codes never stand in for each other."""
    user_id = login(client).json()["user_id"]
    portal_code = last_mail_code()
    flow = client.post(
        "/api/auth/registration/otp/verify/",
        {"email": EMAIL, "otp_code": portal_code},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    assert flow.json()["error_code"] == "OTP001"
    assert verify(client, user_id, portal_code).status_code == 200
