from django.db import migrations, models

from common.trigram import trigram_index


class Migration(migrations.Migration):
    dependencies = [
        ("registrations", "0004_merge_0003_plate_0003_scan_display_copy"),
        ("accounts", "0006_trigram_search"),  # pg_trgm (common.trigram)
    ]

    operations = [
        trigram_index(model_name="bevregistration", table="registrations_bevregistration", column="vin", name="registrations_vin_trgm"),
        migrations.AddIndex(
            model_name="bevregistration",
            index=models.Index(
                condition=models.Q(("vehicle_class__in", ["", "M1"]), _negated=True),
                fields=["id", "vehicle_class"],
                name="registrations_not_m1",
            ),
        ),
    ]
