"""Error codes and texts of the partner area's staff calls (docs/partner-api.md): German by
default, English when the request's accept-language prefers it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from common.i18n import request_language

NOT_SIGNED_IN = "STAFF401"  # no staff session, a password-only session, a bearer token
FORBIDDEN = "STAFF403"  # a role that may not make this call
CSRF_FAILED = "CSRF001"  # unsafe method without the X-CSRFToken header of the csrftoken cookie
NO_PARTNER = "PARTNER404"  # the partner area exists on a partner's host only
BAD_CREDENTIALS = "LOGIN001"  # wrong username or password, or nobody of this partner's staff
LOGIN_THROTTLED = "LOGIN002"  # too many failed logins for this username or address: wait
LOGIN_EXPIRED = "LOGIN003"  # the code or enrolment step without a fresh password step
WRONG_CODE = "OTP001"  # a TOTP or backup code that is wrong or was used already
CODE_THROTTLED = "OTP002"  # django-otp's growing delay after wrong codes
INVITE_INVALID = "INVITE001"  # unknown, expired or used invite link
PASSWORD_INVALID = "PASSWORD001"  # noqa: S105 - refused by Django's password validators
EMAIL_TAKEN = "STAFF001"  # the e-mail belongs to a member already, or to an owner's account
LAST_ADMIN = "STAFF002"  # the last active partner admin keeps the role and stays active
NOT_YOURSELF = "STAFF003"  # nobody changes their own role or deactivates themselves
ROLE_INVALID = "STAFF004"  # not one of partner_admin, back_office, viewer
INVALID_DATE = "DATE001"  # a day that does not exist (2025-02-30)
NOT_FOUND = "NOT_FOUND"

MESSAGES: dict[str, tuple[str, str]] = {
    NOT_SIGNED_IN: ("Bitte melden Sie sich an.", "Please sign in."),
    FORBIDDEN: ("Dafür fehlt Ihnen die Berechtigung.", "You are not allowed to do this."),
    CSRF_FAILED: (
        "Die Sicherheitsprüfung (CSRF) ist fehlgeschlagen. Bitte laden Sie die Seite neu.",
        "The security check (CSRF) failed. Please reload the page.",
    ),
    NO_PARTNER: ("Partner nicht gefunden.", "Partner not found."),
    BAD_CREDENTIALS: ("Benutzername oder Passwort ist falsch.", "The username or password is incorrect."),
    LOGIN_THROTTLED: (
        "Zu viele Fehlversuche. Bitte warten Sie {wait} Sekunden.",
        "Too many failed attempts. Please wait {wait} seconds.",
    ),
    LOGIN_EXPIRED: (
        "Die Anmeldung ist abgelaufen. Bitte melden Sie sich erneut an.",
        "The sign-in has expired. Please sign in again.",
    ),
    WRONG_CODE: ("Der Code ist falsch.", "The code is incorrect."),
    CODE_THROTTLED: (
        "Zu viele falsche Codes. Bitte warten Sie {wait} Sekunden.",
        "Too many wrong codes. Please wait {wait} seconds.",
    ),
    INVITE_INVALID: (
        "Diese Einladung ist ungültig, abgelaufen oder wurde schon verwendet.",
        "This invitation is invalid, has expired or was used already.",
    ),
    PASSWORD_INVALID: ("Dieses Passwort ist nicht sicher genug.", "This password is not strong enough."),
    EMAIL_TAKEN: (
        "Diese E-Mail-Adresse gehört schon zu einem Konto dieses Partners.",
        "This e-mail address belongs to an account of this partner already.",
    ),
    LAST_ADMIN: (
        "Der letzte aktive Partner-Admin muss Partner-Admin und aktiv bleiben.",
        "The last active partner admin must stay an active partner admin.",
    ),
    NOT_YOURSELF: (
        "Ihre eigene Rolle und Ihren eigenen Zugang können Sie nicht ändern.",
        "You cannot change your own role or access.",
    ),
    ROLE_INVALID: (
        "Bitte wählen Sie eine Rolle: Partner-Admin, Backoffice oder Nur lesen.",
        "Please choose a role: partner admin, back office or viewer.",
    ),
    INVALID_DATE: ("Bitte geben Sie ein gültiges Datum ein.", "Please enter a valid date."),
    NOT_FOUND: ("Nicht gefunden.", "Not found."),
}


def message(request: HttpRequest | None, code: str, **values: Any) -> str:
    german, english = MESSAGES[code]
    text = english if request is not None and request_language(request) == "en" else german
    return text.format(**values) if values else text


class StaffError(Exception):
    """A refusal of a staff call: {"detail": ...} or, with a field, {field: {"error_code", "message"}}."""

    def __init__(
        self,
        code: str,
        *,
        status: int = 400,
        field: str | None = None,
        text: str | None = None,
        wait: int | None = None,
    ):
        self.code = code
        self.status = status
        self.field = field
        self.text = text
        self.wait = wait
        super().__init__(code)

    def body(self, request: HttpRequest | None) -> dict[str, Any]:
        text = self.text or message(request, self.code, wait=self.wait or 0)
        if self.field:
            return {self.field: {"error_code": self.code, "message": text}}
        body: dict[str, Any] = {"detail": text, "error_code": self.code}
        if self.wait is not None:
            body["wait"] = self.wait
        return body
