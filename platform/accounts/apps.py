from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Benutzerkonten"  # the admin's heading of the authenticator apps
    default_auto_field = "django.db.models.BigAutoField"
