"""django-tenants' stock `delete_domain` is refused here: it removes a host outside the console: no audit, no domain cache refresh."""

from tenants.management.refused import RefusedCommand


class Command(RefusedCommand):
    name = "delete_domain"
