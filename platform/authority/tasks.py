"""Building a UBA package runs in a huey worker: a year's package has thousands of scans."""

from __future__ import annotations

from django_tenants.utils import get_public_schema_name, schema_context
from huey.contrib.djhuey import db_task

from authority.package import submission_package_store


@db_task(retries=1, retry_delay=30)
def submission_package_build(submission_id: int) -> None:
    # Public schema: the package and its items live there; the builder enters each partner's
    # schema for its applications and scans.
    with schema_context(get_public_schema_name()):
        submission_package_store(submission_id=submission_id)
