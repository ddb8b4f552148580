import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("authority", "0001_initial"),
        ("tenants", "0006_quota_years"),
    ]

    operations = [
        migrations.AddField(
            model_name="authoritysubmission",
            name="partner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="tenants.partner",
            ),
        ),
        migrations.AddField(
            model_name="authoritysubmission",
            name="limit",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="authoritysubmission",
            name="left_out",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="authoritysubmission",
            name="answer_file",
            field=models.CharField(blank=True, max_length=300),
        ),
    ]
