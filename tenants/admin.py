"""Partner onboarding in the Django admin of the public host; provisioning goes through
tenants.services, exactly as `manage.py create_partner` does."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from tenants.middleware import request_partner
from tenants.models import Domain, Partner
from tenants.services import config_clean, partner_provision, partner_update


class PartnerForm(forms.ModelForm):
    custom_domain = forms.CharField(required=False, help_text="Optional, e.g. thg.example.de")

    class Meta:
        model = Partner
        fields = ["subdomain", "name", "kind", "frontend_active", "config"]

    def clean_config(self) -> dict[str, Any]:
        try:
            return config_clean(self.cleaned_data.get("config") or {})
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["config"]) from None


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 0
    fields = ["domain", "is_primary"]


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    form = PartnerForm
    list_display = ["subdomain", "name", "kind", "frontend_active", "updated_at"]
    list_filter = ["kind", "frontend_active"]
    search_fields = ["subdomain", "name"]
    readonly_fields = ["schema_name", "config_version", "created_at", "updated_at"]
    inlines = [DomainInline]

    # Partners are managed on the public host only, never from a partner's own site.
    def has_module_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return request_partner(request) is None and super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and super().has_add_permission(request)

    def has_change_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return request_partner(request) is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return request_partner(request) is None and super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Partner | None = None) -> list[str]:
        readonly = list(self.readonly_fields)
        return [*readonly, "subdomain"] if obj is not None else readonly

    def get_inlines(self, request: HttpRequest, obj: Partner | None) -> list[Any]:
        return self.inlines if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Partner, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        if change:
            partner_update(
                partner=obj,
                name=data["name"],
                kind=data["kind"],
                config=data["config"],
                frontend_active=data["frontend_active"],
            )
        else:
            provisioned = partner_provision(
                subdomain=data["subdomain"],
                name=data["name"],
                kind=data["kind"],
                config=data["config"],
                frontend_active=data["frontend_active"],
                custom_domain=data.get("custom_domain") or None,
            )
            obj.pk = provisioned.pk
            obj.schema_name = provisioned.schema_name
