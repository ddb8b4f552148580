"""The masked IBAN beside the encrypted one on settlement items (issue 19): the batch screen
lists items without decrypting. Existing rows get it from their decrypted IBAN, in batches."""

from django.db import migrations

import billing.masking

def fill(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    billing.masking.fill_masked_column(apps.get_model("operations", "SettlementItem"), source="iban", target="iban_masked")


class Migration(migrations.Migration):
    dependencies = [("operations", "0002_money")]

    operations = [
        migrations.AddField(
            model_name="settlementitem",
            name="iban_masked",
            field=billing.masking.IbanMaskField(
                blank=True, default="", editable=False, max_length=60, source="iban"
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
