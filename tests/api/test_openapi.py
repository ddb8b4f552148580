"""The OpenAPI document tells every answer and every body: what a client or a schema fuzzer
reads from it is what the API does."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from config.api import api

    return api.get_openapi_schema()  # type: ignore[no-any-return]


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, ops in schema["paths"].items() for method, op in ops.items()]


def test_every_operation_documents_its_error_answers(schema: dict[str, Any]) -> None:
    missing = []
    for method, path, op in operations(schema):
        codes = set(op["responses"])
        wanted = {400}
        if op.get("security"):
            wanted.add(401)
        if "requestBody" in op:
            wanted.add(413)
        if any(parameter["in"] == "path" for parameter in op.get("parameters", [])):
            wanted.add(404)
        if not wanted <= codes:
            missing.append((method, path, sorted(wanted - codes)))
    assert missing == []


def test_the_400_shape_covers_field_errors_and_details(schema: dict[str, Any]) -> None:
    answer = schema["paths"]["/api/auth/registration/otp/verify/"]["post"]["responses"][400]
    options = answer["content"]["application/json"]["schema"]["anyOf"]

    assert {"$ref": "#/components/schemas/FieldErrors"} in options
    assert {"$ref": "#/components/schemas/ErrorDetail"} in options
    assert schema["components"]["schemas"]["ErrorDetail"]["required"] == ["detail"]


def test_the_upload_and_the_resubmit_document_their_form_bodies(schema: dict[str, Any]) -> None:
    upload = schema["paths"]["/api/bev_registrations/"]["post"]["requestBody"]["content"]
    resubmit_path = "/api/end_user_portal/quota_applications/{application_id}/duplicate_for_new_period/"
    resubmit = schema["paths"][resubmit_path]["put"]["requestBody"]["content"]

    form = upload["multipart/form-data"]["schema"]
    assert form["properties"]["zlb_scan"] == {
        "type": "string",
        "format": "binary",
        "description": "Image or PDF of the registration certificate, at most 10 MB.",
    }
    assert set(form["required"]) == {"partner", "zlb_scan"}
    assert set(resubmit) == {"multipart/form-data", "application/x-www-form-urlencoded"}
    assert resubmit["multipart/form-data"]["schema"]["required"] == ["period"]


def test_the_served_document_is_the_completed_one(db: None) -> None:
    served = Client().get("/api/openapi.json", HTTP_HOST="autohaus.localhost").json()

    assert "ErrorDetail" in served["components"]["schemas"]
    assert 401 in {int(code) for code in served["paths"]["/api/clients/"]["post"]["responses"]}
