"""Error codes of the accounts calls (answered as {"detail": ..., "error_code": ...}).

Messages are German by default and English when the request asks for it (accept-language),
as the portal is; the registration flow is German only."""

INVALID_CODE = "OTP001"  # wrong, expired or already used code: the web app shows 'Ungültiger Code'
TOO_MANY_ATTEMPTS = "OTP002"  # five wrong tries: a new code is needed
INVALID_LINK = "LINK001"  # unknown, expired or already used login link
SEND_TOO_SOON = "RATE001"  # a code or link was sent to this address less than 60 s ago
TOO_MANY_SENDS = "RATE002"  # this client address asked for too many codes or links
INVALID_TOKEN = "TOKEN001"  # noqa: S105 - refresh token invalid, expired, revoked or of another partner
BAD_CREDENTIALS = "LOGIN001"  # wrong username or password, or no such user: never told apart
LOGIN_THROTTLED = "LOGIN002"  # too many failed logins for this username or address: wait
BOT_CHECK_FAILED = "BOT001"  # the proof-of-work bot check is missing, wrong, expired or replayed
NO_PENDING_CHECK = "OTP003"  # a code for a login that is not waiting for one
EMAIL_NOT_REGISTERED = "EMAIL001"  # password reset for an address this partner does not know
EMAIL_UNKNOWN = "EMAIL002"  # portal signup for an address this partner does not know
INVALID_RESET = "RESET001"  # password-reset link unknown, expired or already used
# A verified e-mail without a portal account asks for the portal's profile (403): the portal
# turns it into signup (spec/customer-portal.md: "Profile 403: go to SignupView").
NO_PORTAL_ACCOUNT = "PORTAL001"

MESSAGES = {
    INVALID_CODE: "Ungültiger Code",
    TOO_MANY_ATTEMPTS: "Zu viele Fehlversuche. Bitte fordern Sie einen neuen Code an.",
    INVALID_LINK: "Der Link ist ungültig oder abgelaufen. Bitte melden Sie sich erneut an.",
    SEND_TOO_SOON: "Bitte warten Sie eine Minute, bevor Sie eine neue E-Mail anfordern.",
    TOO_MANY_SENDS: "Zu viele Anfragen. Bitte versuchen Sie es später erneut.",
    INVALID_TOKEN: "Die Sitzung ist abgelaufen. Bitte melden Sie sich erneut an.",
    BAD_CREDENTIALS: "Der Benutzername oder das Passwort ist falsch.",
    LOGIN_THROTTLED: "Zu viele fehlgeschlagene Anmeldungen. Bitte warten Sie kurz und versuchen Sie es erneut.",
    # The web app tells the captcha error by this exact detail (spec/customer-portal.md section 8).
    BOT_CHECK_FAILED: "Invalid recaptcha",
    NO_PENDING_CHECK: "Für diese Anmeldung wird kein Code erwartet. Bitte melden Sie sich erneut an.",
    EMAIL_NOT_REGISTERED: "Diese E-Mail-Adresse ist bei Ihrer Organisation nicht registriert.",
    EMAIL_UNKNOWN: "Diese E-Mail-Adresse ist bei diesem Partner leider nicht bekannt.",
    INVALID_RESET: "Der Link ist ungültig oder abgelaufen. Bitte fordern Sie einen neuen an.",
    NO_PORTAL_ACCOUNT: "Für diese E-Mail-Adresse gibt es noch kein Konto im Kundenportal.",
}
MESSAGES_EN = {
    INVALID_CODE: "Otp is invalid",
    TOO_MANY_ATTEMPTS: "Too many wrong tries. Please request a new code.",
    INVALID_LINK: "The link is invalid or has expired. Please log in again.",
    SEND_TOO_SOON: "Please wait a minute before asking for another e-mail.",
    TOO_MANY_SENDS: "Too many requests. Please try again later.",
    INVALID_TOKEN: "Your session has expired. Please log in again.",
    BAD_CREDENTIALS: "The username or password you entered is incorrect",
    LOGIN_THROTTLED: "Too many failed logins. Please wait a moment and try again.",
    BOT_CHECK_FAILED: "Invalid recaptcha",
    NO_PENDING_CHECK: "No code is expected for this login. Please log in again.",
    EMAIL_NOT_REGISTERED: "The email you entered is not registered with your organisation",
    EMAIL_UNKNOWN: "Unfortunately, this email is not known for this partner.",
    INVALID_RESET: "The link is invalid or has expired. Please ask for a new one.",
    NO_PORTAL_ACCOUNT: "There is no customer portal account for this e-mail address yet.",
}


class AccountError(Exception):
    def __init__(self, code: str, *, status: int = 400, retry_after: int | None = None):
        self.code = code
        self.status = status
        self.retry_after = retry_after
        super().__init__(MESSAGES[code])

    @property
    def message(self) -> str:
        return MESSAGES[self.code]

    def message_in(self, language: str) -> str:
        return (MESSAGES_EN if language == "en" else MESSAGES)[self.code]
