from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registrations", "0008_field_boxes"),
    ]

    operations = [
        migrations.AddField(
            model_name="fieldcorrection",
            name="rule",
            field=models.CharField(blank=True, max_length=30),
        ),
    ]
