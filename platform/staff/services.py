"""Staff sign-in: the admin login's throttle, TOTP enrolment with backup codes, and the
second-factor check. Devices are django-otp's, in the schema of the host (a partner's schema
for its back office, the public schema for platform admins)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlencode

import qrcode
from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.hashers import make_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone, translation
from django_otp import devices_for_user
from django_otp.models import Device
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context
from qrcode.image.svg import SvgPathFillImage

from accounts.mails import mail_secret_seal
from accounts.models import User, canonical_name
from accounts.throttle import failure_key, failure_record, failure_wait
from common.metrics import LOGINS
from staff.audit import audit_record
from staff.errors import (
    BAD_CREDENTIALS,
    EMAIL_TAKEN,
    INVITE_INVALID,
    LAST_ADMIN,
    LOGIN_THROTTLED,
    NOT_FOUND,
    NOT_YOURSELF,
    PASSWORD_INVALID,
    ROLE_INVALID,
    StaffError,
)
from staff.models import StaffInvite, StaffMember
from staff.tasks import mail_staff_invite
from tenants.middleware import partner_site_url
from tenants.models import Partner

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
    """The demo back office's authenticator with a known key (`tools/demo_totp.py` reads it)."""
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


def enrolment_otpauth_uri(enrolment: Enrolment, issuer: str) -> str:
    """The otpauth:// URI of an enrolment (for an app on the same phone: a link instead of a scan)."""
    return _otpauth_uri(enrolment.device, issuer)


def staff_issuer(partner_name: str | None) -> str:
    """The name an authenticator app shows next to the codes."""
    return f"THG-Quote {partner_name}" if partner_name else "THG-Quote Plattform"


def enrolment_for(*, user: User, issuer: str) -> Enrolment:
    """The pending enrolment of a user without an authenticator, or a new one."""
    return totp_enrolment_pending(user=user, issuer=issuer) or totp_enrolment_start(user=user, issuer=issuer)


def backup_codes(user: User) -> list[str]:
    """The unused backup codes of the user's confirmed backup device."""
    return list(
        StaticToken.objects.filter(device__user=user, device__confirmed=True)
        .order_by("pk")
        .values_list("token", flat=True)
    )


# --- Partner area: members, invites, login ---------------------------------------------------

INVITE_LIFETIME = timedelta(hours=72)
INVITE_PATH = "partner/invite/{key}"


def _invite_digest(key: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), f"staff-invite:{key}".encode(), hashlib.sha256).hexdigest()


def member_snapshot(member: StaffMember) -> dict[str, Any]:
    """What the audit log keeps of a member before and after a change."""
    return {
        "email": member.user.email,
        "name": member.name,
        "role": member.role,
        "is_active": member.is_active,
    }


def staff_invite(
    *,
    partner: Partner,
    email: str,
    name: str,
    role: str,
    invited_by: StaffMember | None,
    request: HttpRequest | None = None,
) -> StaffInvite:
    """Invite somebody to the partner area: an e-mailed set-password link, valid 72 hours, used
    once. An earlier open invite for the same address ends now (the newest link counts).
    `invited_by` None: the platform (the onboarding console's first partner admin). The link is
    the partner's configured domain; `request` keeps a development run's port on *.localhost
    (tenants.middleware.partner_site_url), never its Host."""
    email = email.strip()
    if role not in StaffMember.Role.values:
        raise StaffError(ROLE_INVALID, field="role")
    canonical = canonical_name(email)
    now = timezone.now()
    # In the partner's schema whoever calls (the onboarding console runs on the public host).
    with schema_context(partner.schema_name), transaction.atomic():
        existing = User.objects.filter(email_canonical=canonical).first()
        if existing is not None and (
            StaffMember.objects.filter(user=existing).exists()
            or not (existing.is_staff or existing.is_superuser)
        ):
            # A member already, or an owner's account: one account per e-mail and partner, and
            # an owner never becomes staff by an invite.
            raise StaffError(EMAIL_TAKEN, field="email")
        StaffInvite.objects.filter(email__iexact=email, used_at__isnull=True, expires_at__gt=now).update(
            expires_at=now, sealed=""
        )
        key = secrets.token_urlsafe(32)
        link = partner_site_url(partner, request) + INVITE_PATH.format(key=key)
        invite = StaffInvite.objects.create(
            email=email,
            name=name.strip(),
            role=role,
            key_hash=_invite_digest(key),
            sealed=mail_secret_seal(link),
            expires_at=now + INVITE_LIFETIME,
            invited_by=invited_by,
        )
        audit_record(
            actor=invited_by,
            action="staff.invite",
            obj=invite,
            after={"email": email, "name": invite.name, "role": role, "expires_at": invite.expires_at},
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_staff_invite(schema, invite.pk))
    return invite


def staff_invite_open(*, key: str) -> StaffInvite | None:
    """The invite of a mailed key while it is unused and unexpired; None otherwise."""
    invite = StaffInvite.objects.select_related("invited_by").filter(key_hash=_invite_digest(key)).first()
    return invite if invite is not None and invite.is_open and _inviter_may(invite) else None


def staff_invite_accept(*, key: str, password: str, language: str = "de") -> User:
    """Set the password of the invited account and make it a member. The second factor is
    enrolled next; until then the account opens nothing (a session needs a verified device)."""
    with transaction.atomic():
        invite = (
            StaffInvite.objects.select_for_update(of=("self",))
            .select_related("invited_by")
            .filter(key_hash=_invite_digest(key))
            .first()
        )
        if invite is None or not invite.is_open or not _inviter_may(invite):
            raise StaffError(INVITE_INVALID, status=404)
        user = User.objects.filter(email_canonical=canonical_name(invite.email)).first()
        if user is not None and (
            StaffMember.objects.filter(user=user).exists() or not (user.is_staff or user.is_superuser)
        ):
            raise StaffError(EMAIL_TAKEN, field="email")
        if user is None:
            # Staff are kept out of the owner flows by is_staff (accounts.services.OWNERS); the
            # admin shows them nothing without permissions of their own.
            user = User(username=invite.email, email=invite.email, is_staff=True)
        try:
            with translation.override(language):
                password_validation.validate_password(password, user)
        except ValidationError as exc:
            raise StaffError(PASSWORD_INVALID, field="password", text=" ".join(exc.messages)) from None
        user.set_password(password)
        user.is_active = True
        user.save()
        member = StaffMember.objects.create(
            user=user,
            role=invite.role,
            name=invite.name or invite.email,
            invited_by=invite.invited_by,
            language=language,
        )
        invite.used_at = timezone.now()
        invite.member = member
        invite.sealed = ""
        invite.save(update_fields=["used_at", "member", "sealed"])
        audit_record(actor=member, action="staff.invite_accept", obj=member, after=member_snapshot(member))
    return user


def _inviter_may(invite: StaffInvite) -> bool:
    """An invite counts while whoever sent it is still an active partner admin (the platform's
    own invites, invited_by None, always): access given by somebody who lost theirs ends too."""
    inviter = invite.invited_by
    return inviter is None or (inviter.is_active and inviter.role == StaffMember.Role.PARTNER_ADMIN)


def _invites_expire(invites: Any) -> int:
    """Ends open invites now: the link opens nothing, the sealed link is gone."""
    return int(
        invites.filter(used_at__isnull=True, expires_at__gt=timezone.now()).update(
            expires_at=timezone.now(), sealed=""
        )
    )


def staff_invite_revoke(*, invite_id: int, actor: StaffMember) -> StaffInvite:
    """Withdraws an open invite (404 for an unknown, used or expired one); audited."""
    with transaction.atomic():
        invite = StaffInvite.objects.select_for_update().filter(pk=invite_id).first()
        if invite is None or not invite.is_open:
            raise StaffError(NOT_FOUND, status=404)
        _invites_expire(StaffInvite.objects.filter(pk=invite.pk))
        invite.refresh_from_db()
        audit_record(
            actor=actor,
            action="staff.invite_revoke",
            obj=invite,
            before={"email": invite.email, "role": invite.role},
        )
    return invite


def staff_member_ensure(*, user: User, role: str, name: str) -> StaffMember:
    """A member for an existing staff user (the demo back office, the onboarding console)."""
    member, _ = StaffMember.objects.update_or_create(
        user=user, defaults={"role": role, "name": name, "is_active": True}
    )
    return member


def staff_member_update(
    *, member: StaffMember, actor: StaffMember | None, role: str | None = None, is_active: bool | None = None
) -> StaffMember:
    """A new role or (de)activation. Nobody changes themselves; the last active partner admin
    stays an active partner admin. A deactivated member is refused on the next call, whatever
    sessions it holds (staff.auth reads the member on every call)."""
    if role is not None and role not in StaffMember.Role.values:
        raise StaffError(ROLE_INVALID, field="role")
    with transaction.atomic():
        # Every admin row locked, in one order: two admins demoting each other wait in turn.
        admins = list(
            StaffMember.objects.select_for_update()
            .filter(role=StaffMember.Role.PARTNER_ADMIN, is_active=True)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        member = StaffMember.objects.select_for_update().select_related("user").get(pk=member.pk)
        if actor is not None and member.pk == actor.pk:
            raise StaffError(NOT_YOURSELF)
        before = member_snapshot(member)
        if role is not None:
            member.role = role
        if is_active is not None:
            member.is_active = is_active
        stays_admin = member.is_active and member.role == StaffMember.Role.PARTNER_ADMIN
        if member.pk in admins and not stays_admin and len(admins) <= 1:
            raise StaffError(LAST_ADMIN)
        after = member_snapshot(member)
        if after == before:
            return member
        # every session of the member ends: a new login gets the new role
        member.sessions_since = timezone.now()
        member.save(update_fields=["role", "is_active", "sessions_since"])
        if not stays_admin:
            # whatever this member invited somebody to ends with its own admin access
            _invites_expire(StaffInvite.objects.filter(invited_by=member))
        action = "staff.role_change" if before["role"] != after["role"] else "staff.update"
        if before["is_active"] != after["is_active"]:
            action = "staff.activate" if member.is_active else "staff.deactivate"
        audit_record(actor=actor, action=action, obj=member, before=before, after=after)
    return member


def staff_login_password(*, username: str, password: str, client_ip: str) -> User:
    """The password step of the partner area: username or e-mail of an active member. The
    admin login's growing delays (per username, then per address) apply; a wrong password, an
    unknown name and an owner's account are refused alike."""
    wait = admin_login_wait(username=username, client_ip=client_ip)
    if wait:
        raise StaffError(LOGIN_THROTTLED, status=429, wait=wait)
    canonical = username_key(username)
    candidates = list(
        User.objects.filter(
            Q(username_canonical=canonical) | Q(email_canonical=canonical),
            is_active=True,
            staff_member__is_active=True,
        )
    )
    # A username wins over another user's e-mail of the same spelling.
    candidates.sort(key=lambda user: user.username_canonical != canonical)
    user = candidates[0] if candidates else None
    if user is None:
        make_password(password)  # the same work as a real check: no timing hint
        ok = False
    else:
        ok = user.check_password(password)
    if not ok or user is None:
        admin_login_failed(username=username, client_ip=client_ip)
        raise StaffError(BAD_CREDENTIALS)
    admin_login_succeeded(username=username)
    return user


def staff_digest_set(*, member: StaffMember, enabled: bool) -> StaffMember:
    """The member's own daily mail digest (operations.digest) on or off; audited."""
    with transaction.atomic():
        member = StaffMember.objects.select_for_update().select_related("user").get(pk=member.pk)
        if member.digest_enabled == enabled:
            return member
        member.digest_enabled = enabled
        member.save(update_fields=["digest_enabled"])
        audit_record(
            actor=member,
            action="staff.digest_change",
            obj=member,
            before={"digest_enabled": not enabled},
            after={"digest_enabled": enabled},
        )
    return member
