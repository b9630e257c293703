"""The one JSON validator (mkdocs_examples.schema) and the schemas it applies, checked against the standard.

`jsonschema` (dev only) is the reference: every schema file must be a valid draft 2020-12
schema, and on a corpus of valid and broken documents of each kind our validator and
`jsonschema` must agree, so that our subset cannot drift from the standard. No torch here.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import math
import typing
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from mkdocs_examples.execute.cache import Cache
from mkdocs_examples.execute.engine import Outcome
from mkdocs_examples.publish import outputs
from mkdocs_examples.recordings.store import Recording, RecordingError, read_folder
from mkdocs_examples.results import MAX_IMAGE_BYTES, CellResult, Failure, FailureKind, Result
from mkdocs_examples.schema import BASE, SCHEMAS, JSONError, SchemaError, Validator, loads, validate
from mkdocs_examples.source.cells import Example

ROOT = Path(__file__).parent.parent
RECORDING = ROOT / "recordings" / "cuda-torch2.11.0-py3.12" / "optimization" / "learning_rate.json"  # a real one
DOCUMENTS = {file.name: json.loads(file.read_text(encoding="utf-8")) for file in sorted(SCHEMAS.glob("*.schema.json"))}
REGISTRY = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in DOCUMENTS.values())

PNG = json.loads(RECORDING.read_text(encoding="utf-8"))["cells"][8]["images"][0]  # a real figure
GIF = base64.b64encode(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;").decode()
TOO_BIG = PNG + "A" * (4 * math.ceil(MAX_IMAGE_BYTES / 3) - len(PNG) + 4)  # 4 characters (3 bytes) over the limit


def reference(ref: str) -> jsonschema.Draft202012Validator:
    """jsonschema's validator of the package schema ``ref`` (a file name, maybe with a fragment)."""
    return jsonschema.Draft202012Validator({"$ref": BASE + ref}, registry=REGISTRY)


def we_refuse(value: Any, ref: str) -> bool:
    try:
        validate(value, ref)
    except JSONError:
        return True
    return False


def the_result() -> dict[str, Any]:
    cells = (CellResult(0, "hi\n", seconds=0.01), CellResult(1, "", 0, (PNG,), "Traceback...\n", None, 0.5),
             CellResult(2, skipped="requires-cuda"))  # fmt: skip
    failure = Failure("timeout", 1, 7, "stack", -9, 120.0, None)
    result = Result(cells, {"python": "3.11.7", "device": "cpu"}, failure, 1.25, {"dist:numpy": "2.4.6"})
    return json.loads(json.dumps(result.to_json()))  # as the cache stores it: tuples become arrays


def the_snapshot() -> dict[str, Any]:
    source = "# %% setup\nprint(1)\n# %% fails tags=[\"raises-exception\"]\n1 / 0\n# %%\nprint(2)\n"
    example = Example.from_source("tensors/demo.py", Path("/x/tensors/demo.py"), source)
    result = Result((CellResult(0, "1\n", images=(PNG,)), CellResult(1, "", traceback="Traceback\nZeroDivisionError\n"),
                     CellResult(2, "2\n")), {"torch": "2.13.0+cpu", "python": "3.11.7"})  # fmt: skip
    return outputs.snapshot([Outcome(example, result, "run")], result.env, {"tensors/demo.py": ["en/demo.md"]})


CORPUS = {  # a valid document of each kind, and the schema it follows
    "recording": (json.loads(RECORDING.read_text(encoding="utf-8")), "recording.schema.json"),
    "result": (the_result(), "result.schema.json"),
    "cache entry": ({"key": "ab" * 32, "result": the_result(), "lines": {"7": {"token": 3, "into": 0}}},
                    "result.schema.json#/$defs/entry"),
    "snapshot": (the_snapshot(), "snapshot.schema.json"),
}


# --- the schema files ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_each_schema_is_a_valid_draft_2020_12_schema_with_its_id_and_descriptions(name):
    document = DOCUMENTS[name]
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"] == BASE + name and document["title"] and document["description"]
    for where, schema in _schemas(document):  # every field says what it holds, or refers to a $def that does
        for key, field in schema.get("properties", {}).items():
            described = "description" in field or "description" in _target(field, document)
            assert described, f"{name}: {where}/properties/{key} has no description"
    for example in document.get("examples", []):
        reference(name).validate(example)
        validate(example, name)


def test_the_image_limit_is_the_named_constant():
    image = DOCUMENTS["result.schema.json"]["$defs"]["image"]
    assert image["maxLength"] == 4 * math.ceil(MAX_IMAGE_BYTES / 3)  # base64 of MAX_IMAGE_BYTES bytes
    assert base64.b64decode("iVBORw0KGgo=")[:8] == b"\x89PNG\r\n\x1a\n"  # the pattern's prefix is PNG's signature


def test_the_result_schema_has_the_fields_of_the_dataclasses_and_every_failure_kind():
    result = DOCUMENTS["result.schema.json"]
    for cls, schema in ((Result, result), (CellResult, result["$defs"]["cell"]), (Failure, result["$defs"]["failure"])):
        names = [f.name for f in dataclasses.fields(cls) if f.metadata.get("stored", True)]  # Result.phases is not
        assert list(schema["properties"]) == names and schema["required"] == names, cls.__name__
    assert result["$defs"]["failure"]["properties"]["kind"]["enum"] == list(typing.get_args(FailureKind))


def _schemas(schema: Any, where: str = "#") -> list[tuple[str, dict]]:
    if not isinstance(schema, dict):
        return []
    found = [(where, schema)]
    for key in ("properties", "$defs"):
        for name, sub in schema.get(key, {}).items():
            found += _schemas(sub, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties", "propertyNames"):
        found += _schemas(schema.get(key), f"{where}/{key}")
    return found


def _target(field: dict, document: dict) -> dict:
    """What ``field``'s $ref points at (``#/$defs/x`` or ``result.schema.json#/$defs/x``), or nothing."""
    if "$ref" not in field:
        return {}
    name, _, pointer = field["$ref"].partition("#")
    target = DOCUMENTS[name] if name else document
    for token in pointer.split("/")[1:]:
        target = target[token]
    return target


# --- our validator agrees with jsonschema ----------------------------------------------------------

WRONG = [None, True, 0, -1, 2.5, 1e7, "x", "", [], {}, ["x"], {"x": 1}]


def _nodes(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found += _nodes(item, (*path, key))
    return found


def _at(document: Any, path: tuple) -> tuple[Any, Any]:
    for key in path[:-1]:
        document = document[key]
    return document, path[-1]


def mutations(document: Any):
    """The document broken (or not) in every place: each value replaced by values of every type, each key
    removed, an unknown key added. Yields after changing ``document`` in place; restores it after."""
    for path in _nodes(document)[1:]:
        parent, key = _at(document, path)
        was = parent[key]
        for wrong in WRONG:
            parent[key] = wrong
            yield f"{path} = {wrong!r}"
        parent[key] = was
        if isinstance(parent, dict):
            del parent[key]
            yield f"{path} removed"
            parent[key] = was
        if isinstance(was, dict):
            was["unknown"] = 1
            yield f"{path} + unknown"
            del was["unknown"]


@pytest.mark.parametrize("kind", sorted(CORPUS))
def test_our_validator_and_jsonschema_agree_on_every_broken_document(kind):
    document, ref = copy.deepcopy(CORPUS[kind])
    if kind == "recording":  # its cells all follow one schema: two, and the one with a figure, are enough
        document["cells"] = [*document["cells"][:2], document["cells"][8]]
    original = copy.deepcopy(document)
    checker = reference(ref)
    assert checker.is_valid(document) and not we_refuse(document, ref)  # the valid one is valid to both
    verdicts = []
    for change in mutations(document):
        they_refuse = not checker.is_valid(document)
        who = "jsonschema" if they_refuse else "our validator"
        assert we_refuse(document, ref) == they_refuse, f"{kind}, {change}: only {who} refuses it"
        verdicts.append(they_refuse)
    assert verdicts.count(True) > 100 and verdicts.count(False) > 5  # both verdicts, on every part of the schema
    assert document == original  # each change was undone


def _set(document: dict, path: str, value: Any) -> dict:
    """A copy of ``document`` with ``value`` at ``path``, a JSON pointer without its first "/"."""
    document = copy.deepcopy(document)
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")]
    *parents, last = [int(t) if t.isdigit() else t for t in tokens]
    target = document
    for key in parents:
        target = target[key]
    target[last] = value
    return document


BROKEN = [  # refused by both, each for one reason
    ("recording", "example", "../x.py"), ("recording", "example", ".hidden/x.py"), ("recording", "example", "x.pyc"),
    ("recording", "keys/0", "AB" * 32), ("recording", "recorded", "<b>2026</b>"), ("recording", "schema", 3),
    ("recording", "lines", {"0": {"token": 1, "into": 0}}), ("recording", "lines", {"12": {"token": -1, "into": 0}}),
    ("recording", "lines", {"12": {"token": 1}}), ("recording", "scheme", "tokens-0"),
    ("recording", "schema", True), ("recording", "seconds", -1), ("recording", "seconds", 2e6),
    ("recording", "env", {"gpu": "x"}),  # no device
    ("recording", "cells/8/images/0", GIF), ("recording", "cells/8/images/0", TOO_BIG),
    ("recording", "cells/8/images/0", "x) <script>alert(1)</script>"), ("recording", "cells/0/name", "a b"),
    ("recording", "cells/0/output", "not lines"), ("recording", "cells/0/cell", 10_000),
    ("recording", "cells/0/skipped", "cpu"), ("recording", "env", {f"k{i}": "v" for i in range(65)}),
    ("result", "cells/1/images/0", GIF), ("result", "cells/1/images/0", TOO_BIG), ("result", "cells/0/cell", 1.5),
    ("result", "failure/kind", "bogus"), ("result", "failure/line", -1), ("result", "depends", {"pip:x": "1"}),
    ("result", "cells/0/truncated", True), ("cache entry", "key", "other"),
    ("cache entry", "lines", {"7": {"token": 1, "into": -1}}),
    ("snapshot", "examples/tensors~1demo.py/pages/0", "en/x.md`<b>"),
    ("snapshot", "examples/tensors~1demo.py/origin", "memory"),
    ("snapshot", "examples/tensors~1demo.py/cells/0/images/0", "not a digest"),
    ("snapshot", "examples/tensors~1demo.py/cells/0/name", "</code><script>"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "path", "value"), BROKEN)
def test_a_document_broken_for_one_reason_is_refused_by_both(kind, path, value):
    document, ref = CORPUS[kind]
    document = _set(document, path, value)
    assert not reference(ref).is_valid(document)
    assert we_refuse(document, ref)


def test_a_final_newline_does_not_pass_a_pattern_ending_in_dollar():
    # ECMA-262's `$` is the end of the string; jsonschema matches with Python's re, whose `$`
    # also matches before a final newline (it accepts this digest): here we follow the standard
    assert reference("result.schema.json#/$defs/digest").is_valid("ab" * 32 + "\n")
    with pytest.raises(JSONError, match="does not match"):
        validate("ab" * 32 + "\n", "result.schema.json#/$defs/digest")


# --- the validator itself --------------------------------------------------------------------------


def test_an_error_names_the_json_path():
    document = copy.deepcopy(CORPUS["recording"][0])
    document["cells"][3]["output"][0] = 7
    with pytest.raises(JSONError) as raised:
        validate(document, "recording.schema.json")
    assert str(raised.value) == "cells[3].output[0]: expected a string, found an integer"
    document["cells"][3]["output"][0] = "x"
    document["env"]["a key"] = 1
    with pytest.raises(JSONError, match=r'^env\["a key"\]: expected a string, found an integer'):
        validate(document, "recording.schema.json")


@pytest.mark.parametrize(
    "schema",
    [{"oneOf": [{"type": "string"}]}, {"properties": {"a": {"format": "date"}}}, {"items": {"minLength": 1}},
     {"type": "text"}, {"$ref": "#/$defs/missing"}, {"$ref": "other.json"}, {"items": {"$id": "x"}},
     {"enum": [[1]]}],
)  # fmt: skip
def test_a_schema_using_what_the_validator_does_not_implement_is_refused(schema):
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.test/s.json", **schema}
    with pytest.raises(SchemaError):
        Validator([document]).check({}, "https://x.test/s.json")


@pytest.mark.parametrize(
    ("text", "message"),
    [('{"a": [1, NaN]}', r"^a\[1\]: NaN is not a number JSON allows"),
     ('{"seconds": Infinity}', "^seconds: Infinity is not"), ("[-Infinity]", r"^\[0\]: -Infinity is not"),
     ('{"x": 1e999}', "^x: 1e999 is not"), ("[" * 33 + "]" * 33, "nested deeper than 32 levels"),
     ("[" * 100_000 + "]" * 100_000, "nested deeper"), ('{"a": 1,}', r"not JSON: .* \(line 1, column 9\)")],
)  # fmt: skip
def test_loads_refuses_what_is_not_strict_json(text, message):
    with pytest.raises(JSONError, match=message):
        loads(text)
    assert loads("[" * 32 + "]" * 32) is not None and loads('{"a": 1.5}') == {"a": 1.5}


# --- where the engine reads JSON back ---------------------------------------------------------------


def with_constant(document: dict, path: str, constant: str) -> str:
    """``document`` as JSON text with ``constant`` (NaN, Infinity...), which JSON has not, at ``path``."""
    text = json.dumps(_set(document, path, "@constant@"))
    return text.replace('"@constant@"', constant)


def write_recording(folder: Path, data: dict | str) -> Path:
    file = folder / "optimization" / "learning_rate.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(data if isinstance(data, str) else json.dumps(data))
    return file


def test_a_real_recording_reads_back_as_it_was_written(tmp_path):
    data = CORPUS["recording"][0]
    write_recording(tmp_path, data)
    recording = read_folder(tmp_path)["optimization/learning_rate.py"]
    assert recording.cells[8].images == (PNG,) and recording.to_json() == data
    assert Recording.from_json(json.loads(json.dumps(data))) == recording


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_infinity_in_a_recording_is_refused_naming_the_file_and_path(tmp_path, constant):
    file = write_recording(tmp_path, with_constant(CORPUS["recording"][0], "cells/0/seconds", constant))
    with pytest.raises(RecordingError) as raised:
        read_folder(tmp_path)
    assert str(file) in str(raised.value) and f"cells[0].seconds: {constant} is not a number" in str(raised.value)


@pytest.mark.parametrize(("image", "why"), [(GIF, "does not match"), (TOO_BIG, "characters, more than 6990508")])
def test_an_image_that_is_not_a_png_or_too_big_is_refused_from_a_recording(tmp_path, image, why):
    file = write_recording(tmp_path, _set(CORPUS["recording"][0], "cells/8/images/0", image))
    with pytest.raises(RecordingError) as raised:
        read_folder(tmp_path)
    message = str(raised.value)
    assert str(file) in message and "cells[8].images[0]: " in message and why in message
    assert "expected a PNG image in base64 of at most 5 MiB" in message


def cached(tmp_path: Path, text: str) -> Result | None:
    cache = Cache(tmp_path, tmp_path / "examples")
    key = "ab" * 32
    cache._file(key).parent.mkdir(parents=True, exist_ok=True)
    cache._file(key).write_text(text)
    found = cache.get(key)
    return found[0] if found else None


def test_a_cached_result_reads_back_and_its_broken_copies_are_misses(tmp_path):
    entry = {"key": "ab" * 32, "result": the_result(), "lines": {}}
    assert cached(tmp_path, json.dumps(entry)) == Result.from_json(the_result())
    for constant in ("NaN", "Infinity", "-Infinity", "1e999"):
        assert cached(tmp_path, with_constant(entry, "result/seconds", constant)) is None
        assert cached(tmp_path, with_constant(entry, "result/cells/0/seconds", constant)) is None
    for image in (GIF, TOO_BIG):
        assert cached(tmp_path, json.dumps(_set(entry, "result/cells/1/images/0", image))) is None
        with pytest.raises(JSONError, match=r"^cells\[1\]\.images\[0\]: "):
            Result.from_json(_set(entry, "result/cells/1/images/0", image)["result"])


@pytest.mark.parametrize(("field", "constant"), [("cell", "NaN"), ("line", "Infinity"), ("line", "NaN")])
def test_nan_or_infinity_in_a_snapshot_is_refused_naming_the_file_and_path(tmp_path, field, constant):
    file = tmp_path / "snapshot.json"
    file.write_text(with_constant(the_snapshot(), f"examples/tensors~1demo.py/cells/0/{field}", constant))
    with pytest.raises(outputs.SnapshotError) as raised:
        outputs.read(file)
    message = str(raised.value)
    assert f"{file}: not a readable snapshot" in message
    assert f'examples["tensors/demo.py"].cells[0].{field}: {constant} is not a number' in message
