from django.apps import AppConfig

from quota.hooks import card_documents_register, deals_register


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from operations import attribution  # models are loaded only now
        from operations.credit_notes import card_documents

        # quota sits below operations and asks through its hooks (quota.hooks): a new
        # application's sub-partner and single deal, and the portal card's payout documents.
        deals_register(attribution)
        card_documents_register(card_documents)
