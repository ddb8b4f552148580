from django.apps import AppConfig


class QuotaConfig(AppConfig):
    name = "quota"
    verbose_name = "Anträge"
    default_auto_field = "django.db.models.BigAutoField"
