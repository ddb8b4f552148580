"""Hooks billing offers to the apps above it.

Locking a client creates one quota application per chosen year of each completed registration
of its owner (DESIGN.md, lifecycle). The applications are quota's, and quota sits above billing
in the layering (it reads the client), so billing never imports it: QuotaConfig.ready()
registers the creation here (quota.services.client_applications_create), and
billing.services.client_lock calls it inside its transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from common.hooks import Hook

if TYPE_CHECKING:
    from accounts.models import User
    from billing.models import Client
    from common.partner_config import PartnerConfig
    from registrations.models import BevRegistration


class ApplicationsRefused(Exception):
    """The applications cannot be made (their only year closed since the upload): `code` and
    `message` are the refusal of the app that makes them, passed on to the caller as they are."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class ApplicationsCreate(Protocol):
    """Makes the applications of one registration billed to `client` (none where they exist);
    raises ApplicationsRefused. Runs in the caller's transaction."""

    def __call__(
        self, *, registration: BevRegistration, client: Client, config: PartnerConfig, actor: User | None
    ) -> object: ...


_applications_create: Hook[ApplicationsCreate] = Hook(
    "billing.hooks: the applications creation",
    "QuotaConfig.ready() registers quota.services.client_applications_create",
)


def applications_create_register(create: ApplicationsCreate) -> None:
    """Called once, by quota's AppConfig.ready()."""
    _applications_create.register(create)


def applications_create() -> ApplicationsCreate:
    return _applications_create.get()
