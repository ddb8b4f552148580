from django.db import migrations

from registrations.models import SEQUENCE_NAME


class Migration(migrations.Migration):
    dependencies = [("registrations", "0001_initial")]

    operations = [
        migrations.RunSQL(
            f"CREATE SEQUENCE IF NOT EXISTS {SEQUENCE_NAME} START WITH 100001",
            f"DROP SEQUENCE IF EXISTS {SEQUENCE_NAME}",
        ),
    ]
