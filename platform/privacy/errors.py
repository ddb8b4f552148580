"""Error codes of the privacy calls, answered as {"detail": ..., "error_code": ...}."""

from __future__ import annotations

EXPORT_TOO_SOON = "PRIV001"
EXPORT_LINK_INVALID = "PRIV002"
ERASURE_CODE_INVALID = "PRIV003"
ERASURE_TOO_MANY_ATTEMPTS = "PRIV004"
ERASURE_TOO_SOON = "PRIV005"
NOT_AN_OWNER = "PRIV006"
OWNER_UNKNOWN = "PRIV007"

MESSAGES = {
    EXPORT_TOO_SOON: "Sie haben Ihre Daten gerade erst angefordert. Bitte versuchen Sie es später erneut.",
    EXPORT_LINK_INVALID: "Dieser Link ist ungültig, abgelaufen oder wurde bereits verwendet.",
    ERASURE_CODE_INVALID: "Der Code ist ungültig oder abgelaufen.",
    ERASURE_TOO_MANY_ATTEMPTS: "Zu viele Versuche. Bitte fordern Sie einen neuen Code an.",
    ERASURE_TOO_SOON: "Bitte warten Sie einen Moment, bevor Sie einen neuen Code anfordern.",
    NOT_AN_OWNER: "Dieses Konto kann hier nicht gelöscht werden.",
    OWNER_UNKNOWN: "Zu dieser E-Mail-Adresse gibt es bei Ihnen kein Kundenkonto.",
}


class PrivacyError(Exception):
    def __init__(self, code: str, *, status: int = 400, retry_after: int | None = None):
        self.code = code
        self.status = status
        self.retry_after = retry_after
        super().__init__(code)

    @property
    def message(self) -> str:
        return MESSAGES[self.code]
