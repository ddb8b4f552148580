"""The staff member's daily mail digest: a switch (on by default) and the day last mailed."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0002_member_sessions_since"),
    ]

    operations = [
        migrations.AddField(
            model_name="staffmember",
            name="digest_enabled",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="staffmember",
            name="digest_sent_for",
            field=models.DateField(blank=True, null=True),
        ),
    ]
