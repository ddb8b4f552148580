"""The OpenAPI document tells every answer and every body: what a client or a schema fuzzer
reads from it is what the API does."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from django.test import Client
from pydantic import BaseModel


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


def test_every_success_answer_names_its_schema(schema: dict[str, Any]) -> None:
    # A content type without a schema leaves the generated client an `unknown`: a file
    # download says its body is bytes (common.downloads.download_answer), JSON its shape.
    missing = [
        (method, path, status, content_type)
        for method, path, op in operations(schema)
        for status, answer in op["responses"].items()
        if str(status).startswith("2")
        for content_type, body in answer.get("content", {}).items()
        if not body.get("schema")
    ]
    assert missing == []


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


def schema_classes(annotation: Any, found: dict[str, set[str]]) -> None:
    """Every pydantic model an annotation names, itself and through its fields, by the name
    it gets in the document's components."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        where = f"{annotation.__module__}.{annotation.__qualname__}"
        seen = found.setdefault(annotation.__name__, set())
        if where in seen:
            return
        seen.add(where)
        for field in annotation.model_fields.values():
            schema_classes(field.annotation, found)
        return
    for argument in get_args(annotation):
        schema_classes(argument, found)


def test_one_class_per_component_name() -> None:
    # The document names a component by its class's name only: two classes of one name (three
    # apps' DetailOut once) become one component, and the generated client types every answer
    # of both by whichever class came last.
    from config.api import api

    # given every schema an operation reads or answers with
    found: dict[str, set[str]] = {}
    for _prefix, router in api._routers:
        for path_view in router.path_operations.values():
            for operation in path_view.operations:
                for model in operation.models:
                    schema_classes(model, found)
                for wrapper in operation.response_models.values():
                    if isinstance(wrapper, type) and issubclass(wrapper, BaseModel):
                        schema_classes(wrapper.model_fields["response"].annotation, found)

    # then no name stands for two classes
    shared = {name: sorted(classes) for name, classes in found.items() if len(classes) > 1}
    assert shared == {}
    assert "common.schemas.DetailOut" in found["DetailOut"]
