from django.db import migrations, models

from common.trigram import trigram_index


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0002_encrypt_personal_fields"),
        ("accounts", "0006_trigram_search"),  # pg_trgm (common.trigram)
    ]

    operations = [
        trigram_index(model_name="client", table="billing_client", column="first_name", name="billing_client_first_trgm"),
        trigram_index(model_name="client", table="billing_client", column="last_name", name="billing_client_last_trgm"),
        trigram_index(
            model_name="client", table="billing_client", column="name_of_business", name="billing_client_business_trgm"
        ),
        migrations.AddIndex(
            model_name="client",
            index=models.Index(
                condition=models.Q(("locked_at__isnull", False)), fields=["locked_at", "owner"], name="billing_client_locked"
            ),
        ),
    ]
