"""Recordings are attested: signed by a key recordings/signers.json trusts, over their content and their folder.

The keys here are made in the tests; the recordings are the test data of test_recordings.py
("FIXTURE GPU (test data)"), hand-made as an attacker's would be.
"""

from __future__ import annotations

import json
import logging
import shutil
from html import unescape
from pathlib import Path

import pytest
from helpers import build_site
from mkdocs.exceptions import Abort
from test_recordings import (
    BUILT,
    EXAMPLE,
    FAKE_GPU,
    configure,
    fixture_recording,
    fixture_site_with_gpu_page,
    page,
    site,
)

from mkdocs_examples.cli import main
from mkdocs_examples.publish.picker import Environment, site_data
from mkdocs_examples.recordings.attest import PrivateKey, Signer, add_signer, read_signers, verify
from mkdocs_examples.recordings.store import (
    Published,
    RecordingError,
    dumps,
    file_of,
    load_published,
    manifest_of,
    read,
    write_folder,
)
from mkdocs_examples.render.page import render_example
from mkdocs_examples.render.provenance import Sources

__all__ = ["site"]  # the fixture, shared with test_recordings.py

CUDA = "cuda-torch2.13.0-py3.11"  # the folder of FAKE_GPU's environment


@pytest.fixture(scope="module")
def key() -> PrivateKey:
    return PrivateKey.generate()


def trust(root: Path, key: PrivateKey, *, may: tuple[str, ...] = ("cuda-*", "cpu-*", "cuda")) -> None:
    add_signer(root, Signer("test: the GPU workflow's key", "gpu-workflow", may, key.public()))


def signed_folder(root: Path, key: PrivateKey, name: str = CUDA) -> Path:
    """``root/name`` holding the fixture recording, signed by ``key`` for that folder."""
    recording = fixture_recording()
    manifest = None if name == "cuda" else manifest_of([recording])  # the older layout has none
    write_folder(root / name, [key.sign(recording, name)], manifest=manifest)
    return root / name


def verdict(root: Path, name: str = CUDA):
    folder = root / name
    recording = read(file_of(folder, EXAMPLE.path), folder)
    return verify(recording, name, read_signers(root))


# --- what a signature covers ------------------------------------------------------------------------


def test_a_correctly_signed_recording_is_attested(tmp_path, key):
    trust(tmp_path, key)
    signed_folder(tmp_path, key)
    found = verdict(tmp_path)
    assert found.attested and found.signer and found.signer.role == "gpu-workflow"


def test_a_hand_made_recording_is_unverified(tmp_path, key):
    trust(tmp_path, key)
    recording = fixture_recording()
    write_folder(tmp_path / CUDA, [recording], manifest=manifest_of([recording]))
    assert verdict(tmp_path).why == "not signed"


@pytest.mark.parametrize(
    "edit",
    [lambda d: d["cells"][3]["output"].__setitem__(0, "tensor([2.], device='cuda:0')\n"),  # one output byte
     lambda d: d["env"].update(gpu="FIXTURE GPU (test data) X"), lambda d: d.update(recorded="2026-11-23T10:00:00Z")],
)  # fmt: skip
def test_a_signed_recording_edited_afterwards_is_unverified(tmp_path, key, edit):
    trust(tmp_path, key)
    file = file_of(signed_folder(tmp_path, key), EXAMPLE.path)
    data = json.loads(file.read_text())
    edit(data)
    file.write_text(json.dumps(data, indent=1))
    found = verdict(tmp_path)
    assert not found.attested and "does not match it: edited since it was signed" in found.why


def test_a_signed_recording_moved_to_another_environments_folder_is_unverified(tmp_path, key):
    trust(tmp_path, key)
    signed_folder(tmp_path, key)
    # the older layout needs no manifest: a recording moved there is read, and its signature names its old folder
    shutil.copytree(tmp_path / CUDA, tmp_path / "cuda")
    (tmp_path / "cuda/environment.json").unlink()
    assert verdict(tmp_path, CUDA).attested
    assert "moved from another environment's folder" in verdict(tmp_path, "cuda").why
    # a folder of the same device whose manifest is edited to match the recording: relabelled, not attested
    other = "cuda-torch2.14.1-py3.11"
    shutil.copytree(tmp_path / CUDA, tmp_path / other)
    manifest = json.loads((tmp_path / other / "environment.json").read_text())
    (tmp_path / other / "environment.json").write_text(json.dumps({**manifest, "id": other, "torch": "2.14.1"}))
    data = json.loads(file_of(tmp_path / other, EXAMPLE.path).read_text())
    data["env"]["torch"] = "2.14.1"
    file_of(tmp_path / other, EXAMPLE.path).write_text(json.dumps(data))
    assert load_published(tmp_path, [other], {})  # a consistent folder: only its signature tells
    assert not verdict(tmp_path, other).attested


def test_a_key_signs_only_the_folders_signers_json_gives_it(tmp_path, key):
    add_signer(tmp_path, Signer("test: the version workflow's key", "versions-workflow", ("cpu-*",), key.public()))
    signed_folder(tmp_path, key)
    assert "may sign only cpu-*" in verdict(tmp_path).why
    (tmp_path / "signers.json").unlink()
    assert "which signers.json does not list" in verdict(tmp_path).why


def test_signers_json_is_read_through_its_schema_naming_the_file(tmp_path, key):
    (tmp_path / "signers.json").write_text(json.dumps({"schema": 1, "signers": [{"name": "x", "role": "root"}]}))
    with pytest.raises(RecordingError, match=r"signers\.json: not a readable list of signers"):
        read_signers(tmp_path)


# --- keygen and sign -------------------------------------------------------------------------------


def test_keygen_and_sign_make_a_folder_attested_and_keep_what_is_already(tmp_path, capsys):
    recording = fixture_recording()
    folder = tmp_path / "recordings" / CUDA
    write_folder(folder, [recording], manifest=manifest_of([recording]))
    secret = tmp_path / "private" / "key"
    assert main(["keygen", "--name", "maintainer: test", "--role", "maintainer", "--environments", "cuda-*",
                 "--out", str(secret), "--recordings", str(tmp_path / "recordings")]) == 0  # fmt: skip
    assert secret.stat().st_mode & 0o077 == 0  # the private key: its owner's alone
    assert main(["keygen", "--name", "again", "--role", "maintainer", "--environments", "x", "--out", str(secret),
                 "--recordings", str(tmp_path / "recordings")]) == 2  # never overwritten  # fmt: skip
    assert main(["sign", str(folder), "--key", str(secret)]) == 0
    assert "1 recordings signed by maintainer: test" in capsys.readouterr().out
    assert verdict(tmp_path / "recordings").attested
    signed = file_of(folder, EXAMPLE.path).read_text()
    without = json.loads(signed)
    del without["signature"]
    assert without == json.loads(dumps(recording))  # the signature is all that was added
    assert main(["sign", str(folder), "--key", str(secret)]) == 0
    assert "0 recordings signed by maintainer: test, 1 already attested" in capsys.readouterr().out


def test_sign_refuses_a_key_that_signers_json_does_not_trust_for_that_folder(tmp_path, key, capsys):
    other = PrivateKey.generate()
    secret = tmp_path / "key"
    secret.write_text(other.text())
    folder = signed_folder(tmp_path, key)
    assert main(["sign", str(folder), "--key", str(secret)]) == 2
    assert "is not in" in capsys.readouterr().err
    add_signer(tmp_path, Signer("test: cpu only", "versions-workflow", ("cpu-*",), other.public()))
    assert main(["sign", str(folder), "--key", str(secret)]) == 2
    assert f"test: cpu only may sign only cpu-*, not {folder}" in capsys.readouterr().err


def test_merge_keeps_the_signature_of_a_recording_that_did_not_change(site, key):
    from mkdocs_examples.recordings.store import Recording, read_folder
    from mkdocs_examples.results import CellResult
    from mkdocs_examples.source.cells import Example

    source = (site / "examples/one.py").read_text()
    example = Example.from_source("one.py", site / "examples/one.py", source)
    env = {"device": "cpu", "torch": "2.14.1+cu130", "python": "3.11.7"}
    made = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", env, 1.0, (CellResult(0, "x\n"),))
    name = "cpu-torch2.14.1-py3.11"
    write_folder(site / "rec" / name, [key.sign(made, name)], manifest=manifest_of([made]))
    write_folder(site / "shard", [made])
    assert main(["merge", str(site / "shard"), "--device", "cpu", "--into", str(site / "rec"), "--allow-missing",
                 "-f", str(site / "mkdocs.yml")]) == 0  # fmt: skip
    trust(site / "rec", key)
    kept = read_folder(site / "rec" / name)["one.py"]
    assert kept.signature and verify(kept, name, read_signers(site / "rec")).attested


# --- what pages show --------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "words"), [("en", "unverified"), ("zh", "未经验证")])
def test_an_unverified_recording_is_labelled_so_beside_its_outputs_and_in_the_pages_sources(lang, words):
    site = {"torch": "2.13.0+cpu"}
    published = (Published.holding("cuda", fixture_recording(), EXAMPLE, site, "cuda", unverified="not signed"),)
    sources = Sources(lang=lang)
    md = unescape(render_example(EXAMPLE, BUILT, None, lang=lang, limit=1000, published=published, sources=sources)
                  + sources.block(lang))  # fmt: skip
    assert f"torch 2.13.0 · FIXTURE GPU (test data) · {words}</small>" in md
    said = {"en": "but unverified: no key this site trusts signs it", "zh": "但未经验证：没有本站信任的密钥为它签名"}
    assert said[lang] in md
    assert words not in unescape(page(recording=fixture_recording(), lang=lang))  # an attested one: no such word


def test_the_picker_labels_an_environment_with_unverified_recordings():
    data = site_data([Environment("cuda", FAKE_GPU, unverified=True), Environment("b", {**FAKE_GPU, "torch": "2.1"})],
                     1000)  # fmt: skip
    assert data["environments"]["cuda"]["unverified"] is True and "unverified" not in data["environments"]["b"]
    assert data["texts"]["zh"]["picker.unverified"] == "{label} · 未经验证"


def test_a_hand_made_cuda_recording_fails_the_strict_build_and_is_labelled_unverified_otherwise(site, caplog, key):
    fixture_site_with_gpu_page(site)
    configure(site)
    with pytest.raises(Abort):
        build_site(site, strict=True)
    assert "1 recording(s) in" in caplog.text and "recordings/cuda are unverified" in caplog.text
    assert "recordings/cuda/d/gpu.json (not signed)" in caplog.text and "mkdocs-examples sign" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        build_site(site)
    for prefix, words in (("", "unverified"), ("zh/", "未经验证")):
        text = unescape((site / f"site/{prefix}gpu/index.html").read_text())
        assert f"torch 2.13.0 · FIXTURE GPU (test data) · {words}</small>" in text
    # signed by a key signers.json trusts for that folder: attested, and the strict build passes
    trust(site / "recordings", key)
    file = site / "recordings/cuda/d/gpu.json"
    file.write_text(dumps(key.sign(read(file, site / "recordings/cuda"), "cuda")))
    caplog.clear()
    build_site(site, strict=True)
    assert "unverified" not in caplog.text
    assert "unverified" not in (site / "site/gpu/index.html").read_text()
    assert "未经验证" not in (site / "site/zh/gpu/index.html").read_text()


# --- the pull request's summary ------------------------------------------------------------------------


def test_links_among_a_changes_recordings_are_named_and_never_read(tmp_path, key):
    from mkdocs_examples.recordings.attest import changes

    base, head = tmp_path / "base", tmp_path / "head"
    trust(base, key)
    signed_folder(base, key)
    shutil.copytree(base, head)
    secret = tmp_path / "secret.json"
    secret.write_text('{"aws_secret_access_key": "hunter2"}')
    (head / CUDA / "stolen.json").symlink_to(secret)
    (head / CUDA / "zero.json").symlink_to("/dev/zero")  # read, it would never end
    (head / "notes.txt").symlink_to(secret)
    found = {change.path: change for change in changes(base, head)}
    assert set(found) == {f"{CUDA}/stolen.json", f"{CUDA}/zero.json", "notes.txt"}
    for change in found.values():
        assert change.status == "added" and change.problem.startswith("is a symbolic link"), change
        assert "hunter2" not in change.problem


def test_the_pr_summary_names_each_recording_a_change_adds_or_edits_and_whether_it_is_attested(tmp_path, key, capsys):
    base, head = tmp_path / "base", tmp_path / "head"
    trust(base, key)
    signed_folder(base, key)
    shutil.copytree(base, head)
    signed_folder(head, key, "cuda")  # added, and signed by a key the base trusts
    edited = file_of(head / CUDA, EXAMPLE.path)
    edited.write_text(edited.read_text().replace("tensor([1.]", "tensor([7.]"))  # edited by hand
    made = fixture_recording()
    hand = head / "cpu-torch2.13.0-py3.11"  # added by hand: a CUDA output relabelled as the CPU's
    write_folder(hand, [made], manifest={**manifest_of([made]), "id": hand.name, "device": "cpu"})
    other = PrivateKey.generate()  # the change trusts a key of its own: the base does not
    add_signer(head, Signer("someone", "maintainer", ("*",), other.public()))
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps({"schema": 1, "env": {}, "examples": {}}))
    assert main(["diff", str(snapshot), str(snapshot), "--compare-recordings", str(base), str(head)]) == 0
    out = unescape(capsys.readouterr().out)
    assert "## Recordings this change adds or edits" in out
    assert "5 files under `recordings/`: 1 attested (signed by a key main trusts), **2 unverified**." in out
    lines = {line.split("</code>")[0].removeprefix("- <code>"): line for line in out.splitlines() if "<code>" in line}
    assert "(added): attested, signed by test: the GPU workflow's key (gpu-workflow)" in lines["cuda/d/gpu.json"]
    assert "(edited): **unverified**: its signature by" in lines[f"{CUDA}/d/gpu.json"]
    assert "(added): **unverified**: not signed" in lines["cpu-torch2.13.0-py3.11/d/gpu.json"]
    assert "(edited): **changes the keys whose recordings are trusted**" in lines["signers.json"]
    assert "(added)" in lines["cpu-torch2.13.0-py3.11/environment.json"]
    # nothing changed under recordings/: said so
    assert main(["diff", str(snapshot), str(snapshot), "--compare-recordings", str(base), str(base)]) == 0
    assert "None: no file under `recordings/` changes." in capsys.readouterr().out
