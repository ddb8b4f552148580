"""Error codes of the accounts calls (answered as {"detail": ..., "error_code": ...})."""

INVALID_CODE = "OTP001"  # wrong, expired or already used code: the web app shows 'Ungültiger Code'
TOO_MANY_ATTEMPTS = "OTP002"  # five wrong tries: a new code is needed
INVALID_LINK = "LINK001"  # unknown, expired or already used login link
SEND_TOO_SOON = "RATE001"  # a code or link was sent to this address less than 60 s ago
TOO_MANY_SENDS = "RATE002"  # this client address asked for too many codes or links
INVALID_TOKEN = "TOKEN001"  # noqa: S105 - refresh token invalid, expired, revoked or of another partner

MESSAGES = {
    INVALID_CODE: "Ungültiger Code",
    TOO_MANY_ATTEMPTS: "Zu viele Fehlversuche. Bitte fordern Sie einen neuen Code an.",
    INVALID_LINK: "Der Link ist ungültig oder abgelaufen. Bitte melden Sie sich erneut an.",
    SEND_TOO_SOON: "Bitte warten Sie eine Minute, bevor Sie eine neue E-Mail anfordern.",
    TOO_MANY_SENDS: "Zu viele Anfragen. Bitte versuchen Sie es später erneut.",
    INVALID_TOKEN: "Die Sitzung ist abgelaufen. Bitte melden Sie sich erneut an.",
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
