"""The hooks a lower app offers and a higher app fills in its AppConfig.ready() (README
"Layers"): each is filled once Django is set up, by the module the layering expects; one left
empty says which app should have filled it; a second, different filler is refused."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

import integrations.keys
import integrations.selectors
import operations.attribution
import operations.credit_notes
import privacy.consents
import quota.services
from accounts import consent_book
from authority import registry
from billing import hooks as billing_hooks
from quota import hooks as quota_hooks
from staff import credentials

# (module of the hook, its slot, its getter, what fills it, the app named when it is empty)
HOOKS: list[tuple[ModuleType, str, Callable[[], Any], object, str]] = [
    (consent_book, "_book", consent_book.consent_book, privacy.consents, "privacy"),
    (
        billing_hooks,
        "_applications_create",
        billing_hooks.applications_create,
        quota.services.client_applications_create,
        "quota",
    ),
    (quota_hooks, "_registry", quota_hooks.vehicle_registry, registry, "authority"),
    (quota_hooks, "_deals", quota_hooks.deals, operations.attribution, "operations"),
    (
        quota_hooks,
        "_card_documents",
        quota_hooks.card_documents,
        operations.credit_notes.card_documents,
        "operations",
    ),
    (
        quota_hooks,
        "_references",
        quota_hooks.application_references,
        integrations.selectors,
        "integrations",
    ),
]
IDS = [f"{module.__name__}.{slot}" for module, slot, *_ in HOOKS]


@pytest.mark.parametrize(("module", "slot", "getter", "filler", "app"), HOOKS, ids=IDS)
def test_each_hook_is_filled_by_the_app_above(
    module: ModuleType, slot: str, getter: Callable[[], Any], filler: object, app: str
) -> None:
    assert getter() is filler


@pytest.mark.parametrize(("module", "slot", "getter", "filler", "app"), HOOKS, ids=IDS)
def test_an_empty_hook_names_the_app_that_fills_it(
    monkeypatch: pytest.MonkeyPatch,
    module: ModuleType,
    slot: str,
    getter: Callable[[], Any],
    filler: object,
    app: str,
) -> None:
    monkeypatch.setattr(getattr(module, slot), "value", None)

    with pytest.raises(ImproperlyConfigured, match=app):
        getter()


def test_a_second_filler_is_refused_and_the_same_one_accepted() -> None:
    # the same filler again (a second ready(), as in a reloaded test) changes nothing
    quota_hooks.deals_register(operations.attribution)

    with pytest.raises(ImproperlyConfigured, match="already registered"):
        quota_hooks.deals_register(integrations.selectors)  # type: ignore[arg-type]
    assert quota_hooks.deals() is operations.attribution


def test_the_staff_auth_takes_integrations_key_check(monkeypatch: pytest.MonkeyPatch) -> None:
    assert credentials._api_key_check.value is integrations.keys.api_key_member

    monkeypatch.setattr(credentials._api_key_check, "value", None)
    request = RequestFactory().get("/api/partner/quota_applications/", HTTP_X_API_KEY="thg_x")

    assert credentials.carries_api_key(request)
    with pytest.raises(ImproperlyConfigured, match="integrations"):
        credentials.api_key_member(request)
