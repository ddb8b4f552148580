"""Staff sessions end when they should (issue 47): after STAFF_SESSION_IDLE without a request,
STAFF_SESSION_MAX after the login whatever happens, and at once when the member's role changes
or the member is deactivated (the next request of any of its sessions finds it so). A password
change ends the user's other sessions by Django's own session hash (auth.get_user).

Staff (partner area, Django admin, platform admins) are the only users with sessions: owners
sign in with tokens (accounts.tokens), which this does not touch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse

from staff.models import StaffMember
from tenants.middleware import request_partner

STARTED = "staff_started"
SEEN = "staff_seen"
# The last request's time is written at most this often (a session write per request otherwise).
SEEN_GRANULARITY = 60


def _ended_at(request: HttpRequest, user: Any) -> float | None:
    """When the member's sessions were last ended (role change, deactivation), or None (none
    ended; no member: a platform admin on the public host has no staff tables)."""
    if request_partner(request) is None:
        return None
    since = StaffMember.objects.filter(user_id=user.pk).values_list("sessions_since", flat=True).first()
    return since.timestamp() if since is not None else None


def staff_session_start(request: HttpRequest, user: Any) -> None:
    """At the end of a login (both factors): the session's start and last request."""
    now = time.time()
    request.session[STARTED] = now
    request.session[SEEN] = now


def session_over(request: HttpRequest, user: Any, now: float) -> bool:
    session = request.session
    if STARTED not in session:
        # a session made without our login (a test's force_login, one from before this rule):
        # it counts from now, and the cookie's own age (SESSION_COOKIE_AGE) still bounds it
        staff_session_start(request, user)
    started = float(session[STARTED])
    if now - started > settings.STAFF_SESSION_MAX.total_seconds():
        return True
    if now - float(session.get(SEEN, started)) > settings.STAFF_SESSION_IDLE.total_seconds():
        return True
    ended = _ended_at(request, user)
    return ended is not None and ended >= started


class StaffSessionMiddleware:
    """After authentication and django-otp: a staff session that is over is logged out before
    the view runs (the view then sees an anonymous user: 401 in the partner area, the login
    page in the admin)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                now = time.time()
                if session_over(request, user, now):
                    logout(request)
                elif now - float(request.session.get(SEEN, 0)) > SEEN_GRANULARITY:
                    request.session[SEEN] = now
        return self.get_response(request)
