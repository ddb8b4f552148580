"""The batch's SEPA file, built once and kept (issue 46)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("operations", "0006_settlement_item_one_payout"),
    ]

    operations = [
        migrations.AddField(
            model_name="settlementbatch",
            name="sepa_file",
            field=models.BinaryField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="settlementbatch",
            name="sepa_version",
            field=models.CharField(blank=True, max_length=2),
        ),
        migrations.AddField(
            model_name="settlementbatch",
            name="sepa_msg_id",
            field=models.CharField(blank=True, max_length=35),
        ),
        migrations.AddField(
            model_name="settlementbatch",
            name="sepa_built_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="settlementbatch",
            name="sepa_downloads",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
