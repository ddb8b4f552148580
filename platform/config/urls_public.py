"""URLs on the public host: the platform admin (partner onboarding) and the API's shared calls."""

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from config.api import api

urlpatterns = [
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
]
