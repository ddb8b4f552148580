"""The login flows' e-mails. A mail task carries a row id; the secret the mail needs (a code,
a link) waits in that row encrypted with a key derived from SECRET_KEY and is cleared once the
mail is sent, so neither the queue (Redis/SQLite) nor the database keeps it in clear."""

from __future__ import annotations

import base64
import logging
import re
from email.utils import formataddr, parseaddr
from html import unescape
from typing import Any
from urllib.parse import urlencode

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.html import strip_tags
from django.utils.http import urlsafe_base64_encode

from accounts.models import LoginCode, LoginLink, User
from accounts.tokens import PartnerResetTokens
from common.metrics import MAILS
from tenants.brand import mail_logo_url
from tenants.middleware import partner_site_url
from tenants.models import Partner
from themes.compiler import theme_compile

logger = logging.getLogger(__name__)


def mail_sender(partner: Partner) -> str:
    """From: the partner's name over the platform's sending address (the address must be
    one the mail service may send for; the name is what the owner sees in the inbox)."""
    _, address = parseaddr(settings.DEFAULT_FROM_EMAIL)
    return formataddr((partner.name, settings.MAIL_FROM_ADDRESS or address))


def mail_imprint(partner: Partner) -> tuple[str, str]:
    """The partner's imprint (its Impressum, sanitised when saved) for the mail's footer, as
    HTML and as text; empty when the partner has none."""
    html = str((partner.config or {}).get("impressum_details") or "").strip()
    if not html:
        return "", ""
    text = re.sub(r"<br\s*/?>|</p>|</div>|</li>", "\n", html, flags=re.IGNORECASE)
    text = "\n".join(line.strip() for line in unescape(strip_tags(text)).splitlines() if line.strip())
    return html, text


def mail_context(partner: Partner, context: dict[str, Any]) -> dict[str, Any]:
    """What every mail template gets: the partner's name, logo, colours and imprint."""
    theme = theme_compile(partner.config, partner.kind)
    tokens = theme["tokens"]
    logo = theme["assets"]["logo"]
    if isinstance(logo, str) and logo.startswith("/"):
        # An uploaded brand asset (tenants.brand: a PNG for raster logos, the PNG copy of an SVG
        # one; mail clients show no SVG), by its absolute URL on the partner's own domain.
        logo = mail_logo_url(schema_name=partner.schema_name, logo=logo)
        logo = partner_site_url(partner).rstrip("/") + logo
    imprint_html, imprint_text = mail_imprint(partner)
    return {
        "partner_name": partner.name,
        "logo": logo,
        "button": tokens["button"],
        "button_text": tokens["buttonText"],
        "text": tokens["text"],
        "font": theme["mui"]["typography"]["fontFamily"],
        "imprint_html": imprint_html,
        "imprint_text": imprint_text,
        **context,
    }


def mail_send(*, schema_name: str, to: str, template: str, subject: str, context: dict[str, Any]) -> None:
    """A German HTML and text e-mail with the partner's logo, colours and imprint, sent in
    the partner's name."""
    partner = Partner.objects.get(schema_name=schema_name)
    full_context = mail_context(partner, context)
    text = render_to_string(f"accounts/mail/{template}.txt", full_context)
    html = render_to_string(f"accounts/mail/{template}.html", full_context)
    message = EmailMultiAlternatives(
        subject=f"{subject} – {partner.name}",
        body=text,
        from_email=mail_sender(partner),
        to=[to],
        reply_to=[settings.MAIL_REPLY_TO] if settings.MAIL_REPLY_TO else None,
        headers={"X-Partner": partner.subdomain},
    )
    message.attach_alternative(html, "text/html")
    try:
        message.send()
    except Exception:
        MAILS.labels(template=template, result="failed").inc()
        raise
    MAILS.labels(template=template, result="sent").inc()


def _fernet() -> MultiFernet:
    """Encrypts with SECRET_KEY; decrypts with it or a key in SECRET_KEY_FALLBACKS (rotation)."""
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet(
        [
            Fernet(
                base64.urlsafe_b64encode(
                    HKDF(algorithm=SHA256(), length=32, salt=None, info=b"thg.mail-secret").derive(
                        str(secret).encode()
                    )
                )
            )
            for secret in secrets
        ]
    )


def mail_secret_seal(value: str) -> str:
    return _fernet().encrypt(value.encode()).decode()


def mail_secret_open(sealed: str) -> str | None:
    try:
        return _fernet().decrypt(sealed.encode()).decode()
    except InvalidToken:
        # Sealed under a SECRET_KEY no longer in SECRET_KEY_FALLBACKS: the user asks again.
        logger.warning("mail secret unreadable (SECRET_KEY changed?)")
        return None


def login_code_mail(*, schema_name: str, code_id: int) -> None:
    """Mail the code of one LoginCode row, once. A code replaced, used or expired before the
    worker got to it is not mailed (its successor's mail carries the valid one)."""
    row = LoginCode.objects.filter(pk=code_id).exclude(sealed="").first()
    if row is None:
        return
    code = mail_secret_open(row.sealed)
    if code is not None and row.used_at is None and row.expires_at > timezone.now():
        mail_send(
            schema_name=schema_name,
            to=row.email,
            template="login_code",
            subject="Ihr Bestätigungscode",
            context={"code": code},
        )
    # Cleared only after a successful send: a failed send is retried with the row intact.
    LoginCode.objects.filter(pk=row.pk).update(sealed="")


def password_reset_mail(*, schema_name: str, user_id: int, site_url: str) -> None:
    """The reset (or account creation) link, made here from the user: Django's reset token
    depends only on the user's row and the key, so it need not travel through the queue. A user
    gone or deactivated since the request gets nothing."""
    partner = Partner.objects.get(schema_name=schema_name)
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return
    query = {
        "token": PartnerResetTokens(partner).make_token(user),
        "id": urlsafe_base64_encode(force_bytes(user.pk)),
    }
    creation = not user.has_usable_password()
    if creation:
        query["is_user_creation"] = "true"
    mail_send(
        schema_name=schema_name,
        to=user.email,
        template="account_create" if creation else "password_reset",
        subject="Ihr Zugang zum Kundenportal" if creation else "Passwort zurücksetzen",
        context={"link": f"{site_url.rstrip('/')}/portal/auth/reset-password?{urlencode(query)}"},
    )


LINK_MAILS = {
    LoginLink.Purpose.REGISTRATION: ("login_link", "Bitte bestätigen Sie Ihre E-Mail-Adresse"),
    LoginLink.Purpose.SIGNUP: ("portal_signup", "Ihre Anmeldung im Kundenportal"),
}


def login_link_mail(*, schema_name: str, link_id: int) -> None:
    """Mail the link of one LoginLink row, once (as login_code_mail)."""
    row = LoginLink.objects.filter(pk=link_id).exclude(sealed="").first()
    if row is None:
        return
    link = mail_secret_open(row.sealed)
    if link is not None and row.used_at is None and row.expires_at > timezone.now():
        template, subject = LINK_MAILS[LoginLink.Purpose(row.purpose)]
        mail_send(
            schema_name=schema_name, to=row.email, template=template, subject=subject, context={"link": link}
        )
    LoginLink.objects.filter(pk=row.pk).update(sealed="")
