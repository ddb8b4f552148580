"""The masked IBAN beside the encrypted one (issue 19): lists show it without decrypting.
Existing rows get it from their decrypted IBAN, in batches, in every partner schema."""

from django.db import migrations

import billing.masking

def fill(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    billing.masking.fill_masked_column(apps.get_model("billing", "Client"), source="account_iban", target="account_iban_masked")


class Migration(migrations.Migration):
    dependencies = [("billing", "0002_encrypt_personal_fields")]

    operations = [
        migrations.AddField(
            model_name="client",
            name="account_iban_masked",
            field=billing.masking.IbanMaskField(
                blank=True, default="", editable=False, max_length=60, source="account_iban"
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
