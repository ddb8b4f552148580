"""E-mails of the login flows, sent in the background in the partner's branding.

A task's arguments are the schema and a row id, never a code, link or token: huey keeps
its queue in Redis or SQLite, and what goes there must be safe to read. The task loads
the row and renders the mail (accounts.mails)."""

from __future__ import annotations

from accounts.mails import login_code_mail, login_link_mail, password_reset_mail
from common.tasks import tenant_task


@tenant_task(retries=3, retry_delay=30)
def mail_login_code(schema_name: str, code_id: int) -> None:
    login_code_mail(schema_name=schema_name, code_id=code_id)


@tenant_task(retries=3, retry_delay=30)
def mail_login_link(schema_name: str, link_id: int) -> None:
    """The registration login link and the portal signup link alike (the row's purpose)."""
    login_link_mail(schema_name=schema_name, link_id=link_id)


@tenant_task(retries=3, retry_delay=30)
def mail_password_reset(schema_name: str, user_id: int, site_url: str) -> None:
    """The reset (or account creation) link, made by the task from the user (accounts.mails)."""
    password_reset_mail(schema_name=schema_name, user_id=user_id, site_url=site_url)
