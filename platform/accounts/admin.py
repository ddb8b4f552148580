"""The authenticator apps of staff in the admin, in German (issue 49): django_otp's own admin
of its TOTP devices shows the model's English names and help texts ("TOTP device", "Created
at", "The user that this device belongs to."). The same rows, through a proxy model with
German names and this admin, which keeps the library's admin's behaviour (its QR code views).

The group form too: Django stores a permission's name in English ("Can view Antrag") when it
creates it; the picker names each by the German names of its app and model and the action in
German, and offers the permissions of the pages this admin shows on this host (with those the
group already holds), not those of the libraries' plumbing."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django_otp.plugins.otp_totp.admin import TOTPDeviceAdmin
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import Authenticator

LABELS = {
    "user": "Benutzer",
    "name": "Bezeichnung",
    "confirmed": "Bestätigt",
    "key": "Geheimer Schlüssel",
    "step": "Zeitschritt (Sekunden)",
    "t0": "Beginn der Zählung (Unix-Zeit)",
    "digits": "Stellen des Codes",
    "tolerance": "Toleranz (Zeitschritte)",
    "drift": "Abweichung der Uhr (Zeitschritte)",
    "throttling_failure_timestamp": "Letzter Fehlversuch",
    "throttling_failure_count": "Fehlversuche in Folge",
}
HELP = {
    "user": "Wem die App gehört.",
    "name": "Ein Name, an dem die Person ihre App erkennt.",
    "confirmed": "Eingerichtet und bestätigt: die Codes der App werden angenommen.",
    "key": "Hexadezimal, höchstens 40 Byte.",
    "step": "Wie lange ein Code gilt.",
    "t0": "Meist 0.",
    "digits": "Wie viele Ziffern ein Code hat.",
    "tolerance": "Wie viele Zeitschritte ein Code zu früh oder zu spät sein darf.",
    "drift": "Um wie viele Zeitschritte die Uhr der App bekanntermaßen abweicht.",
    "throttling_failure_timestamp": "Leer, wenn der letzte Versuch gelang.",
    "throttling_failure_count": "Nach mehreren Fehlversuchen wartet die Anmeldung immer länger.",
}


class AuthenticatorForm(forms.ModelForm):
    class Meta:
        model = Authenticator
        fields = list(LABELS)
        labels = LABELS
        help_texts = HELP


class ConfirmedFilter(admin.SimpleListFilter):
    title = "Bestätigt"
    parameter_name = "confirmed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("1", "ja"), ("0", "nein")]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        value = self.value()
        return queryset.filter(confirmed=value == "1") if value in {"0", "1"} else queryset


def _when(value: Any) -> str:
    return f"{timezone.localtime(value):%d.%m.%Y %H:%M}" if value else "–"


class AuthenticatorAdmin(TOTPDeviceAdmin):
    form = AuthenticatorForm
    list_display = ["user_shown", "name_shown", "created_shown", "last_used_shown", "confirmed_shown"]
    list_filter = [ConfirmedFilter]
    search_help_text = "Suche nach Benutzername oder E-Mail-Adresse"
    readonly_fields = ["created_shown", "last_used_shown", "qrcode_link"]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        names = {
            "Identity": "Zuordnung",
            "Timestamps": "Zeitpunkte",
            "Configuration": "Einstellungen",
            "State": "Zustand",
            "Throttling": "Sperre nach Fehlversuchen",
        }
        shown = {"created_at": "created_shown", "last_used_at": "last_used_shown"}
        return [
            (
                names.get(title, title) if title else None,
                {**options, "fields": [shown.get(f, f) for f in options["fields"]]},
            )
            for title, options in super().get_fieldsets(request, obj)
        ]

    @admin.display(description="Benutzer", ordering="user")
    def user_shown(self, obj: TOTPDevice) -> str:
        return str(obj.user)

    @admin.display(description="Bezeichnung", ordering="name")
    def name_shown(self, obj: TOTPDevice) -> str:
        return obj.name

    @admin.display(description="Angelegt am", ordering="created_at")
    def created_shown(self, obj: TOTPDevice) -> str:
        return _when(obj.created_at)

    @admin.display(description="Zuletzt benutzt", ordering="last_used_at")
    def last_used_shown(self, obj: TOTPDevice) -> str:
        return _when(obj.last_used_at)

    @admin.display(description="Bestätigt", ordering="confirmed")
    def confirmed_shown(self, obj: TOTPDevice) -> str:
        # words, not Django's boolean icons (their alt text is "True"/"False")
        return "ja" if obj.confirmed else "nein"

    @admin.display(description="QR-Code")
    def qrcode_link(self, device: TOTPDevice) -> str:
        href = reverse("admin:otp_totp_totpdevice_config", kwargs={"pk": device.pk})
        return format_html('<a href="{}">QR-Code anzeigen</a>', href)


if admin.site.is_registered(TOTPDevice):
    admin.site.unregister(TOTPDevice)
admin.site.register(Authenticator, AuthenticatorAdmin)


PERMISSION_ACTIONS = {"view": "ansehen", "add": "anlegen", "change": "ändern", "delete": "löschen"}
# The libraries' models without a page of their own, named when a group still holds one of their
# permissions (English in the libraries).
LIBRARY_MODELS = {
    "otp_totp.totpdevice": "Zweiter Faktor › Authenticator-App (Bibliothek)",
    "otp_static.staticdevice": "Zweiter Faktor › Ersatzcodes",
    "otp_static.statictoken": "Zweiter Faktor › Ersatzcode",
    "token_blacklist.outstandingtoken": "Anmeldung › Ausgegebenes Token",
    "token_blacklist.blacklistedtoken": "Anmeldung › Gesperrtes Token",
}


def permission_label(permission: Permission) -> str:
    """'Anträge › Antrag: ändern' instead of 'quota | Antrag | Can change Antrag'; a permission
    of the model's own (Meta.permissions) by the name the model gives it."""
    model = permission.content_type.model_class()
    if model is None:  # a model that is gone
        return f"{permission.content_type.app_label} › {permission.content_type.model}: {permission.codename}"
    action, _, rest = permission.codename.partition("_")
    if action in PERMISSION_ACTIONS and rest == model._meta.model_name:
        what = PERMISSION_ACTIONS[action]
    else:
        what = permission.name
    name = LIBRARY_MODELS.get(model._meta.label_lower)
    return f"{name or f'{model._meta.app_config.verbose_name} › {model._meta.verbose_name}'}: {what}"


class GroupAdmin(DjangoGroupAdmin):
    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        if db_field.name == "permissions" and field is not None:
            offered = Permission.objects.filter(self._grantable(request)).select_related("content_type")
            field.queryset = offered
            field.label_from_instance = permission_label  # type: ignore[method-assign,assignment]
        return field

    def _grantable(self, request: HttpRequest) -> Q:
        """The permissions of the models this admin shows the editor on this host, and those
        the group holds already (kept when it is saved)."""
        models = [
            model
            for model, model_admin in self.admin_site._registry.items()
            if model_admin.has_module_permission(request)
        ]
        types = ContentType.objects.get_for_models(*models, for_concrete_models=False).values()
        held = Q(pk__in=[])
        match = request.resolver_match
        object_id = match.kwargs.get("object_id") if match else None
        if object_id and str(object_id).isdigit():
            held = Q(
                pk__in=Group.permissions.through.objects.filter(group_id=int(object_id)).values(
                    "permission_id"
                )
            )
        return Q(content_type__in=[kind.pk for kind in types]) | held


if admin.site.is_registered(Group):
    admin.site.unregister(Group)
admin.site.register(Group, GroupAdmin)
