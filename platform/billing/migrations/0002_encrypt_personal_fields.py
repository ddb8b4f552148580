"""Street, house number, bank and card data and the VAT/tax number encrypted at rest (issue 19).

Three steps, run in every partner schema (and the template new partners are cloned from):
the columns become plain text (tokens are longer than the old limits), the rows present are
encrypted in batches, then the fields become EncryptedTextField (same column type, so no
change in the database: from then on the ORM encrypts on write and decrypts on read).
"""

from django.db import migrations, models

import common.crypto

FIELDS = ("street_name", "street_number", "account_name", "account_iban", "account_bic", "charge_card", "vat_number")
BATCH = 500


def _convert(apps, convert) -> None:  # type: ignore[no-untyped-def]
    # Between the two AlterFields the historical model's columns are plain text: what is read
    # is what is stored, and what is written is stored as given.
    Client = apps.get_model("billing", "Client")
    last = 0
    while True:
        rows = list(Client.objects.filter(pk__gt=last).order_by("pk").only("pk", *FIELDS)[:BATCH])
        if not rows:
            return
        for row in rows:
            for name in FIELDS:
                value = getattr(row, name)
                if value:
                    setattr(row, name, convert(value))
        Client.objects.bulk_update(rows, FIELDS)
        last = rows[-1].pk


def encrypt(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    _convert(apps, common.crypto.field_encrypt)


def decrypt(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    _convert(apps, common.crypto.field_decrypt)



class Migration(migrations.Migration):
    dependencies = [("billing", "0001_initial")]

    operations = [
        *[
            migrations.AlterField(model_name="client", name=name, field=models.TextField(blank=name not in {"street_name", "street_number"}))
            for name in FIELDS
        ],
        migrations.RunPython(encrypt, decrypt),
        *[
            migrations.AlterField(
                model_name="client",
                name=name,
                field=common.crypto.EncryptedTextField(blank=name not in {"street_name", "street_number"}),
            )
            for name in FIELDS
        ],
    ]
