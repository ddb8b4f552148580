"""One payout per application (issue 46): a partial unique index on the settlement items that
are open or paid. A schema that already holds an application in two such items (the bug the
issue describes) fails here on purpose: those payouts need a person's review, not a guess."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("operations", "0005_payout_documents"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="settlementitem",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ["open", "paid"])),
                fields=("application",),
                name="operations_settlement_item_one_payout",
            ),
        ),
    ]
