from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class StaffConfig(AppConfig):
    default = True
    name = "staff"
    verbose_name = "Mitarbeiter"


class StaffAdminConfig(admin_apps.AdminConfig):
    """Django's admin, with the staff site (password, then a second factor) as `admin.site`
    on every host: the public host's platform admin and each partner's back office."""

    default = False
    default_site = "staff.sites.StaffAdminSite"
