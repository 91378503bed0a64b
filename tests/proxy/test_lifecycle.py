"""SchemaValidator and SchemaLifecycle, mirroring the dcp-gateway's schema-validator suite."""

from __future__ import annotations

from typing import Any

import pytest

from gcxwire.proxy.lifecycle import Event, SchemaLifecycle, SchemaValidator, field_kinds


def rows(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [
        {"id": i, "name": f"n{i}", "gone": None, "sparse": i if i % 2 else None, **extra}
        for i in range(n)
    ]


class Built:
    """A stand-in for the DCP schema builder that records what it was asked for."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int, tuple[str, ...]]] = []

    def __call__(self, tool: str, version: int, sample: Any, exclude: Any) -> str:
        self.calls.append((tool, version, len(sample), tuple(exclude)))
        return f"{tool}:v{version}"


# -- SchemaValidator: batch mode ----------------------------------------------


def test_batch_of_n_rows_promotes_at_once() -> None:
    validator = SchemaValidator(confirm_after=10)
    assert validator.observe(rows(10)) is Event.PROMOTE
    assert validator.promoted and validator.samples == 10


def test_batch_promotion_lists_always_null_fields_only() -> None:
    validator = SchemaValidator(confirm_after=10)
    validator.observe(rows(12))
    assert validator.always_null() == ["gone"]  # "sparse" is null in only half the rows


def test_always_null_nested_object_is_listed_once() -> None:
    validator = SchemaValidator(confirm_after=2)
    validator.observe([{"a": 1, "meta": None}, {"a": 2, "meta": None}])
    assert validator.always_null() == ["meta"]


# -- SchemaValidator: incremental mode ----------------------------------------


def test_stays_provisional_until_the_nth_row() -> None:
    validator = SchemaValidator(confirm_after=10)
    events = [validator.observe(rows(3)) for _ in range(3)]
    assert events == [Event.SAMPLED] * 3 and validator.samples == 9
    assert validator.observe(rows(1)) is Event.PROMOTE


def test_does_not_promote_twice() -> None:
    validator = SchemaValidator(confirm_after=2)
    assert validator.observe(rows(2)) is Event.PROMOTE
    assert [validator.observe(rows(2)) for _ in range(3)] == [Event.SAMPLED] * 3


# -- SchemaValidator: drift ------------------------------------------------------


def test_new_field_is_drift() -> None:
    validator = SchemaValidator(confirm_after=10)
    validator.observe(rows(3))
    assert validator.observe(rows(1, email="x@y")) is Event.DRIFT
    assert validator.samples == 3  # drifted rows are not counted


def test_new_nested_member_is_drift() -> None:
    validator = SchemaValidator(confirm_after=10)
    validator.observe([{"id": 1, "user": {"login": "a"}}])
    assert validator.observe([{"id": 2, "user": {"login": "b", "site_admin": True}}]) is Event.DRIFT


def test_type_change_is_drift_but_int_and_float_share_a_column() -> None:
    validator = SchemaValidator(confirm_after=10)
    validator.observe([{"id": 1, "score": 1}])
    assert validator.observe([{"id": 2, "score": 2.5}]) is Event.SAMPLED
    assert validator.observe([{"id": 3, "score": "2.5"}]) is Event.DRIFT


def test_null_and_missing_values_are_not_drift() -> None:
    validator = SchemaValidator(confirm_after=10)
    validator.observe([{"id": 1, "note": "x"}])
    assert validator.observe([{"id": 2, "note": None}, {"id": 3}]) is Event.SAMPLED


def test_fresh_accumulation_after_drift() -> None:
    validator = SchemaValidator(confirm_after=4)
    validator.observe(rows(3))
    assert validator.observe(rows(2, email="e")) is Event.DRIFT
    assert validator.restart(rows(2, email="e")) is Event.SAMPLED
    assert validator.samples == 2
    assert validator.observe(rows(2, email="e")) is Event.PROMOTE


def test_confirm_after_must_be_positive() -> None:
    with pytest.raises(ValueError):
        SchemaValidator(confirm_after=0)


def test_field_kinds_walks_nested_objects() -> None:
    kinds = dict(field_kinds({"a": 1, "b": {"c": None, "d": [1]}, "e": True}))
    assert kinds == {"a": "number", "b": "object", "b.c": "null", "b.d": "array", "e": "boolean"}


# -- SchemaLifecycle ----------------------------------------------------------


def test_lifecycle_provisional_then_confirmed_from_the_next_call() -> None:
    built = Built()
    lifecycle = SchemaLifecycle(built, confirm_after=10)
    versions = [lifecycle.schema_for("t", rows(3)) for _ in range(5)]
    # rows seen: 3, 6, 9, 12 (promotion happens here, used from the next call), 15
    assert [(v.id, v.status) for v in versions] == [
        ("t:v1", "provisional"),
        ("t:v1", "provisional"),
        ("t:v1", "provisional"),
        ("t:v1", "provisional"),
        ("t:v2", "confirmed"),
    ]
    assert versions[-1].dropped == ("gone",)
    assert built.calls[-1] == ("t", 2, 12, ("gone",))


def test_lifecycle_drift_reinfers_a_provisional_next_version() -> None:
    lifecycle = SchemaLifecycle(Built(), confirm_after=2)
    lifecycle.schema_for("t", rows(2))  # v1, promotes to v2
    assert lifecycle.current("t").id == "t:v2"  # type: ignore[union-attr]
    drifted = lifecycle.schema_for("t", rows(1, email="e"))
    assert (drifted.id, drifted.status, drifted.dropped) == ("t:v3", "provisional", ())


def test_a_confirmed_schema_drifts_when_a_dropped_field_gets_a_value() -> None:
    lifecycle = SchemaLifecycle(Built(), confirm_after=2)
    lifecycle.schema_for("t", rows(2))
    assert lifecycle.schema_for("t", rows(1)).dropped == ("gone",)
    woken = lifecycle.schema_for("t", [{"id": 9, "name": "n9", "gone": "now", "sparse": 1}])
    assert (woken.id, woken.status, woken.dropped) == ("t:v3", "provisional", ())


def test_lifecycle_tools_are_independent_and_lru_bounded() -> None:
    lifecycle = SchemaLifecycle(Built(), confirm_after=2, cache_size=2)
    lifecycle.schema_for("a", rows(2))
    lifecycle.schema_for("b", rows(1))
    lifecycle.schema_for("a", rows(1))  # "a" is now the most recently used
    lifecycle.schema_for("c", rows(1))  # evicts "b"
    assert "a" in lifecycle and "c" in lifecycle and "b" not in lifecycle
    assert len(lifecycle) == 2
    assert lifecycle.current("a").id == "a:v2"  # type: ignore[union-attr]
    assert lifecycle.schema_for("b", rows(1)).id == "b:v1"  # starts over


def test_presets_are_used_from_the_first_call() -> None:
    from gcxwire.proxy.lifecycle import SchemaVersion

    preset = SchemaVersion("t", 7, "preset", "the preset schema")
    lifecycle = SchemaLifecycle(Built(), presets={"t": preset})
    assert lifecycle.schema_for("t", rows(50, email="e")) is preset


def test_a_confirmed_schema_is_inferred_from_rows_that_show_every_field() -> None:
    samples: list[list[dict[str, Any]]] = []

    def build(tool: str, version: int, sample: Any, exclude: Any) -> None:
        samples.append(list(sample))

    lifecycle = SchemaLifecycle(build, confirm_after=10)
    first: list[dict[str, Any]] = [{"id": i} for i in range(1000)]
    first[0]["rare"] = "only here"  # long gone from the latest rows kept
    lifecycle.schema_for("t", first)
    assert lifecycle.current("t").id == "t:v2"  # type: ignore[union-attr]
    confirmed_sample = samples[-1]
    assert first[0] in confirmed_sample
    assert len(confirmed_sample) == 257  # the exemplar plus the latest 256 rows
