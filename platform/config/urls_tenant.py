"""URLs on a partner's host: the API, the back-office admin and the web app."""

from django.contrib import admin
from django.urls import path, re_path

from config.api import api
from tenants.brand_views import brand_asset
from tenants.web_views import api_not_found, favicon_ico, robots_txt, web_app

urlpatterns = [
    path("api/", api.urls),
    re_path(r"^api/", api_not_found),
    path("admin/", admin.site.urls),
    path("robots.txt", robots_txt),
    path("favicon.ico", favicon_ico),
    path("brand/<str:name>", brand_asset),
    # A missing file under /assets/ (an old release's chunk, a source map) is a 404, not the app.
    re_path(r"^(?!api/|admin/|static/|media/|assets/|brand/).*$", web_app, name="web-app"),
]
