from django.apps import AppConfig

from staff.credentials import api_key_check_register


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = "Schnittstellen"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The partner area's calls take an API key instead of the staff session
        # (staff.credentials): staff sits below integrations and asks through this hook.
        from integrations.keys import api_key_member  # models are loaded only now

        api_key_check_register(api_key_member)
