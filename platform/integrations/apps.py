from django.apps import AppConfig

from quota.hooks import application_references_register
from staff.credentials import api_key_check_register


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = "Schnittstellen"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from integrations import selectors  # models are loaded only now
        from integrations.keys import api_key_member

        # staff and quota sit below integrations and ask through their hooks: the partner
        # area's calls take an API key instead of the staff session (staff.credentials), and
        # the partner area's application list (operations.application_selectors) shows the
        # partner's own references (quota.hooks).
        api_key_check_register(api_key_member)
        application_references_register(selectors)
