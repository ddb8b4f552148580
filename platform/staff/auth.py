"""Authentication of the partner area's calls: Django's session cookie in the partner's schema
(so a cookie of partner A is nobody on partner B), CSRF on every unsafe method, a session that
passed the second factor (django-otp's `is_verified`), and an active StaffMember behind it.

A partner system may send an API key (`X-API-Key`, integrations.keys) instead of the session;
integrations registers its check in staff.credentials.

Usage: `@router.get("...", auth=staff_auth)` or `auth=staff_role("back_office", "partner_admin")`;
`request.auth` is the StaffMember. Refusals are raised as StaffError (config.api shapes them):
401 {"detail": "Bitte melden Sie sich an."}, 403 {"detail": "Dafür fehlt Ihnen die Berechtigung."}.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja.security.apikey import APIKeyCookie
from ninja.utils import check_csrf

from staff.credentials import api_key_member, carries_api_key
from staff.errors import CSRF_FAILED, FORBIDDEN, NO_PARTNER, NOT_SIGNED_IN, StaffError
from staff.models import StaffMember
from tenants.middleware import request_partner

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def bearer_refuse(request: HttpRequest) -> None:
    """An owner's (or anybody's) bearer token never reaches a staff call: 401, whatever it is."""
    if request.headers.get("Authorization", "").strip().lower().startswith("bearer"):
        raise StaffError(NOT_SIGNED_IN, status=401)


def partner_require(request: HttpRequest) -> None:
    """The partner area lives on a partner's host; the public host has no staff tables."""
    if request_partner(request) is None:
        raise StaffError(NO_PARTNER, status=404)


def csrf_require(request: HttpRequest) -> None:
    """Django's CSRF check (X-CSRFToken header against the csrftoken cookie, and Origin /
    Referer on HTTPS) for unsafe methods: ninja's views are CSRF-exempt by themselves."""
    if request.method in UNSAFE_METHODS and check_csrf(request) is not None:
        raise StaffError(CSRF_FAILED, status=403)


def session_member(request: HttpRequest) -> StaffMember | None:
    """The active member of a session that passed both steps, or None."""
    user: Any = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    verified = getattr(user, "is_verified", None)  # set by django_otp's OTPMiddleware
    if verified is None or not verified():
        return None
    # Read on every call: a deactivation or a role change counts at once, sessions included.
    return StaffMember.objects.select_related("user").filter(user=user, is_active=True).first()


class StaffSessionAuth(APIKeyCookie):
    """The staff session (cookie `sessionid`), optionally limited to some roles."""

    param_name = settings.SESSION_COOKIE_NAME

    def __init__(self, roles: tuple[str, ...] = ()) -> None:
        unknown = set(roles) - set(StaffMember.Role.values)
        if unknown:
            raise ValueError(f"unknown staff roles: {sorted(unknown)}")
        self.roles = frozenset(roles)
        super().__init__(csrf=False)  # checked below, after the session, with our own answer

    def __call__(self, request: HttpRequest) -> StaffMember:
        bearer_refuse(request)
        partner_require(request)
        if carries_api_key(request):
            # A partner system's key (integrations.keys, through staff.credentials) instead of
            # the session: no cookie, so no CSRF; the key's scope is its role (read: viewer,
            # write: back office).
            acting = api_key_member(request)
            if self.roles and acting.role not in self.roles:
                raise StaffError(FORBIDDEN, status=403)
            return acting
        member = session_member(request)
        if member is None:
            raise StaffError(NOT_SIGNED_IN, status=401)
        csrf_require(request)
        if self.roles and member.role not in self.roles:
            raise StaffError(FORBIDDEN, status=403)
        return member

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:  # pragma: no cover
        raise NotImplementedError  # __call__ does the whole check


staff_auth = StaffSessionAuth()


def staff_role(*roles: str) -> StaffSessionAuth:
    """A staff session whose member has one of `roles` (403 otherwise)."""
    if not roles:
        raise ValueError("staff_role needs at least one role")
    return StaffSessionAuth(roles)
