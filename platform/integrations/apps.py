from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = "Schnittstellen"
    default_auto_field = "django.db.models.BigAutoField"
