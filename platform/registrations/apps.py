from django.apps import AppConfig


class RegistrationsConfig(AppConfig):
    name = "registrations"
    default_auto_field = "django.db.models.BigAutoField"
