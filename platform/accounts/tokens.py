"""Access and refresh tokens bound to a partner (audience claim = the partner's schema).

Built on django-ninja-jwt's tokens and blacklist. Rotation is ours: the new refresh token
keeps the login's `session_start`, so a chain of rotations ends 30 days after the login, and
its `login_id`, so a replayed (already rotated) token can revoke its whole chain.
"""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from typing import Any, cast
from uuid import uuid4

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.http import HttpRequest
from ninja.security import HttpBearer
from ninja_jwt.backends import TokenBackend
from ninja_jwt.exceptions import TokenBackendError, TokenError
from ninja_jwt.token_blacklist.models import OutstandingToken
from ninja_jwt.tokens import AccessToken, RefreshToken
from ninja_jwt.utils import datetime_from_epoch

from accounts.errors import INVALID_TOKEN, AccountError
from accounts.models import User
from tenants.middleware import request_partner
from tenants.models import Partner

SESSION_START = "session_start"
LOGIN_ID = "login_id"


class RotatingTokenBackend:
    """Signs with JWT_SIGNING_KEY; verifies with it or, during a key rotation, with one of
    JWT_PREVIOUS_SIGNING_KEYS (django-ninja-jwt itself knows a single key)."""

    def _backends(self) -> list[TokenBackend]:
        keys = (settings.JWT_SIGNING_KEY, *settings.JWT_PREVIOUS_SIGNING_KEYS)
        return _token_backends(keys, str(settings.NINJA_JWT.get("ALGORITHM", "HS256")))

    def encode(self, payload: dict[str, Any]) -> str:
        return cast(str, self._backends()[0].encode(payload))

    def decode(self, token: Any, verify: bool = True) -> dict[str, Any]:
        first: TokenBackendError | None = None
        for backend in self._backends():
            try:
                return cast(dict[str, Any], backend.decode(token, verify=verify))
            except TokenBackendError as error:
                first = first or error
        assert first is not None
        raise first

    def get_leeway(self) -> timedelta:
        return cast(timedelta, self._backends()[0].get_leeway())


@lru_cache(maxsize=8)
def _token_backends(keys: tuple[str, ...], algorithm: str) -> list[TokenBackend]:
    return [TokenBackend(algorithm, signing_key=key) for key in keys]


rotating_token_backend = RotatingTokenBackend()


class PartnerAccessToken(AccessToken):
    _token_backend = rotating_token_backend  # type: ignore[assignment]


class PartnerRefreshToken(RefreshToken):
    access_token_class = PartnerAccessToken
    _token_backend = rotating_token_backend  # type: ignore[assignment]


def _absolute_lifetime() -> timedelta:
    return cast(timedelta, settings.NINJA_JWT["REFRESH_TOKEN_LIFETIME"])


def tokens_issue(
    *, user: User, partner: Partner, session_start: int | None = None, login_id: str | None = None
) -> dict[str, str]:
    # ninja-jwt types for_user against the class object; the result is a token instance.
    refresh: Any = cast(Any, PartnerRefreshToken).for_user(user)
    refresh["aud"] = partner.schema_name
    now = int(refresh.current_time.timestamp())
    start = session_start if session_start is not None else now
    refresh[SESSION_START] = start
    refresh[LOGIN_ID] = login_id or uuid4().hex
    end = start + int(_absolute_lifetime().total_seconds())
    if end <= now:
        raise AccountError(INVALID_TOKEN, status=401)
    refresh["exp"] = min(int(refresh["exp"]), end)
    # for_user stored the token before our claims; the stored copy names its login, so reuse
    # detection (accounts.services.token_rotate) finds every token of the chain.
    OutstandingToken.objects.filter(jti=refresh["jti"]).update(
        token=str(refresh), expires_at=datetime_from_epoch(refresh["exp"])
    )
    return {"access": str(refresh.access_token), "refresh": str(refresh)}


def refresh_token_validate(raw: str, partner: Partner) -> PartnerRefreshToken:
    try:
        token = PartnerRefreshToken(raw)
    except TokenError:
        raise AccountError(INVALID_TOKEN, status=401) from None
    if token.get("aud") != partner.schema_name:
        raise AccountError(INVALID_TOKEN, status=401)
    return token


class PartnerJWTAuth(HttpBearer):
    """Bearer access token of this partner; a token of another partner is 401."""

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        partner = request_partner(request)
        if partner is None:
            return None
        try:
            validated = PartnerAccessToken(token)
        except TokenError:
            return None
        if validated.get("aud") != partner.schema_name:
            return None
        user = User.objects.filter(pk=validated.get("user_id"), is_active=True).first()
        if user is None:
            return None
        request.user = user
        return user


partner_auth = PartnerJWTAuth()


class PartnerResetTokens(PasswordResetTokenGenerator):
    """Django's reset tokens (spent once the password changes), bound to one partner."""

    def __init__(self, partner: Partner):
        super().__init__()
        self.key_salt = f"thg.password-reset:{partner.schema_name}"
