"""Staff sign-in: the admin login's throttle, TOTP enrolment with backup codes, and the
second-factor check. Devices are django-otp's, in the schema of the host (a partner's schema
for its back office, the public schema for platform admins)."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from urllib.parse import quote, urlencode

import qrcode
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone
from django_otp import devices_for_user
from django_otp.models import Device
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from qrcode.image.svg import SvgPathFillImage

from accounts.models import User, canonical_name
from accounts.throttle import failure_key, failure_record, failure_wait
from config.metrics import LOGINS

BACKUP_CODE_COUNT = 10
TOTP_DEVICE_NAME = "Authenticator-App"
BACKUP_DEVICE_NAME = "Backup-Codes"


# --- Password step: growing delays per username and per client address --------------------


def username_key(username: str) -> str:
    """One counter for every spelling of a username (case, compatibility forms)."""
    return canonical_name(username.strip())


def _failure_key(kind: str, value: str) -> str:
    schema = getattr(connection, "schema_name", "public")  # django-tenants' wrapper
    return failure_key("admin-login-failures", schema, kind, value)


def admin_login_wait(*, username: str, client_ip: str) -> int:
    """Seconds this login attempt has to wait (0: it may go ahead)."""
    free = settings.ADMIN_LOGIN_FREE_FAILURES
    wait = max(
        failure_wait(_failure_key("user", username_key(username)), free),
        failure_wait(_failure_key("address", client_ip), free),
    )
    if wait:
        LOGINS.labels(kind="admin", result="throttled").inc()
    return wait


def admin_login_failed(*, username: str, client_ip: str) -> None:
    LOGINS.labels(kind="admin", result="failed").inc()
    failure_record(_failure_key("user", username_key(username)), _failure_key("address", client_ip))


def admin_login_succeeded(*, username: str) -> None:
    LOGINS.labels(kind="admin", result="success").inc()
    # The address keeps its count: one right password must not reset a spraying client.
    cache.delete(_failure_key("user", username_key(username)))


# --- Second factor --------------------------------------------------------------------------


def staff_has_device(user: User) -> bool:
    return TOTPDevice.objects.devices_for_user(user, confirmed=True).exists()


@dataclass(frozen=True)
class Enrolment:
    device: TOTPDevice
    secret: str  # base32, for typing into an app by hand
    qr_data_url: str  # the otpauth:// URI as an inline SVG (CSP: img-src data:)
    backup_codes: list[str]


def _otpauth_uri(device: TOTPDevice, issuer: str) -> str:
    issuer = issuer.replace(":", "")
    label = quote(f"{issuer}:{device.user.get_username()}")
    params = urlencode(
        {"secret": _base32(device), "issuer": issuer, "digits": device.digits, "period": device.step}
    )
    return f"otpauth://totp/{label}?{params}"


def _base32(device: TOTPDevice) -> str:
    return base64.b32encode(device.bin_key).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class CodeCheck:
    device: Device | None
    wait: int  # > 0: every device refuses codes for this many seconds (django-otp's throttle)


def staff_code_verify(*, user: User, token: str) -> CodeCheck:
    """A code of the authenticator or one backup code; each device throttles itself after a
    wrong code (1 s, 2 s, 4 s ...), so guessing stops being worth it."""
    token = "".join(token.split())
    with transaction.atomic():
        devices = list(devices_for_user(user, confirmed=True, for_verify=True))
        allowed = [device for device in devices if _verify_allowed(device)[0]]
        if devices and not allowed:
            return CodeCheck(device=None, wait=min(_verify_allowed(d)[1] for d in devices))
        for device in allowed:
            if device.verify_token(token):
                return CodeCheck(device=device, wait=0)
    return CodeCheck(device=None, wait=0)


def _verify_allowed(device: Device) -> tuple[bool, int]:
    allowed, data = device.verify_is_allowed()
    if allowed:
        return True, 0
    until = (data or {}).get("locked_until")
    seconds = int((until - timezone.now()).total_seconds()) + 1 if until else 1
    return False, max(1, seconds)


def _enrolment(device: TOTPDevice, codes: list[str], issuer: str) -> Enrolment:
    svg = qrcode.make(_otpauth_uri(device, issuer), image_factory=SvgPathFillImage).to_string()
    return Enrolment(
        device=device,
        secret=_base32(device),
        qr_data_url="data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii"),
        backup_codes=codes,
    )


def totp_enrolment_start(*, user: User, issuer: str) -> Enrolment:
    """A new, unconfirmed authenticator and backup codes; earlier unconfirmed ones are dropped.
    Nothing counts until totp_enrolment_confirm saw a code of the new authenticator."""
    if staff_has_device(user):
        raise ValueError("this user has a second factor already")
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user, confirmed=False).delete()
        StaticDevice.objects.filter(user=user, confirmed=False).delete()
        device = TOTPDevice.objects.create(user=user, name=TOTP_DEVICE_NAME, confirmed=False)
        backup = StaticDevice.objects.create(user=user, name=BACKUP_DEVICE_NAME, confirmed=False)
        codes = [StaticToken.random_token() for _ in range(BACKUP_CODE_COUNT)]
        StaticToken.objects.bulk_create(StaticToken(device=backup, token=code) for code in codes)
    return _enrolment(device, codes, issuer)


def totp_enrolment_pending(*, user: User, issuer: str) -> Enrolment | None:
    """The enrolment begun earlier and not confirmed yet (the page shown again, same QR code)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("-pk").first()
    backup = StaticDevice.objects.filter(user=user, confirmed=False).order_by("-pk").first()
    if device is None or backup is None:
        return None
    return _enrolment(device, list(backup.token_set.order_by("pk").values_list("token", flat=True)), issuer)


def totp_enrolment_confirm(*, user: User, token: str) -> CodeCheck:
    """Confirm the pending authenticator (and its backup codes) with one of its codes."""
    with transaction.atomic():
        device = (
            TOTPDevice.objects.select_for_update().filter(user=user, confirmed=False).order_by("-pk").first()
        )
        if device is None:
            return CodeCheck(device=None, wait=0)
        allowed, wait = _verify_allowed(device)
        if not allowed:
            return CodeCheck(device=None, wait=wait)
        if not device.verify_token("".join(token.split())):
            return CodeCheck(device=None, wait=0)
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        StaticDevice.objects.filter(user=user, confirmed=False).update(confirmed=True)
    return CodeCheck(device=device, wait=0)


# --- Demo -----------------------------------------------------------------------------------


def demo_device_ensure(*, user: User, key: str) -> TOTPDevice:
    """The demo back office's authenticator with a known key (`manage.py demo_totp` reads it)."""
    device, _ = TOTPDevice.objects.update_or_create(
        user=user, name=TOTP_DEVICE_NAME, defaults={"key": key, "confirmed": True}
    )
    return device


def totp_code_now(device: TOTPDevice) -> str:
    """A code the device accepts now: the current one, or the next step's when the current one
    was used already (a code is accepted once); waits when even that one was used."""
    while True:
        device.refresh_from_db()
        moment = time.time()
        for offset in range(device.tolerance + 1):
            candidate = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift + offset)
            candidate.time = moment
            if candidate.t() > device.last_t:
                return f"{candidate.token():0{device.digits}d}"
        time.sleep(1)
