"""The owner's export (GDPR Art. 15/20): the ZIP the worker builds after the request
(privacy.services.data_export_request, privacy.tasks)."""

from __future__ import annotations

import io
import json
import zipfile

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from privacy.models import DataExport
from privacy.selectors import owner_data, owner_scans


def data_export_build(*, schema_name: str, export_id: int) -> DataExport | None:
    """Writes the ZIP (JSON documents and the scans) to private storage. Runs in the schema."""
    export = DataExport.objects.select_related("user").filter(pk=export_id, built_at__isnull=True).first()
    if export is None:
        return None
    data = owner_data(user=export.user)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "LIESMICH.txt",
            "Ihre Daten bei diesem Anbieter (Art. 15 und 20 DSGVO): JSON-Dateien in maschinenlesbarer Form, "
            "die Bilder Ihrer Fahrzeugscheine im Ordner scans/.\n",
        )
        for name, document in data.items():
            archive.writestr(f"{name}.json", json.dumps(document, ensure_ascii=False, indent=2))
        for name, path in owner_scans(user=export.user):
            try:
                with default_storage.open(path, "rb") as handle:
                    archive.writestr(name, handle.read())
            except FileNotFoundError:
                continue
    export.file = default_storage.save(
        f"{schema_name}/exports/{export.uuid}.zip", ContentFile(buffer.getvalue())
    )
    export.built_at = timezone.now()
    export.save(update_fields=["file", "built_at"])
    return export
