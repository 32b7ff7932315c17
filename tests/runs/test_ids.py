from __future__ import annotations

from tracegrade.runs import job_id_for


def test_job_ids_depend_only_on_the_material() -> None:
    assert job_id_for({"a": 1, "b": [2]}) == job_id_for({"b": [2], "a": 1})
    assert job_id_for({"a": 1}) != job_id_for({"a": 2})
    assert job_id_for({"a": 1}, prefix="suite").startswith("suite-")


def test_a_job_id_is_the_prefix_and_twelve_hex_digits() -> None:
    prefix, digest = job_id_for(["inputs", 3]).split("-")
    assert prefix == "tg" and len(digest) == 12 and int(digest, 16) >= 0
