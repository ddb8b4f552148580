"""Account writes: login codes and links, end users, token rotation."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import jwt
from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.core import signing
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode
from ninja_jwt.exceptions import TokenError
from ninja_jwt.token_blacklist.models import BlacklistedToken, OutstandingToken

from accounts.consent_book import consent_book
from accounts.errors import (
    BAD_CREDENTIALS,
    BOT_CHECK_FAILED,
    EMAIL_NOT_REGISTERED,
    EMAIL_UNKNOWN,
    INVALID_CODE,
    INVALID_LINK,
    INVALID_RESET,
    INVALID_TOKEN,
    LOGIN_THROTTLED,
    NO_PENDING_CHECK,
    SEND_TOO_SOON,
    TOO_MANY_ATTEMPTS,
    TOO_MANY_SENDS,
    AccountError,
)
from accounts.mails import mail_secret_seal
from accounts.models import LoginCode, LoginLink, User, canonical_name
from accounts.tasks import mail_login_code, mail_login_link, mail_password_reset
from accounts.throttle import failure_key, failure_record, failure_wait
from accounts.tokens import (
    LOGIN_ID,
    SESSION_START,
    PartnerRefreshToken,
    PartnerResetTokens,
    refresh_token_validate,
    tokens_issue,
)
from common.metrics import LOGINS
from common.partner_config import PartnerConfig
from tenants.models import Partner, is_local_host

CODE_PATTERN_LENGTH = 6
# Partner staff and platform admins sign in to the admin with a second factor, never through the
# owner flows (code, link, reset, signup): those answer for a staff e-mail as for any other
# address, mail nothing to it and log nobody in.
OWNERS = Q(is_staff=False, is_superuser=False)


def _is_staff(user: User) -> bool:
    return user.is_staff or user.is_superuser


def _staff_email(email: str) -> bool:
    return User.objects.filter(email_canonical=canonical_name(email)).exclude(OWNERS).exists()


def _digest(value: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), value.encode(), hashlib.sha256).hexdigest()


def _lock_address(email: str) -> None:
    """Serialise sends to one address, all its spellings alike (inside the caller's transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"login-send:{canonical_name(email)}"])


def _mail_address(email: str) -> str:
    """Where a code or link for this address goes, and the address its row is kept under: a
    known user's own stored address whatever spelling was typed. Mailing the typed variant
    (anſa@, dotless ı) instead would let a look-alike mailbox prove someone else's account."""
    stored = (
        User.objects.filter(email_canonical=canonical_name(email)).values_list("email", flat=True).first()
    )
    return stored if stored is not None else email


def _last_send(email: str) -> datetime | None:
    code = (
        LoginCode.objects.filter(email=email)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    link = (
        LoginLink.objects.filter(email=email)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    return max((t for t in (code, link) if t is not None), default=None)


def _send_allowed(*, partner: Partner, email: str, client_ip: str) -> None:
    last = _last_send(email)
    interval = settings.LOGIN_SEND_INTERVAL
    if last is not None and timezone.now() - last < interval:
        wait = interval - (timezone.now() - last)
        raise AccountError(SEND_TOO_SOON, status=429, retry_after=max(1, int(wait.total_seconds()) + 1))
    _address_budget(partner=partner, client_ip=client_ip)


def _address_budget(*, partner: Partner, client_ip: str) -> None:
    """Mails asked for by one client address per hour, over all e-mail addresses."""
    hour = timezone.now().strftime("%Y%m%d%H")
    key = f"login-sends:{partner.schema_name}:{client_ip}:{hour}"
    cache.add(key, 0, timeout=3600)
    if cache.incr(key) > settings.LOGIN_SENDS_PER_ADDRESS_HOUR:
        raise AccountError(TOO_MANY_SENDS, status=429, retry_after=3600)


def _code_issue(*, email: str, purpose: str) -> LoginCode:
    """A new code for the address (inside the caller's transaction); it replaces earlier ones.
    The code itself is kept only sealed for the mail task (accounts.mails)."""
    code = f"{secrets.randbelow(10**CODE_PATTERN_LENGTH):0{CODE_PATTERN_LENGTH}d}"
    now = timezone.now()
    LoginCode.objects.filter(email=email, purpose=purpose, used_at__isnull=True, expires_at__gt=now).update(
        expires_at=now
    )
    return LoginCode.objects.create(
        email=email,
        purpose=purpose,
        code_hash=_digest(f"{email}:{code}"),
        sealed=mail_secret_seal(code),
        expires_at=now + settings.LOGIN_CODE_LIFETIME,
    )


def login_code_send(*, partner: Partner, email: str, client_ip: str) -> None:
    email = _mail_address(email)
    with transaction.atomic():
        _lock_address(email)
        _send_allowed(partner=partner, email=email, client_ip=client_ip)
        row = _code_issue(email=email, purpose=LoginCode.Purpose.REGISTRATION)
        schema = partner.schema_name
        if not _staff_email(email):
            transaction.on_commit(lambda: mail_login_code(schema, row.pk))


def login_code_verify(*, partner: Partner, email: str, code: str) -> dict[str, str]:
    email = _mail_address(email)
    _code_claim(email=email, purpose=LoginCode.Purpose.REGISTRATION, code=code)
    user = end_user_get_or_create(email=email)
    if _is_staff(user):
        raise AccountError(INVALID_CODE)
    return tokens_issue(user=user, partner=partner)


def _code_claim(*, email: str, purpose: str, code: str) -> None:
    """Use the address's current code: five tries, ten minutes, once (also under concurrency)."""
    now = timezone.now()
    active = (
        LoginCode.objects.filter(email=email, purpose=purpose, used_at__isnull=True, expires_at__gt=now)
        .order_by("-created_at")
        .first()
    )
    if active is None:
        raise AccountError(INVALID_CODE)
    if active.attempts >= settings.LOGIN_CODE_MAX_ATTEMPTS:
        raise AccountError(TOO_MANY_ATTEMPTS)
    if not (code.isdigit() and hmac.compare_digest(active.code_hash, _digest(f"{email}:{code}"))):
        counted = LoginCode.objects.filter(
            pk=active.pk, attempts__lt=settings.LOGIN_CODE_MAX_ATTEMPTS
        ).update(attempts=F("attempts") + 1)
        if not counted or active.attempts + 1 >= settings.LOGIN_CODE_MAX_ATTEMPTS:
            raise AccountError(TOO_MANY_ATTEMPTS)
        raise AccountError(INVALID_CODE)
    # Single use, also under concurrency: only one request flips used_at.
    claimed = LoginCode.objects.filter(
        pk=active.pk, used_at__isnull=True, attempts__lt=settings.LOGIN_CODE_MAX_ATTEMPTS
    ).update(used_at=now)
    if claimed != 1:
        raise AccountError(INVALID_CODE)


def verify_url_build(*, partner: Partner, verify_email_url: str, key: str) -> str:
    """The magic link: the web app's verify URL (with its own query keys) plus `key`."""
    parts = urlsplit(verify_email_url)
    hosts = {domain.lower() for domain in partner.domains.values_list("domain", flat=True)}
    host = (parts.hostname or "").lower()
    # https on the partner's own host; plain http only on a developer's *.localhost.
    schemes = {"https", "http"} if is_local_host(host) else {"https"}
    if parts.scheme not in schemes or host not in hosts or parts.username is not None:
        raise ValueError("verify_email_url must point to this partner's own site")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "key"]
    query.append(("key", key))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def login_link_send(*, partner: Partner, email: str, verify_email_url: str, client_ip: str) -> None:
    email = _mail_address(email)
    key = secrets.token_urlsafe(32)
    link = verify_url_build(partner=partner, verify_email_url=verify_email_url, key=key)
    with transaction.atomic():
        _lock_address(email)
        _send_allowed(partner=partner, email=email, client_ip=client_ip)
        row = _link_issue(email=email, key=key, link=link, purpose=LoginLink.Purpose.REGISTRATION)
        schema = partner.schema_name
        if not _staff_email(email):
            transaction.on_commit(lambda: mail_login_link(schema, row.pk))


def _link_issue(*, email: str, key: str, link: str, purpose: str) -> LoginLink:
    now = timezone.now()
    lifetime = (
        settings.SIGNUP_LINK_LIFETIME if purpose == LoginLink.Purpose.SIGNUP else settings.LOGIN_LINK_LIFETIME
    )
    LoginLink.objects.filter(email=email, purpose=purpose, used_at__isnull=True, expires_at__gt=now).update(
        expires_at=now
    )
    return LoginLink.objects.create(
        email=email,
        purpose=purpose,
        key_hash=_digest(key),
        sealed=mail_secret_seal(link),
        expires_at=now + lifetime,
    )


def _link_claim(*, key: str, purpose: str) -> LoginLink:
    now = timezone.now()
    link = LoginLink.objects.filter(
        key_hash=_digest(key), purpose=purpose, used_at__isnull=True, expires_at__gt=now
    ).first()
    if link is None or LoginLink.objects.filter(pk=link.pk, used_at__isnull=True).update(used_at=now) != 1:
        raise AccountError(INVALID_LINK)
    return link


def login_link_verify(*, partner: Partner, key: str) -> dict[str, str]:
    link = _link_claim(key=key, purpose=LoginLink.Purpose.REGISTRATION)
    user = end_user_get_or_create(email=link.email)
    if _is_staff(user):
        raise AccountError(INVALID_LINK)
    return tokens_issue(user=user, partner=partner)


def end_user_get_or_create(*, email: str) -> User:
    """The partner's user for this e-mail: an unknown e-mail becomes a new end user. A staff
    account is returned as it is: callers refuse it (see OWNERS)."""
    user = User.objects.filter(email_canonical=canonical_name(email)).first()
    if user is not None:
        return user
    try:
        with transaction.atomic():
            user = User(username=email if len(email) <= 150 else secrets.token_hex(16), email=email)
            user.set_unusable_password()
            user.save()
            return user
    except IntegrityError:
        # Created by a concurrent login of the same address.
        return User.objects.get(email_canonical=canonical_name(email))


class _SpentRefreshProbe(PartnerRefreshToken):
    """Checks a refresh token like the real one (signature, expiry, type) but not the
    blacklist: it tells a replay of a genuine rotated token from garbage."""

    def check_blacklist(self) -> None:
        return None


def _spent_refresh(raw: str, partner: Partner) -> _SpentRefreshProbe | None:
    """The token, if it is genuine, of this partner, unexpired and already blacklisted."""
    try:
        token = _SpentRefreshProbe(raw)
    except TokenError:
        return None
    if token.get("aud") != partner.schema_name:
        return None
    if not BlacklistedToken.objects.filter(token__jti=token.get("jti")).exists():
        return None
    return token


def _login_revoke(*, user_id: Any, login_id: Any) -> None:
    """Blacklist every token of one login (its rotation chain). A token from before login ids
    names no chain: then every token of the user goes, the safe side."""
    with transaction.atomic():
        live = OutstandingToken.objects.filter(
            user_id=user_id, blacklistedtoken__isnull=True, expires_at__gt=timezone.now()
        )
        for outstanding in live:
            try:
                claims = jwt.decode(outstanding.token, options={"verify_signature": False})
            except jwt.InvalidTokenError:
                claims = {}
            if login_id is None or claims.get(LOGIN_ID) in (None, login_id):
                BlacklistedToken.objects.get_or_create(token=outstanding)


def token_rotate(*, partner: Partner, refresh: str) -> dict[str, str]:
    try:
        token = refresh_token_validate(refresh, partner)
    except AccountError:
        spent = _spent_refresh(refresh, partner)
        if spent is not None:
            # Reuse detection: a rotated token presented again means two holders (a thief
            # and the owner); the whole login ends, also the newest refresh token.
            _login_revoke(user_id=spent.get("user_id"), login_id=spent.get(LOGIN_ID))
        raise
    user = User.objects.filter(pk=token.get("user_id"), is_active=True).first()
    if user is None:
        raise AccountError(INVALID_TOKEN, status=401)
    with transaction.atomic():
        try:
            # get_or_create underneath: (row, created); not created means already spent.
            _, fresh = cast(Any, token.blacklist())
        except IntegrityError:
            fresh = False
        if fresh:
            start: Any = token.get(SESSION_START)
            return tokens_issue(
                user=user,
                partner=partner,
                session_start=int(start) if start else None,
                login_id=cast(Any, token.get(LOGIN_ID)),
            )
    # Rotated already by a concurrent refresh with the same token: a reuse as well.
    _login_revoke(user_id=user.pk, login_id=token.get(LOGIN_ID))
    raise AccountError(INVALID_TOKEN, status=401)


def token_revoke(*, partner: Partner, refresh: str) -> None:
    token = refresh_token_validate(refresh, partner)
    token.blacklist()


# --- The customer portal: password login with its extra check, reset, signup -----------------


@functools.cache
def _dummy_password_hash() -> str:
    """A hash to check an unknown username's password against: the same work as a real check.
    Made on first use, not at import: its key stretching cost every process start 0.4 s (the
    test run's servers and commands, a worker that never sees a login)."""
    return make_password("never-a-password")


@dataclass(frozen=True)
class PortalLogin:
    """A login's answer: tokens, or none and an e-mailed code to enter first."""

    user_id: int | None
    tokens: dict[str, str] | None
    extra_check: bool


def _failure_key(partner: Partner, kind: str, value: str) -> str:
    return failure_key("login-failures", partner.schema_name, kind, value)


def _failures(key: str) -> tuple[int, float]:
    count, last = cache.get(key, (0, 0.0))
    return int(count), float(last)


def _login_throttle(partner: Partner, username: str, client_ip: str) -> int:
    """Per username first: a username with its own failures waits before its password is even
    looked at. The client address's wait is returned, not raised: an office or a mobile
    carrier shares one address, so it only holds back attempts that fail or that come from a
    username with failures of its own (see _address_throttle), never a right password of a
    user who has not failed themselves (that one gets the e-mailed code instead of tokens)."""
    wait = failure_wait(_failure_key(partner, "user", username), settings.LOGIN_FREE_FAILURES_PER_USERNAME)
    if wait:
        raise AccountError(LOGIN_THROTTLED, status=429, retry_after=wait)
    return failure_wait(_failure_key(partner, "address", client_ip), settings.LOGIN_FREE_FAILURES_PER_ADDRESS)


def _address_throttle(wait: int) -> None:
    """A failed attempt from a throttled address answers with the wait, as before the check:
    a client spraying many usernames from one address learns nothing more than 'wait'."""
    if wait:
        LOGINS.labels(kind="portal", result="throttled").inc()
        raise AccountError(LOGIN_THROTTLED, status=429, retry_after=wait)


def _login_failed(partner: Partner, username: str, client_ip: str) -> None:
    LOGINS.labels(kind="portal", result="failed").inc()
    failure_record(_failure_key(partner, "user", username), _failure_key(partner, "address", client_ip))


def _password_stamp(partner: Partner, user: User) -> str:
    """Changes with the password hash: a device cookie made before a password change (a reset
    after a suspected takeover) no longer counts, without a table of devices to revoke."""
    return salted_hmac(f"device-password:{partner.schema_name}", user.password).hexdigest()[:32]


def device_cookie_value(*, partner: Partner, user: User) -> str:
    return signing.dumps(
        {"user": user.pk, "pw": _password_stamp(partner, user)}, salt=f"device:{partner.schema_name}"
    )


def _device_known(*, partner: Partner, user: User, cookie: str | None) -> bool:
    if not cookie:
        return False
    try:
        data = signing.loads(cookie, salt=f"device:{partner.schema_name}", max_age=settings.DEVICE_COOKIE_AGE)
    except signing.BadSignature:
        return False
    return (
        isinstance(data, dict)
        and data.get("user") == user.pk
        and hmac.compare_digest(str(data.get("pw", "")), _password_stamp(partner, user))
    )


def portal_login(
    *, partner: Partner, username: str, password: str, bot_check_ok: bool, client_ip: str, device: str | None
) -> PortalLogin:
    """Password login. A correct password on a new device, after failures from this address, or
    where the partner always wants it gets an e-mailed code instead of tokens."""
    # One user and one throttle for every spelling: Anna, anna, the ſ/ı variants.
    username = canonical_name(username)
    address_wait = _login_throttle(partner, username, client_ip)
    if not bot_check_ok:
        _login_failed(partner, username, client_ip)
        _address_throttle(address_wait)
        raise AccountError(BOT_CHECK_FAILED, status=401)
    user = (
        User.objects.filter(Q(username_canonical=username) | Q(email_canonical=username), is_active=True)
        .order_by("pk")
        .first()
    )
    dummy = _dummy_password_hash()  # made for a known username too: the first login of either costs the same
    valid = check_password(password, user.password if user else dummy)
    if user is None or not valid or not user.has_usable_password() or _is_staff(user):
        _login_failed(partner, username, client_ip)
        _address_throttle(address_wait)
        raise AccountError(BAD_CREDENTIALS, status=401)
    address_failures, _ = _failures(_failure_key(partner, "address", client_ip))
    cache.delete(_failure_key(partner, "user", username))
    LOGINS.labels(kind="portal", result="success").inc()
    config = PartnerConfig.model_validate(partner.config)
    extra_check = (
        config.portal_login_extra_check
        or address_failures >= settings.LOGIN_EXTRA_CHECK_AFTER_FAILURES
        or not _device_known(partner=partner, user=user, cookie=device)
    )
    if not extra_check:
        return PortalLogin(
            user_id=user.pk, tokens=tokens_issue(user=user, partner=partner), extra_check=False
        )
    _portal_check_send(partner=partner, user=user, client_ip=client_ip, on_login=True)
    return PortalLogin(user_id=user.pk, tokens=None, extra_check=True)


def _portal_check_send(*, partner: Partner, user: User, client_ip: str, on_login: bool) -> None:
    """Mail the extra-check code. On login (the password was right) a code mailed within the
    minute is reused, else a new one goes out; a resend waits the full minute."""
    with transaction.atomic():
        _lock_address(user.email)
        if on_login:
            last = _last_send(user.email)
            recent = last is not None and timezone.now() - last < settings.LOGIN_SEND_INTERVAL
            if (
                recent
                and LoginCode.objects.filter(
                    email=user.email,
                    purpose=LoginCode.Purpose.PORTAL_CHECK,
                    used_at__isnull=True,
                    expires_at__gt=timezone.now(),
                ).exists()
            ):
                return
            _address_budget(partner=partner, client_ip=client_ip)
        else:
            _send_allowed(partner=partner, email=user.email, client_ip=client_ip)
        row = _code_issue(email=user.email, purpose=LoginCode.Purpose.PORTAL_CHECK)
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_login_code(schema, row.pk))


def _pending_check_user(user_id: int) -> User:
    """The user whose password login waits for its code (codes exist only after a right password)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if (
        user is None
        or not LoginCode.objects.filter(
            email=user.email,
            purpose=LoginCode.Purpose.PORTAL_CHECK,
            used_at__isnull=True,
            created_at__gt=timezone.now() - settings.LOGIN_CODE_LIFETIME * 3,
        ).exists()
    ):
        raise AccountError(NO_PENDING_CHECK)
    return user


def portal_check_verify(*, partner: Partner, user_id: int, code: str) -> tuple[User, dict[str, str]]:
    user = _pending_check_user(user_id)
    _code_claim(email=user.email, purpose=LoginCode.Purpose.PORTAL_CHECK, code=code)
    return user, tokens_issue(user=user, partner=partner)


def portal_check_resend(*, partner: Partner, user_id: int, client_ip: str) -> None:
    user = _pending_check_user(user_id)
    _portal_check_send(partner=partner, user=user, client_ip=client_ip, on_login=False)


def password_reset_request(*, partner: Partner, email: str, site_url: str, client_ip: str) -> None:
    """Mail a reset link; for an owner without a portal password it creates the account."""
    user = User.objects.filter(OWNERS, email_canonical=canonical_name(email), is_active=True).first()
    _address_budget(partner=partner, client_ip=client_ip)
    if user is None:
        raise AccountError(EMAIL_NOT_REGISTERED)
    if not cache.add(f"reset-sent:{partner.schema_name}:{_digest(canonical_name(email))}", 1, timeout=60):
        raise AccountError(SEND_TOO_SOON, status=429, retry_after=60)
    # The task gets the user id and makes the link itself: no reset token in the queue.
    schema, user_id = partner.schema_name, user.pk
    transaction.on_commit(lambda: mail_password_reset(schema, user_id, site_url))


def password_reset_user(*, partner: Partner, token: str, uidb64: str) -> User:
    try:
        user_id = int(force_str(urlsafe_base64_decode(uidb64)))
    except (ValueError, TypeError, OverflowError):
        raise AccountError(INVALID_RESET) from None
    user = User.objects.filter(OWNERS, pk=user_id, is_active=True).first()
    if user is None or not PartnerResetTokens(partner).check_token(user, token):
        raise AccountError(INVALID_RESET)
    return user


def password_set(*, user: User, password: str) -> None:
    """A new password; every refresh token issued before it is revoked."""
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        for token in OutstandingToken.objects.filter(user=user).exclude(blacklistedtoken__isnull=False):
            BlacklistedToken.objects.get_or_create(token=token)


def account_create(*, partner: Partner, user: User, password: str) -> None:
    """The portal's signup: the owner's password, and for an owner who had none (the signup's
    terms box is shown and must be ticked) the terms consent with its text version."""
    first = not user.has_usable_password()
    with transaction.atomic():
        password_set(user=user, password=password)
        if first:
            consent_book().consent_record_signup(
                user=user, config=PartnerConfig.model_validate(partner.config)
            )


def account_password_allowed(*, partner: Partner, user: User, current_password: str, client_ip: str) -> bool:
    """create_account sets an owner's first portal password. An account that has one already
    changes it only with the current one: a flow token alone must not take the account over.
    Wrong tries count like failed logins (the same growing delays)."""
    if _is_staff(user):
        raise AccountError(INVALID_TOKEN, status=401)
    if not user.has_usable_password():
        return True
    username = user.email.strip().lower()
    address_wait = _login_throttle(partner, username, client_ip)
    if check_password(current_password, user.password):
        return True
    _login_failed(partner, username, client_ip)
    _address_throttle(address_wait)
    return False


def password_reset_complete(*, partner: Partner, token: str, uidb64: str, password: str) -> User:
    with transaction.atomic():
        user = password_reset_user(partner=partner, token=token, uidb64=uidb64)
        user = User.objects.select_for_update().get(pk=user.pk)
        # Checked again under the row lock: two completes with one token change it once.
        if not PartnerResetTokens(partner).check_token(user, token):
            raise AccountError(INVALID_RESET)
        password_set(user=user, password=password)
    return user


def signup_link_send(*, partner: Partner, email: str, verify_email_url: str, client_ip: str) -> None:
    """The portal signup link, for an address this partner knows (it registered a vehicle)."""
    email = _mail_address(email)
    key = secrets.token_urlsafe(32)
    link = verify_url_build(partner=partner, verify_email_url=verify_email_url, key=key)
    with transaction.atomic():
        _lock_address(email)
        _send_allowed(partner=partner, email=email, client_ip=client_ip)
        if not User.objects.filter(OWNERS, email_canonical=canonical_name(email), is_active=True).exists():
            raise AccountError(EMAIL_UNKNOWN)
        row = _link_issue(email=email, key=key, link=link, purpose=LoginLink.Purpose.SIGNUP)
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_login_link(schema, row.pk))


def signup_key_verify(*, partner: Partner, key: str) -> tuple[User, dict[str, str]]:
    link = _link_claim(key=key, purpose=LoginLink.Purpose.SIGNUP)
    user = User.objects.filter(OWNERS, email_canonical=canonical_name(link.email), is_active=True).first()
    if user is None:
        raise AccountError(INVALID_LINK)
    return user, tokens_issue(user=user, partner=partner)
