"""Staff who could see or manage django_otp's TOTP devices in the admin keep that on the German
authenticator pages (accounts.Authenticator, migration 0007): a proxy model has permissions of
its own, so every group and user holding `otp_totp.<action>_totpdevice` is given
`accounts.<action>_authenticator` too. Superusers need nothing. Runs in every schema (the public
one and each partner's: staff of both kinds)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.management import create_permissions
from django.db import migrations

ACTIONS = ("view", "add", "change", "delete")


def authenticator_permissions_grant(apps: Any, schema_editor: Any) -> None:
    # The proxy's permissions are made by post_migrate, after this migration: make them now.
    accounts = apps.get_app_config("accounts")
    accounts.models_module = True
    create_permissions(accounts, apps=apps, verbosity=0, using=schema_editor.connection.alias)
    accounts.models_module = None
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    User = apps.get_model("accounts", "User")
    for action in ACTIONS:
        old = Permission.objects.filter(
            content_type__app_label="otp_totp",
            content_type__model="totpdevice",
            codename=f"{action}_totpdevice",
        ).first()
        new = Permission.objects.filter(
            content_type__app_label="accounts",
            content_type__model="authenticator",
            codename=f"{action}_authenticator",
        ).first()
        if old is None or new is None:
            continue
        for group in Group.objects.filter(permissions=old):
            group.permissions.add(new)
        for user in User.objects.filter(user_permissions=old):
            user.user_permissions.add(new)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_authenticator_proxy"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(authenticator_permissions_grant, migrations.RunPython.noop)]
