"""Credentials other than the staff session that a partner-area call may carry: a hook staff
offers and a higher app fills.

A partner system sends an API key (`X-API-Key`) instead of the session. The keys are
integrations' (integrations.keys), and integrations sits above staff in the layering, so staff
never imports it: integrations registers its check here in its AppConfig.ready(), and
staff.auth asks this module for the member a key acts as.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.http import HttpRequest

from common.hooks import Hook

if TYPE_CHECKING:
    from staff.models import StaffMember

API_KEY_HEADER = "X-API-Key"

# The member a request's key acts as, or a refusal raised (401, 429).
ApiKeyCheck = Callable[[HttpRequest], "StaffMember"]

_api_key_check: Hook[ApiKeyCheck] = Hook(
    "staff.credentials: the API-key check",
    "IntegrationsConfig.ready() registers integrations.keys.api_key_member",
)


def api_key_check_register(check: ApiKeyCheck) -> None:
    """Called once, by integrations' AppConfig.ready()."""
    _api_key_check.register(check)


def carries_api_key(request: HttpRequest) -> bool:
    return API_KEY_HEADER in request.headers


def api_key_member(request: HttpRequest) -> StaffMember:
    """The member the request's key acts as (the registered check decides, and refuses)."""
    return _api_key_check.get()(request)
