from __future__ import annotations

from django.apps import AppConfig

from accounts.consent_book import consent_book_register


class PrivacyConfig(AppConfig):
    name = "privacy"
    verbose_name = "Datenschutz"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from privacy import consents  # models are loaded only now

        # The apps below privacy record and read consents through accounts.consent_book.
        consent_book_register(consents)
