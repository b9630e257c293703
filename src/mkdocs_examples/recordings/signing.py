"""``keygen`` and ``sign``: make a signing key, and sign the recordings of an environment's folder with it.

    python -m mkdocs_examples keygen --name "maintainer: Ada, local H100" --role maintainer \\
        --environments 'cuda-*' --out ~/.config/recording-key      # the private key there; its public key
                                                                   # added to recordings/signers.json
    python -m mkdocs_examples sign recordings/cuda-torch2.11.0-py3.12 --key ~/.config/recording-key

A workflow signs with the key in the environment variable ``RECORDING_SIGNING_KEY`` (its
environment's secret) instead of ``--key``. README, "Who recorded it".
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mkdocs_examples.recordings import attest, store
from mkdocs_examples.recordings.store import RecordingError


def add_commands(commands: argparse._SubParsersAction) -> None:
    gen = commands.add_parser("keygen", help="make an Ed25519 key pair to sign recordings with; its public key goes "
                              "into <recordings>/signers.json, for a reviewed pull request")  # fmt: skip
    gen.add_argument("--name", required=True, help="who holds the key, in words (the PR summary names it)")
    gen.add_argument("--role", required=True, choices=attest.ROLES)
    gen.add_argument("--environments", nargs="+", required=True, metavar="PATTERN",
                     help="the folders the key may sign, as shell patterns: 'cuda-*' 'cpu-*'")  # fmt: skip
    gen.add_argument("--out", type=Path, required=True, help="the file for the private key (never commit it; "
                     "for a workflow, store it as the secret RECORDING_SIGNING_KEY, then delete it)")  # fmt: skip
    gen.add_argument("--recordings", type=Path, default=Path("recordings"), help="default: recordings")
    sign = commands.add_parser("sign", help="sign the recordings of environments' folders that a trusted key does "
                               "not already sign")  # fmt: skip
    sign.add_argument("folders", nargs="+", type=Path, help="recordings/<environment> folders")
    sign.add_argument("--key", type=Path, help="the private key's file (default: $RECORDING_SIGNING_KEY)")
    sign.add_argument("--again", action="store_true", help="sign every recording, also those already attested")
    sign.add_argument("--signers", type=Path, help="the trusted keys (default: signers.json beside the folders)")


def main(args: argparse.Namespace) -> int:
    if args.command == "keygen":
        return keygen(args.name, args.role, tuple(args.environments), args.out, args.recordings)
    return sign(args.folders, attest.PrivateKey.load(args.key), again=args.again, signers=args.signers)


def keygen(name: str, role: str, environments: tuple[str, ...], out: Path, root: Path) -> int:
    if out.exists():
        raise RecordingError(f"{out} exists: a key is never overwritten; choose another file")
    key = attest.PrivateKey.generate()
    signer = attest.Signer(name, role, environments, key.public())
    attest.add_signer(root, signer)  # checked first: a name or pattern the schema refuses writes no key
    out.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(key.text())
    print(f"private key: {out} (keep it secret; never commit it)")
    print(f"public key {signer.key} ({name}, {role}, may sign {' '.join(environments)}) added to "
          f"{root / attest.SIGNERS}: commit it in a pull request for review; until it is merged, nothing it signs "
          "is attested on main")
    return 0


def sign(folders: list[Path], key: attest.PrivateKey, *, again: bool = False, signers: Path | None = None) -> int:
    """Sign the recordings of each of ``folders`` that no trusted key signs for that folder (all with ``again``);
    ``signers``: the file of trusted keys (default: ``signers.json`` beside each folder)."""
    for folder in folders:
        root, name = folder.parent, folder.name
        listed = signers or root / attest.SIGNERS
        trusted = attest.read_signers(listed.parent, listed.name)
        me = trusted.get(key.key)
        if me is None:
            raise RecordingError(f"this key ({key.public()}) is not in {listed}: add it there in a "
                                 "reviewed pull request (`mkdocs-examples keygen` does), or what it signs stays "
                                 "unverified")  # fmt: skip
        if not me.may_sign(name):
            raise RecordingError(f"{me.name} may sign only {', '.join(me.environments)}, not {folder}")
        found = store.load_published(root, [name], {}).get(name)  # its manifest and every recording checked
        if found is None:
            raise RecordingError(f"{folder}: not a folder of recordings")
        signed = 0
        for recording in found.values():
            if not again and attest.verify(recording, name, trusted).attested:
                continue
            file = store.file_of(folder, recording.example)
            file.write_text(store.dumps(key.sign(recording, name)), encoding="utf-8")
            signed += 1
        print(f"{folder}: {signed} recordings signed by {me.name}, {len(found) - signed} already attested")
    return 0
