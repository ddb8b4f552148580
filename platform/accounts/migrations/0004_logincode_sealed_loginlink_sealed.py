from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_loginlink_purpose"),
    ]

    operations = [
        migrations.AddField(
            model_name="logincode",
            name="sealed",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="loginlink",
            name="sealed",
            field=models.TextField(blank=True, default=""),
        ),
    ]
