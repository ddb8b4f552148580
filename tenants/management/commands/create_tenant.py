"""django-tenants' stock `create_tenant` is refused here: it would bypass provisioning (template clone,
domains, configuration validation and versions) or drop a partner's data without a dump."""

from tenants.management.refused import RefusedCommand


class Command(RefusedCommand):
    name = "create_tenant"
