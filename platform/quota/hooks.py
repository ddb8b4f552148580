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

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from billing.models import Client
    from tenants.models import Partner


def _missing(hook: str, filler: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"quota.hooks: {hook} is not registered ({filler}; is that app installed?)")


def _twice(hook: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"quota.hooks: {hook} is already registered")


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


_registry: VehicleRegistry | None = None


def vehicle_registry_register(registry: VehicleRegistry) -> None:
    """Called once, by authority's AppConfig.ready()."""
    global _registry
    if _registry is not None and _registry is not registry:
        raise _twice("the vehicle registry")
    _registry = registry


def vehicle_registry() -> VehicleRegistry:
    if _registry is None:
        raise _missing("the vehicle registry", "AuthorityConfig.ready() registers authority.registry")
    return _registry


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


_deals: Deals | None = None


def deals_register(deals: Deals) -> None:
    """Called once, by operations' AppConfig.ready()."""
    global _deals
    if _deals is not None and _deals is not deals:
        raise _twice("the single deals")
    _deals = deals


def deals() -> Deals:
    if _deals is None:
        raise _missing("the single deals", "OperationsConfig.ready() registers operations.attribution")
    return _deals


# ---------------------------------------------------------------- the payout documents


class CardDocuments(Protocol):
    """The portal card's payout documents of one application: kind, number, date, link."""

    def __call__(self, application: Any, *, partner: Partner) -> list[dict[str, Any]]: ...


_card_documents: CardDocuments | None = None


def card_documents_register(documents: CardDocuments) -> None:
    """Called once, by operations' AppConfig.ready()."""
    global _card_documents
    if _card_documents is not None and _card_documents is not documents:
        raise _twice("the card documents")
    _card_documents = documents


def card_documents() -> CardDocuments:
    if _card_documents is None:
        raise _missing(
            "the card documents", "OperationsConfig.ready() registers operations.credit_notes.card_documents"
        )
    return _card_documents


# ---------------------------------------------------------------- the partner's references


class ApplicationReferences(Protocol):
    def references_of(self, application_ids: list[int]) -> dict[int, str]:
        """The references of these applications (those that have one)."""
        ...

    def reference_sql(self, application_id_sql: str) -> str:
        """A scalar SQL subquery: the reference of the application whose id is the SQL
        expression `application_id_sql` (NULL without one), for a list read in one query."""
        ...


_references: ApplicationReferences | None = None


def application_references_register(references: ApplicationReferences) -> None:
    """Called once, by integrations' AppConfig.ready()."""
    global _references
    if _references is not None and _references is not references:
        raise _twice("the application references")
    _references = references


def application_references() -> ApplicationReferences:
    if _references is None:
        raise _missing(
            "the application references", "IntegrationsConfig.ready() registers integrations.selectors"
        )
    return _references
