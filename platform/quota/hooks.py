"""Hooks quota offers to the apps above it, each filled in their AppConfig.ready().

quota's application writes and reads meet parts of apps that sit above quota in the layering
(they read quota's applications, so quota never imports them):

- the cross-partner double-registration registry (authority.registry, registered by
  AuthorityConfig.ready()): quota claims, confirms and releases an application's vehicle as
  the application is created and moved (quota.services);
- the sub-partners and single deals (operations.attribution, registered by
  OperationsConfig.ready()): a new application is attributed by the client's URL variables,
  and a single deal takes it only within its years, cap and price ceiling;
- the payout documents of an application (operations.credit_notes.card_documents, idem), which
  the portal's card lists;
- the partner's own reference of an application (integrations.selectors, registered by
  IntegrationsConfig.ready()), which the partner area's list and detail show
  (operations.application_selectors: operations, too, sits below integrations).

Each is asked for with its function (`vehicle_registry()`, ...): a clear error names the app
that should have filled it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from common.hooks import Hook

if TYPE_CHECKING:
    from billing.models import Client
    from tenants.models import Partner


# ---------------------------------------------------------------- the vehicle registry


class Conflict(Protocol):
    """An open double registration, as far as quota reads it."""

    @property
    def legislation_year(self) -> int: ...


class VehicleRegistry(Protocol):
    """What quota calls of the registry (authority.registry's functions of the same names). Each
    runs in the caller's transaction, for the partner whose schema is active."""

    def vin_normalise(self, vin: str) -> str: ...

    def vehicle_claim(
        self, *, vin: str, legislation_year: int, application_id: int, confirmed: bool = ...
    ) -> object: ...

    def vehicle_confirm(self, *, application_id: int) -> Sequence[Conflict]: ...

    def vehicle_release(self, *, application_id: int) -> int: ...

    def open_conflicts(self, *, application_id: int) -> Sequence[Conflict]: ...


_registry: Hook[VehicleRegistry] = Hook(
    "quota.hooks: the vehicle registry", "AuthorityConfig.ready() registers authority.registry"
)


def vehicle_registry_register(value: VehicleRegistry) -> None:
    """Called once, by authority's AppConfig.ready()."""
    _registry.register(value)


def vehicle_registry() -> VehicleRegistry:
    return _registry.get()


# ---------------------------------------------------------------- sub-partners and single deals


class Attribution(Protocol):
    """The active sub-partner and single deal (operations' rows, or None) a client names."""

    @property
    def sub_partner(self) -> Any: ...

    @property
    def single_deal(self) -> Any: ...


class Deals(Protocol):
    """operations.attribution's functions of the same names."""

    def client_attribution(self, client: Client) -> Attribution: ...

    def single_deal_lock(self, deal_id: int) -> Any:
        """The deal's row, locked (select_for_update) in the caller's transaction."""
        ...

    def single_deal_refusal(
        self, deal: Any, *, year: int, registration_id: int, vehicle_class: str | None = None
    ) -> tuple[str, str] | None: ...


_deals: Hook[Deals] = Hook(
    "quota.hooks: the single deals", "OperationsConfig.ready() registers operations.attribution"
)


def deals_register(value: Deals) -> None:
    """Called once, by operations' AppConfig.ready()."""
    _deals.register(value)


def deals() -> Deals:
    return _deals.get()


# ---------------------------------------------------------------- the payout documents


class CardDocuments(Protocol):
    """The portal card's payout documents of one application: kind, number, date, link."""

    def __call__(self, application: Any, *, partner: Partner) -> list[dict[str, Any]]: ...


_card_documents: Hook[CardDocuments] = Hook(
    "quota.hooks: the card documents",
    "OperationsConfig.ready() registers operations.credit_notes.card_documents",
)


def card_documents_register(value: CardDocuments) -> None:
    """Called once, by operations' AppConfig.ready()."""
    _card_documents.register(value)


def card_documents() -> CardDocuments:
    return _card_documents.get()


# ---------------------------------------------------------------- the partner's references


class ApplicationReferences(Protocol):
    def references_of(self, application_ids: list[int]) -> dict[int, str]:
        """The references of these applications (those that have one)."""
        ...

    def reference_sql(self, application_id_sql: str) -> str:
        """A scalar SQL subquery: the reference of the application whose id is the SQL
        expression `application_id_sql` (NULL without one), for a list read in one query."""
        ...


_references: Hook[ApplicationReferences] = Hook(
    "quota.hooks: the application references", "IntegrationsConfig.ready() registers integrations.selectors"
)


def application_references_register(value: ApplicationReferences) -> None:
    """Called once, by integrations' AppConfig.ready()."""
    _references.register(value)


def application_references() -> ApplicationReferences:
    return _references.get()
