"""The admin on every host: password, then a second factor (django-otp); first login enrols an
authenticator by QR code with backup codes; wrong passwords and wrong codes slow down."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from accounts.models import User
from quota.services import back_office_staff_ensure
from tests.staff_login import client_staff_login, staff_device, totp_code

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
PASSWORD = "Staff_2026!"
INDEX = "/admin/"
CHANGELIST = "/admin/quota/quotaapplication/"


@pytest.fixture(autouse=True)
def _in_autohaus() -> Iterator[None]:
    with schema_context("p_autohaus"):
        yield


@pytest.fixture
def anna() -> User:
    return back_office_staff_ensure(username="anna", email="anna@autohaus.example", password=PASSWORD)


def password_step(
    client: Client, username: str = "anna", password: str = PASSWORD, REMOTE_ADDR: str = "127.0.0.1"
) -> Any:
    return client.post(
        "/admin/login/", {"username": username, "password": password}, HTTP_HOST=HOST, REMOTE_ADDR=REMOTE_ADDR
    )


def test_a_password_alone_opens_no_admin_page(client: Client, anna: User) -> None:
    staff_device(anna)
    # when: the right password
    response = password_step(client)
    # then: the code step, and no admin page yet
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/code/")
    for path in (INDEX, CHANGELIST):
        blocked = client.get(path, HTTP_HOST=HOST)
        assert blocked.status_code == 302 and blocked["Location"].startswith("/admin/login/")
    assert "_auth_user_id" not in client.session  # nobody is logged in between the two steps


def test_password_and_code_open_the_back_office(client: Client, anna: User) -> None:
    device = staff_device(anna)
    password_step(client)
    wrong = client.post("/admin/login/code/", {"otp_token": "000000"}, HTTP_HOST=HOST)
    assert wrong.status_code == 200 and "stimmt nicht" in wrong.text
    device.throttling_failure_timestamp = timezone.now() - timedelta(seconds=5)
    device.save()

    right = client.post("/admin/login/code/", {"otp_token": totp_code(device)}, HTTP_HOST=HOST)

    assert right.status_code == 302 and right["Location"] == INDEX
    assert client.get(CHANGELIST, HTTP_HOST=HOST).status_code == 200


def test_a_code_is_accepted_once(client: Client, anna: User) -> None:
    device = staff_device(anna)
    code = totp_code(device)
    password_step(client)
    assert client.post("/admin/login/code/", {"otp_token": code}, HTTP_HOST=HOST).status_code == 302
    other = Client()
    password_step(other)
    replay = other.post("/admin/login/code/", {"otp_token": code}, HTTP_HOST=HOST)
    assert replay.status_code == 200 and "stimmt nicht" in replay.text


def test_django_otp_throttles_wrong_codes(client: Client, anna: User) -> None:
    device = staff_device(anna)
    password_step(client)
    # given: one wrong code
    client.post("/admin/login/code/", {"otp_token": "000000"}, HTTP_HOST=HOST)
    # when: the right code comes at once
    throttled = client.post("/admin/login/code/", {"otp_token": totp_code(device)}, HTTP_HOST=HOST)
    # then: refused until the device's delay (1 s, 2 s, 4 s ...) has passed
    assert throttled.status_code == 429 and "Zu viele Fehlversuche" in throttled.text
    device.refresh_from_db()
    assert device.throttling_failure_count == 1
    device.throttling_failure_timestamp = timezone.now() - timedelta(seconds=2)
    device.save()
    assert (
        client.post("/admin/login/code/", {"otp_token": totp_code(device)}, HTTP_HOST=HOST).status_code == 302
    )


def test_the_first_login_enrols_an_authenticator_with_backup_codes(client: Client, anna: User) -> None:
    # given: staff without a second factor
    assert not TOTPDevice.objects.filter(user=anna).exists()
    response = password_step(client)
    assert response["Location"].startswith("/admin/login/enrol/")

    page = client.get(response["Location"], HTTP_HOST=HOST)

    # then: a QR code served inline (the CSP allows data: images, no script) and ten backup codes
    assert page.status_code == 200
    qr = re.search(r'<img src="data:image/svg\+xml;base64,([^"]+)"', page.text)
    assert qr and base64.b64decode(qr.group(1)).startswith(b"<svg")
    secret = re.search(r'id="staff-totp-secret">([A-Z2-7]+)<', page.text)
    assert secret
    codes = re.findall(r"<li><code>([a-z0-9]+)</code></li>", page.text)
    assert len(codes) == 10
    assert "<script" not in page.text.split("</head>")[1]
    assert client.get(CHANGELIST, HTTP_HOST=HOST).status_code == 302  # nothing before the code

    # when: a code of the new authenticator (computed from the shown key, as an app does)
    key = base64.b32decode(secret.group(1) + "=" * (-len(secret.group(1)) % 8))
    wrong = client.post(response["Location"], {"otp_token": "123"}, HTTP_HOST=HOST)
    assert wrong.status_code == 200 and codes[0] in wrong.text  # the same enrolment again
    device = TOTPDevice.objects.get(user=anna)
    device.throttling_failure_timestamp = timezone.now() - timedelta(seconds=5)
    device.save()
    done = client.post(response["Location"], {"otp_token": f"{totp(key):06d}"}, HTTP_HOST=HOST)

    # then: logged in; the authenticator and the backup codes count from now on
    assert done.status_code == 302 and done["Location"] == INDEX
    assert client.get(CHANGELIST, HTTP_HOST=HOST).status_code == 200
    assert TOTPDevice.objects.get(user=anna).confirmed
    assert StaticDevice.objects.get(user=anna).confirmed

    # and: a backup code logs in once; the enrolment page is gone for good
    client.logout()
    assert password_step(client)["Location"].startswith("/admin/login/code/")
    assert client.get("/admin/login/enrol/", HTTP_HOST=HOST)["Location"].startswith("/admin/login/code/")
    assert client.post("/admin/login/code/", {"otp_token": codes[3]}, HTTP_HOST=HOST).status_code == 302
    client.logout()
    password_step(client)
    StaticDevice.objects.filter(user=anna).update(
        throttling_failure_timestamp=None, throttling_failure_count=0
    )
    again = client.post("/admin/login/code/", {"otp_token": codes[3]}, HTTP_HOST=HOST)
    assert again.status_code == 200 and "stimmt nicht" in again.text


def test_the_code_step_needs_the_password_step_first(client: Client, anna: User) -> None:
    device = staff_device(anna)
    response = client.post("/admin/login/code/", {"otp_token": totp_code(device)}, HTTP_HOST=HOST)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/?")
    assert client.get("/admin/login/enrol/", HTTP_HOST=HOST).status_code == 302


def test_owners_cannot_reach_the_admin(client: Client) -> None:
    User.objects.create_user(username="kunde@example.de", email="kunde@example.de", password="Kunde_2026!")
    refused = password_step(client, username="kunde@example.de", password="Kunde_2026!")
    assert refused.status_code == 200 and "errornote" in refused.text
    assert client.get("/admin/login/code/", HTTP_HOST=HOST).status_code == 302  # no pending step


def test_the_platform_admin_on_the_public_host_needs_a_second_factor_too(client: Client) -> None:
    with schema_context("public"):
        User.objects.create_superuser(username="ops", email="ops@example.de", password="Ops_2026!")
        step = client.post(
            "/admin/login/", {"username": "ops", "password": "Ops_2026!"}, HTTP_HOST="localhost"
        )
        assert step.status_code == 302 and step["Location"].startswith("/admin/login/enrol/")
        assert client.get("/admin/tenants/partner/", HTTP_HOST="localhost").status_code == 302
        client_staff_login(client, host="localhost", username="ops", password="Ops_2026!")
        assert client.get("/admin/tenants/partner/", HTTP_HOST="localhost").status_code == 200


def test_wrong_passwords_slow_down_per_username(client: Client, anna: User) -> None:
    staff_device(anna)
    # given: five wrong passwords for one username, each from another address
    for n in range(5):
        assert password_step(client, password="falsch", REMOTE_ADDR=f"10.0.0.{n}").status_code == 200
    # when: the right password, from yet another address, in another spelling of the name
    throttled = password_step(client, username="ANNA", REMOTE_ADDR="10.0.1.1")
    # then: it waits (and says how long); another user is not affected
    assert throttled.status_code == 429 and "Zu viele Fehlversuche" in throttled.text
    assert int(throttled["Retry-After"]) >= 1
    back_office_staff_ensure(username="bert", email="bert@autohaus.example", password=PASSWORD)
    assert password_step(client, username="bert", REMOTE_ADDR="10.0.1.1").status_code == 302


def test_wrong_passwords_slow_down_per_client_address(client: Client, anna: User) -> None:
    staff_device(anna)
    for n in range(5):
        password_step(client, username=f"rater{n}", password="falsch", REMOTE_ADDR="10.9.9.9")
    throttled = password_step(client, REMOTE_ADDR="10.9.9.9")
    assert throttled.status_code == 429
    assert password_step(client, REMOTE_ADDR="10.9.9.10").status_code == 302


def test_the_delay_grows_with_each_further_failure(client: Client, anna: User) -> None:
    from freezegun import freeze_time

    with freeze_time() as clock:
        for _ in range(5):
            password_step(client, password="falsch")
        assert password_step(client).status_code == 429
        clock.tick(timedelta(seconds=1.5))
        assert password_step(client, password="falsch").status_code == 200  # the sixth failure
        clock.tick(timedelta(seconds=1.5))
        assert password_step(client).status_code == 429  # now 2 s
        clock.tick(timedelta(seconds=1))
        assert password_step(client).status_code == 302
