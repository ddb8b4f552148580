from django.apps import AppConfig


class AuthorityConfig(AppConfig):
    name = "authority"
    verbose_name = "Umweltbundesamt und Doppelregistrierungen"
    default_auto_field = "django.db.models.BigAutoField"
