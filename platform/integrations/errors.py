"""Error codes and texts of the partner's interfaces (docs/partner-api.md, "API keys" and
"Webhooks"): German by default, English when the request's accept-language prefers it. They
are answered in the staff calls' shapes (staff.errors.StaffError)."""

from __future__ import annotations

from django.http import HttpRequest

from common.i18n import request_language
from staff.errors import StaffError

KEY_INVALID = "APIKEY001"  # unknown, revoked or rotated key, or its admin no longer one
KEY_THROTTLED = "APIKEY002"  # more calls in a minute than the key's budget
KEY_NAME = "APIKEY003"  # a name of 1 to 100 characters
KEY_LIMIT = "APIKEY004"  # at most MAX_KEYS active keys per partner
URL_INVALID = "WEBHOOK001"  # not an absolute http(s) URL with a host
URL_NOT_HTTPS = "WEBHOOK002"  # http outside the development run
URL_PRIVATE = "WEBHOOK003"  # a private, loopback, link-local or otherwise non-public address
EVENTS_INVALID = "WEBHOOK004"  # at least one known event
ENDPOINT_LIMIT = "WEBHOOK005"  # at most MAX_ENDPOINTS webhooks per partner

MESSAGES: dict[str, tuple[str, str]] = {
    KEY_INVALID: (
        "Dieser API-Schlüssel ist ungültig oder wurde widerrufen.",
        "This API key is invalid or was revoked.",
    ),
    KEY_THROTTLED: (
        "Zu viele Anfragen mit diesem API-Schlüssel. Bitte warten Sie {wait} Sekunden.",
        "Too many requests with this API key. Please wait {wait} seconds.",
    ),
    KEY_NAME: (
        "Bitte geben Sie einen Namen an (höchstens 100 Zeichen).",
        "Please enter a name (at most 100 characters).",
    ),
    KEY_LIMIT: (
        "Es sind höchstens {limit} aktive API-Schlüssel möglich. Bitte widerrufen Sie zuerst einen.",
        "At most {limit} active API keys are possible. Please revoke one first.",
    ),
    URL_INVALID: (
        "Bitte geben Sie eine vollständige Adresse an (https://…).",
        "Please enter a complete address (https://…).",
    ),
    URL_NOT_HTTPS: ("Die Adresse muss mit https:// beginnen.", "The address must start with https://."),
    URL_PRIVATE: (
        "Diese Adresse ist nicht öffentlich erreichbar (private oder lokale Adressen sind nicht erlaubt).",
        "This address is not publicly reachable (private or local addresses are not allowed).",
    ),
    EVENTS_INVALID: ("Bitte wählen Sie mindestens ein Ereignis.", "Please choose at least one event."),
    ENDPOINT_LIMIT: (
        "Es sind höchstens {limit} Webhooks möglich.",
        "At most {limit} webhooks are possible.",
    ),
}


def text(request: HttpRequest | None, code: str, **values: object) -> str:
    german, english = MESSAGES[code]
    chosen = english if request is not None and request_language(request) == "en" else german
    return chosen.format(**values) if values else chosen


def refusal(
    request: HttpRequest | None,
    code: str,
    *,
    status: int = 400,
    field: str | None = None,
    wait: int | None = None,
    **values: object,
) -> StaffError:
    return StaffError(
        code, status=status, field=field, wait=wait, text=text(request, code, wait=wait or 0, **values)
    )


class IntegrationError(Exception):
    """A refusal raised by the services; the API answers it in the request's language."""

    def __init__(self, code: str, *, field: str | None = None, status: int = 400, limit: int = 0):
        self.code, self.field, self.status, self.limit = code, field, status, limit
        super().__init__(code)

    def answer(self, request: HttpRequest | None) -> StaffError:
        return refusal(request, self.code, status=self.status, field=self.field, limit=self.limit)
