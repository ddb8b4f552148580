from django.apps import AppConfig

from billing.hooks import applications_create_register


class QuotaConfig(AppConfig):
    name = "quota"
    verbose_name = "Anträge"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from quota.services import client_applications_create  # models are loaded only now

        # Locking a client (billing.services.client_lock) makes the applications: billing sits
        # below quota and asks through its hook.
        applications_create_register(client_applications_create)
