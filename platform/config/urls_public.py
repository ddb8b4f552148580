"""URLs on the public host: the platform admin (partner onboarding) and the API's shared calls."""

from django.contrib import admin
from django.urls import path, re_path
from django.views.generic import RedirectView

from config.api import api
from tenants.web_views import api_not_found, favicon_ico, robots_txt

urlpatterns = [
    path("api/", api.urls),
    re_path(r"^api/", api_not_found),
    path("admin/", admin.site.urls),
    path("robots.txt", robots_txt),
    path("favicon.ico", favicon_ico),
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
]
