"""Who vouches for a recording: Ed25519 signatures, checked offline against the keys the repository trusts.

A page shows a recording as what a GPU, or another torch release, printed. Anyone's pull request
can commit one, so the build checks who made it. The GPU and version workflows sign what they
record with a key only their trusted job on main holds (a secret of a GitHub environment); a
maintainer who records on their own machine signs with a key of their own. The public keys are
in ``<recordings>/signers.json`` (:data:`SIGNERS`, ``schemas/signers.schema.json``): name, role
and the folders each key may sign (``cpu-*``: the version workflow's CPU runners cannot vouch for
a CUDA output). A change to that file is a change of whom the site trusts, reviewed as code.

What is signed (:func:`message`): the recording's whole content as the engine reads it (every
field but ``signature``, as canonical JSON: keys sorted, no spaces, UTF-8) together with the name
of the folder it is in, its environment. An output changed by one byte, a date, a machine field,
or the file moved into another environment's folder (``cpu-…`` to ``cuda-…``) no longer verifies.
The signature lives in the recording itself (``"signature": {"key": …, "ed25519": …}``), so
``record``, ``merge`` and ``migrate`` handle it as any other field: ``merge`` keeps a committed
recording whose content did not change, signature and all; a new or migrated one is unsigned
until it is signed again.

A recording that does not verify is *unverified* (:class:`Verdict`): the build warns (a strict
build fails), and a non-strict build (``serve``) labels its outputs "unverified".
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from mkdocs_examples.recordings import store
from mkdocs_examples.recordings.store import Recording, RecordingError, Signature
from mkdocs_examples.results import MAX_RECORDING
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source import files

SIGNERS = "signers.json"  # under the recordings' root: the trusted public keys
SCHEMA = 1  # its version: signers.schema.json
ROLES = ("gpu-workflow", "versions-workflow", "maintainer")
# What a signature is of, before the recording's digest: a signature made for anything else never verifies here
CONTEXT = b"mkdocs-examples recording signature 1\n"
KEY_VARIABLE = "RECORDING_SIGNING_KEY"  # the private key of a workflow, from its environment's secret


@dataclass(frozen=True)
class Signer:
    """A trusted key: who holds it, in what role, the folders it may sign, and its raw public key (base64)."""

    name: str
    role: str
    environments: tuple[str, ...]
    ed25519: str

    @property
    def key(self) -> str:
        return key_id(base64.b64decode(self.ed25519))

    def may_sign(self, environment: str) -> bool:
        return any(fnmatch.fnmatchcase(environment, pattern) for pattern in self.environments)


@dataclass(frozen=True)
class Verdict:
    """Whether a recording is attested: signed, by a key :data:`SIGNERS` lists for its folder, over its content
    and that folder's name. ``why``: what is wrong, in words, where it is not."""

    signer: Signer | None
    why: str = ""

    @property
    def attested(self) -> bool:
        return self.signer is not None and not self.why


def key_id(public: bytes) -> str:
    """The id a signature names its key by: 16 hex digits of the sha256 of the raw public key."""
    return hashlib.sha256(public).hexdigest()[:16]


def message(recording: Recording, environment: str) -> bytes:
    """What is signed: :data:`CONTEXT`, the folder's name, and the sha256 of the recording as canonical JSON."""
    body = replace(recording, signature=None).to_json()
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return CONTEXT + environment.encode("utf-8") + b"\n" + hashlib.sha256(canonical).digest()


# --- the trusted keys -------------------------------------------------------------------------


def read_signers(root: Path, name: str = SIGNERS) -> dict[str, Signer]:
    """The keys ``root/signers.json`` trusts, by key id; none when the file is missing.

    :class:`RecordingError` naming the file for one that does not match its schema, or lists a key twice.
    """
    file = root / name
    if not file.is_file() and not file.is_symlink():  # a link is refused below, never followed
        return {}
    try:
        data = validate(loads(files.read_regular(file, store.MAX_MANIFEST).decode("utf-8")), "signers.schema.json")
    except (OSError, UnicodeDecodeError, JSONError) as error:
        raise RecordingError(f"{file}: not a readable list of signers ({error})") from None
    found: dict[str, Signer] = {}
    for entry in data["signers"]:
        signer = Signer(entry["name"], entry["role"], tuple(entry["environments"]), entry["ed25519"])
        if signer.key in found:
            raise RecordingError(f"{file}: the key of {signer.name!r} is listed twice; list each key once")
        found[signer.key] = signer
    return found


def add_signer(root: Path, signer: Signer) -> None:
    """Add ``signer`` to ``root/signers.json`` (created if missing)."""
    file = root / SIGNERS
    signers = read_signers(root)
    if signer.key in signers:
        raise RecordingError(f"{file} already lists this key, as {signers[signer.key].name!r}")
    entries = [_entry(s) for s in signers.values()] + [_entry(signer)]
    data = {"schema": SCHEMA, "signers": entries}
    validate(data, "signers.schema.json")
    root.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _entry(signer: Signer) -> dict[str, object]:
    return {"name": signer.name, "role": signer.role, "environments": list(signer.environments),
            "ed25519": signer.ed25519}  # fmt: skip


# --- verifying ---------------------------------------------------------------------------------

# What verify() found, by recording object and folder (the recording kept, so that its id is not reused):
# `serve` rebuilds many times, and store.read returns the same object for bytes it already read
_VERIFIED: dict[tuple[int, str, int], tuple[Recording, Verdict]] = {}


def verify(recording: Recording, environment: str, signers: dict[str, Signer]) -> Verdict:
    """Whether ``recording``, in the folder ``environment``, is signed by a key of ``signers`` that may sign there."""
    cache = (id(recording), environment, hash(tuple(signers.values())))
    if (kept := _VERIFIED.get(cache)) and kept[0] is recording:
        return kept[1]
    verdict = _verify(recording, environment, signers)
    _VERIFIED[cache] = (recording, verdict)
    return verdict


def _verify(recording: Recording, environment: str, signers: dict[str, Signer]) -> Verdict:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    signature = recording.signature
    if signature is None:
        return Verdict(None, "not signed")
    signer = signers.get(signature.key)
    if signer is None:
        return Verdict(None, f"signed by the key {signature.key}, which {SIGNERS} does not list")
    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(signer.ed25519))
        public.verify(base64.b64decode(signature.ed25519), message(recording, environment))
    except (InvalidSignature, ValueError, binascii.Error):
        return Verdict(signer, f"its signature by {signer.name} does not match it: edited since it was signed, "
                               "or moved from another environment's folder")  # fmt: skip
    if not signer.may_sign(environment):
        return Verdict(signer, f"signed by {signer.name}, whose key may sign only {', '.join(signer.environments)}")
    return Verdict(signer)


# --- signing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivateKey:
    """An Ed25519 private key, as the 32 raw bytes of its seed (base64 in files and secrets)."""

    seed: bytes

    @classmethod
    def generate(cls) -> PrivateKey:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

        key = Ed25519PrivateKey.generate()
        return cls(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()))

    @classmethod
    def parse(cls, text: str, where: str) -> PrivateKey:
        try:
            seed = base64.b64decode(text.strip(), validate=True)
        except (binascii.Error, ValueError):
            seed = b""
        if len(seed) != 32:
            raise RecordingError(f"{where}: not a private key (the base64 of 32 bytes `mkdocs-examples keygen` writes)")
        return cls(seed)

    @classmethod
    def load(cls, file: Path | None) -> PrivateKey:
        """The key in ``file``; without one, the key in the environment variable :data:`KEY_VARIABLE`."""
        if file is not None:
            return cls.parse(file.read_text(encoding="utf-8"), str(file))
        if not os.environ.get(KEY_VARIABLE):
            raise RecordingError(f"no key to sign with: pass --key FILE, or set {KEY_VARIABLE} (a workflow's secret)")
        return cls.parse(os.environ[KEY_VARIABLE], f"${KEY_VARIABLE}")

    def text(self) -> str:
        return base64.b64encode(self.seed).decode() + "\n"

    def public(self) -> str:
        """The raw public key, base64, as :data:`SIGNERS` lists it."""
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        public = self._key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return base64.b64encode(public).decode()

    @property
    def key(self) -> str:
        """The id of its public key (:func:`key_id`), which its signatures name."""
        return key_id(base64.b64decode(self.public()))

    def sign(self, recording: Recording, environment: str) -> Recording:
        """``recording`` signed for the folder ``environment``."""
        signed = self._key().sign(message(recording, environment))
        return replace(recording, signature=Signature(self.key, base64.b64encode(signed).decode()))

    def _key(self):  # type: ignore[no-untyped-def]
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return Ed25519PrivateKey.from_private_bytes(self.seed)


# --- what a change does to recordings ------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A file under the recordings' root that a change adds, edits or removes, and who vouches for it."""

    path: str  # relative to the recordings' root
    status: str  # "added", "edited", "removed"
    kind: str  # "recording", "manifest", "signers" (whom the site trusts), "other"
    verdict: Verdict | None = None  # of a recording added or edited; None for other files
    problem: str = ""  # a recording that cannot be read at all


def changes(base: Path, head: Path) -> list[Change]:
    """Every file under ``head`` (a change's recordings) that differs from ``base`` (the base's), and each added or
    edited recording's verdict against the keys ``base`` trusts: a change cannot vouch for itself by adding a key."""
    signers = read_signers(base)
    before, after = _files(base), _files(head)
    found = []
    for path in sorted(set(before) | set(after)):
        status = "removed" if path not in after else "added" if path not in before else "edited"
        kind = _kind(path)
        new, refused = _contents(after[path]) if path in after else (None, "")
        if refused:  # a link (to a secret, to /dev/zero) or a device: never read, and named
            found.append(Change(path, status, kind, problem=refused))
            continue
        if path in before and new is not None and _contents(before[path])[0] == new:
            continue
        if status == "removed" or kind != "recording":
            found.append(Change(path, status, kind))
            continue
        environment = path.split("/")[0]
        try:
            recording = store.read(after[path], head / environment)
        except RecordingError as error:
            found.append(Change(path, status, kind, problem=str(error).removeprefix(f"{after[path]}: ")))
            continue
        found.append(Change(path, status, kind, verify(recording, environment, signers)))
    return found


def _files(root: Path) -> dict[str, Path]:
    """Every file under ``root`` and every link (which :func:`_contents` refuses), by its path relative to it."""
    if not root.is_dir():
        return {}
    return {f.relative_to(root).as_posix(): f for f in sorted(root.rglob("*")) if f.is_symlink() or f.is_file()}


def _contents(file: Path) -> tuple[bytes | None, str]:
    """The bytes of ``file``, or why they are not read: a change's recordings are a stranger's files, and a link
    among them could point at the runner's secrets or at /dev/zero."""
    try:
        return files.read_regular(file, MAX_RECORDING), ""
    except files.Refused as refused:
        return None, str(refused)
    except OSError as error:
        return None, f"cannot be read ({error.strerror or error})"


def _kind(path: str) -> str:
    parts = path.split("/")
    if parts == [SIGNERS]:
        return "signers"
    if len(parts) == 2 and parts[1] == store.MANIFEST:
        return "manifest"
    return "recording" if len(parts) > 1 and path.endswith(".json") else "other"
