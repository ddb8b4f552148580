from typing import Any

from django.apps import AppConfig, apps

from quota.hooks import vehicle_registry_register


class AuthorityConfig(AppConfig):
    name = "authority"
    verbose_name = "Umweltbundesamt und Doppelregistrierungen"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from authority import registry  # models are loaded only now

        # quota claims and releases vehicles through its hook (quota.hooks): quota
        # sits below authority and never imports it.
        vehicle_registry_register(registry)
        # The privacy app's erasure frees the registry entries of applications that had not
        # reached the authority yet (authority.registry.owner_erasure_release).
        if apps.is_installed("privacy"):
            from privacy.signals import erasure

            erasure.connect(_erasure_receiver, dispatch_uid="authority.erasure_release")


def _erasure_receiver(sender: Any, *, schema_name: str, user_id: int, **kwargs: Any) -> None:
    from authority.registry import owner_erasure_release

    owner_erasure_release(schema_name=schema_name, user_id=user_id)
