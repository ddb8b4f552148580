"""A hook: one slot a lower app offers and the app above it fills in its AppConfig.ready(), so
the lower app calls the higher one's code without importing it (README "Layers").

    _registry: Hook[VehicleRegistry] = Hook(
        "quota.hooks: the vehicle registry", "AuthorityConfig.ready() registers authority.registry"
    )

Filling it again with the same object (a second ready(), as in a reloaded test) changes nothing;
another object is refused. Asked for while empty, it names what should have filled it.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")


class Hook(Generic[T]):
    def __init__(self, name: str, filled_by: str) -> None:
        self.name = name  # "<module>: <what it holds>"
        self.filled_by = filled_by  # which AppConfig.ready() fills it with what
        self.value: T | None = None

    def register(self, value: T) -> None:
        if self.value is not None and self.value is not value:
            raise ImproperlyConfigured(f"{self.name} is already registered")
        self.value = value

    def get(self) -> T:
        if self.value is None:
            raise ImproperlyConfigured(
                f"{self.name} is not registered ({self.filled_by}; is that app installed?)"
            )
        return self.value
