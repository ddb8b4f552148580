from django.apps import AppConfig, apps

from privacy.signals import erasure
from quota.hooks import vehicle_registry_register


class AuthorityConfig(AppConfig):
    name = "authority"
    verbose_name = "Umweltbundesamt und Doppelregistrierungen"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from authority import registry  # models are loaded only now

        # quota claims and releases vehicles through its hook (quota.hooks): quota sits below
        # authority and never imports it.
        vehicle_registry_register(registry)
        # The privacy app's erasure frees the registry entries of applications that had not
        # reached the authority yet.
        if apps.is_installed("privacy"):
            erasure.connect(registry.owner_erasure_release, dispatch_uid="authority.erasure_release")
