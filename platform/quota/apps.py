from django.apps import AppConfig


class QuotaConfig(AppConfig):
    name = "quota"
    verbose_name = "Quota applications"
    default_auto_field = "django.db.models.BigAutoField"
