"""Property-based conformance of the HTTP API to its own OpenAPI document (schemathesis): for every
route, generated requests, valid and invalid, never get a 5xx, and every answer has a status, content
type and body the document declares. On SQLite and PostgreSQL, since each refuses different values
(a huge OFFSET overflows SQLite's 64-bit integers; PostgreSQL refuses NUL bytes in text)."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = 20  # per route and mode: ~40 s for both databases on the 2-core CI machine


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda m: m.value)
def test_every_route_answers_as_its_openapi_document_says(app, tokens: dict[str, str], mode: GenerationMode) -> None:  # type: ignore[no-untyped-def]
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    headers = {"Authorization": f"Bearer {tokens['admin']}"}  # admin holds every scope
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20

    for operation in operations:
        @given(case=operation.as_strategy(mode))
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def answers_as_documented(case) -> None:  # type: ignore[no-untyped-def]
            case.call_and_validate(headers=headers, checks=CHECKS)

        try:
            answers_as_documented()
        except Unsatisfiable:  # nothing invalid to send (a free-form string path parameter only)
            assert mode is GenerationMode.NEGATIVE, operation.label
        except Exception as exc:
            raise AssertionError(f"{operation.label}: {exc}") from exc
