"""Periodic verification of pending custom domains (tenants.domains)."""

from __future__ import annotations

from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from tenants.domains import pending_domains_verify


@db_periodic_task(crontab(minute="*/5"))
def pending_domains_verify_all() -> None:
    pending_domains_verify()
