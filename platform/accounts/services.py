"""Account writes: login codes and links, end users, token rotation."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts.errors import (
    INVALID_CODE,
    INVALID_LINK,
    INVALID_TOKEN,
    SEND_TOO_SOON,
    TOO_MANY_ATTEMPTS,
    TOO_MANY_SENDS,
    AccountError,
)
from accounts.models import LoginCode, LoginLink, User
from accounts.tasks import mail_login_code, mail_login_link
from accounts.tokens import SESSION_START, refresh_token_validate, tokens_issue
from tenants.models import Partner

CODE_PATTERN_LENGTH = 6


def _digest(value: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), value.encode(), hashlib.sha256).hexdigest()


def _lock_address(email: str) -> None:
    """Serialise sends to one address (inside the caller's transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"login-send:{email}"])


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
    hour = timezone.now().strftime("%Y%m%d%H")
    key = f"login-sends:{partner.schema_name}:{client_ip}:{hour}"
    cache.add(key, 0, timeout=3600)
    if cache.incr(key) > settings.LOGIN_SENDS_PER_ADDRESS_HOUR:
        raise AccountError(TOO_MANY_SENDS, status=429, retry_after=3600)


def login_code_send(*, partner: Partner, email: str, client_ip: str) -> None:
    code = f"{secrets.randbelow(10**CODE_PATTERN_LENGTH):0{CODE_PATTERN_LENGTH}d}"
    with transaction.atomic():
        _lock_address(email)
        _send_allowed(partner=partner, email=email, client_ip=client_ip)
        now = timezone.now()
        # A new code replaces any earlier one.
        LoginCode.objects.filter(email=email, used_at__isnull=True, expires_at__gt=now).update(expires_at=now)
        LoginCode.objects.create(
            email=email, code_hash=_digest(f"{email}:{code}"), expires_at=now + settings.LOGIN_CODE_LIFETIME
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_login_code(schema, email, code))


def login_code_verify(*, partner: Partner, email: str, code: str) -> dict[str, str]:
    now = timezone.now()
    active = (
        LoginCode.objects.filter(email=email, used_at__isnull=True, expires_at__gt=now)
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
    return tokens_issue(user=end_user_get_or_create(email=email), partner=partner)


def verify_url_build(*, partner: Partner, verify_email_url: str, key: str) -> str:
    """The magic link: the web app's verify URL (with its own query keys) plus `key`."""
    parts = urlsplit(verify_email_url)
    hosts = {domain.lower() for domain in partner.domains.values_list("domain", flat=True)}
    if parts.scheme not in {"http", "https"} or (parts.hostname or "").lower() not in hosts:
        raise ValueError("verify_email_url must point to this partner's own site")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "key"]
    query.append(("key", key))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def login_link_send(*, partner: Partner, email: str, verify_email_url: str, client_ip: str) -> None:
    key = secrets.token_urlsafe(32)
    link = verify_url_build(partner=partner, verify_email_url=verify_email_url, key=key)
    with transaction.atomic():
        _lock_address(email)
        _send_allowed(partner=partner, email=email, client_ip=client_ip)
        now = timezone.now()
        LoginLink.objects.filter(email=email, used_at__isnull=True, expires_at__gt=now).update(expires_at=now)
        LoginLink.objects.create(
            email=email, key_hash=_digest(key), expires_at=now + settings.LOGIN_LINK_LIFETIME
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_login_link(schema, email, link))


def login_link_verify(*, partner: Partner, key: str) -> dict[str, str]:
    now = timezone.now()
    link = LoginLink.objects.filter(key_hash=_digest(key), used_at__isnull=True, expires_at__gt=now).first()
    if link is None or LoginLink.objects.filter(pk=link.pk, used_at__isnull=True).update(used_at=now) != 1:
        raise AccountError(INVALID_LINK)
    return tokens_issue(user=end_user_get_or_create(email=link.email), partner=partner)


def end_user_get_or_create(*, email: str) -> User:
    """The partner's user for this e-mail: an unknown e-mail becomes a new end user."""
    user = User.objects.filter(email__iexact=email).first()
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
        return User.objects.get(email__iexact=email)


def token_rotate(*, partner: Partner, refresh: str) -> dict[str, str]:
    token = refresh_token_validate(refresh, partner)
    user = User.objects.filter(pk=token.get("user_id"), is_active=True).first()
    if user is None:
        raise AccountError(INVALID_TOKEN, status=401)
    with transaction.atomic():
        try:
            # get_or_create underneath: (row, created); not created means already spent.
            _, fresh = cast(Any, token.blacklist())
        except IntegrityError:
            fresh = False
        if not fresh:
            # Rotated already (a replay or a concurrent refresh): the old token is spent.
            raise AccountError(INVALID_TOKEN, status=401)
        start: Any = token.get(SESSION_START)
        return tokens_issue(user=user, partner=partner, session_start=int(start) if start else None)


def token_revoke(*, partner: Partner, refresh: str) -> None:
    token = refresh_token_validate(refresh, partner)
    token.blacklist()
