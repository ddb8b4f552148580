"""The owner's consents as the apps below privacy use them: a hook accounts offers and privacy
fills.

The consent records (privacy.models.ConsentRecord, privacy.consents) are privacy's, and privacy
sits at the top of the domain apps: its export, erasure and retention read and delete the rows
of every app below it. The apps below record consents where a call carries them (the portal's
signup here, the flow's upload in registrations, the billing call in billing, the resubmit in
quota) and read the owner's text-form agreement (quota's partner area, operations' credit
notes) through this hook: PrivacyConfig.ready() registers privacy.consents as the book, so
none of them imports privacy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from common.hooks import Hook

if TYPE_CHECKING:
    from django.db.models import Subquery

    from accounts.models import User
    from common.partner_config import PartnerConfig

# Where a consent was given: the values of privacy.models.ConsentRecord.Channel.
CHANNEL_WEB = "web"  # the registration flow
CHANNEL_PORTAL = "portal"  # the customer portal


class ConsentBook(Protocol):
    """privacy.consents' functions of the same names; each write runs in the caller's
    transaction and records only what changed."""

    def consents_record_terms(
        self, *, user: User, config: PartnerConfig, years: list[int], channel: str
    ) -> int: ...

    def consent_record_promotion(
        self, *, user: User, config: PartnerConfig, given: bool, channel: str
    ) -> object: ...

    def consent_record_signup(self, *, user: User, config: PartnerConfig) -> object: ...

    def consent_channel_label(self, channel: str) -> str: ...

    def consent_terms_versions(self, owner_ids: list[int]) -> dict[int, str]: ...

    def third_party_agreement_shown(self, *, user_id: int, year: int) -> dict[str, Any] | None: ...

    def third_party_agreement_column(self, field: str, *, user: str, year: str) -> Subquery: ...


_book: Hook[ConsentBook] = Hook(
    "accounts.consent_book: the consent book", "PrivacyConfig.ready() registers privacy.consents"
)


def consent_book_register(book: ConsentBook) -> None:
    """Called once, by privacy's AppConfig.ready()."""
    _book.register(book)


def consent_book() -> ConsentBook:
    return _book.get()
