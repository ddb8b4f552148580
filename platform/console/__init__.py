"""The onboarding console (issue 50, DESIGN.md Layout): what the platform's team runs over
every app at once, above them in the layering (.importlinter): the partner admin of the public
host, a partner's backup, restore and purge, and the demo seeding (`manage.py seed_demo`)."""
