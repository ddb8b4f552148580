"""Settlement items survive the erasure of their owner (issue 19, GDPR Art. 17): the links to
the application and the owner become nullable (SET_NULL instead of PROTECT, which made every
erasure of a paid owner fail), and each item keeps the application's number and year itself,
plus the pseudonym and time of an erasure. Existing rows get number and year from their
application, in batches."""

from django.db import migrations, models
import django.db.models.deletion

BATCH = 500


def fill(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    SettlementItem = apps.get_model("operations", "SettlementItem")
    last = 0
    while True:
        rows = list(
            SettlementItem.objects.filter(pk__gt=last)
            .order_by("pk")
            .select_related("application__registration")
            .only("pk", "application__legislation_year", "application__registration__sequence")[:BATCH]
        )
        if not rows:
            return
        for row in rows:
            if row.application is not None:
                row.sequence = row.application.registration.sequence
                row.legislation_year = row.application.legislation_year
        SettlementItem.objects.bulk_update(rows, ["sequence", "legislation_year"])
        last = rows[-1].pk


class Migration(migrations.Migration):
    dependencies = [("operations", "0003_settlementitem_iban_masked")]

    operations = [
        migrations.AlterField(
            model_name="settlementitem",
            name="application",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="settlement_items",
                to="quota.quotaapplication",
            ),
        ),
        migrations.AlterField(
            model_name="settlementitem",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="accounts.user",
            ),
        ),
        migrations.AddField(
            model_name="settlementitem",
            name="sequence",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="settlementitem",
            name="legislation_year",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="settlementitem",
            name="pseudonym",
            field=models.CharField(blank=True, db_index=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="settlementitem",
            name="erased_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
