"""The holder printed on the document compared with the billing name (registrations.eligibility):
a mismatch goes to the review, it is never refused (leasing, companies)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("registrations", "0010_review_queue_index")]

    operations = [
        migrations.AddField(
            model_name="bevregistration",
            name="holder_mismatch",
            field=models.BooleanField(blank=True, null=True),
        ),
    ]
