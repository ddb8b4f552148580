"""E-mails of the login flows, sent in the background in the partner's branding."""

from __future__ import annotations

from accounts.mails import mail_send
from config.tasks import tenant_task


@tenant_task(retries=3, retry_delay=30)
def mail_login_code(schema_name: str, email: str, code: str) -> None:
    mail_send(
        schema_name=schema_name,
        to=email,
        template="login_code",
        subject="Ihr Bestätigungscode",
        context={"code": code},
    )


@tenant_task(retries=3, retry_delay=30)
def mail_login_link(schema_name: str, email: str, link: str) -> None:
    mail_send(
        schema_name=schema_name,
        to=email,
        template="login_link",
        subject="Bitte bestätigen Sie Ihre E-Mail-Adresse",
        context={"link": link},
    )


@tenant_task(retries=3, retry_delay=30)
def mail_password_reset(schema_name: str, email: str, link: str, creation: bool) -> None:
    mail_send(
        schema_name=schema_name,
        to=email,
        template="account_create" if creation else "password_reset",
        subject="Ihr Zugang zum Kundenportal" if creation else "Passwort zurücksetzen",
        context={"link": link},
    )


@tenant_task(retries=3, retry_delay=30)
def mail_signup_link(schema_name: str, email: str, link: str) -> None:
    mail_send(
        schema_name=schema_name,
        to=email,
        template="portal_signup",
        subject="Ihre Anmeldung im Kundenportal",
        context={"link": link},
    )
