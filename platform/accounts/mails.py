from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

from tenants.models import Partner
from themes.compiler import theme_compile


def mail_send(*, schema_name: str, to: str, template: str, subject: str, context: dict[str, Any]) -> None:
    """A German HTML and text e-mail with the partner's logo and colours."""
    partner = Partner.objects.get(schema_name=schema_name)
    theme = theme_compile(partner.config, partner.kind)
    tokens = theme["tokens"]
    full_context = {
        "partner_name": partner.name,
        "logo": theme["assets"]["logo"],
        "button": tokens["button"],
        "button_text": tokens["buttonText"],
        "text": tokens["text"],
        "font": theme["mui"]["typography"]["fontFamily"],
        **context,
    }
    text = render_to_string(f"accounts/mail/{template}.txt", full_context)
    html = render_to_string(f"accounts/mail/{template}.html", full_context)
    message = EmailMultiAlternatives(
        subject=f"{subject} – {partner.name}",
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={"X-Partner": partner.subdomain},
    )
    message.attach_alternative(html, "text/html")
    message.send()
