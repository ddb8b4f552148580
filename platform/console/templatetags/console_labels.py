"""The console's templates name a configuration field by its section and German labels."""

from __future__ import annotations

from django import template

from tenants.config_form import path_label

register = template.Library()


@register.filter
def config_label(path: str) -> str:
    """'pages.finish.redirect_url' -> 'Texte › Abschlussseite › Weiterleitung nach Abschluss (URL)'."""
    return path_label(path)
