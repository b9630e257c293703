"""The GitHub workflows, checked where they cannot run: pins, permissions, and the commands they call.

actionlint (with shellcheck) and zizmor run in `make test` too; these are the rules of this
project that neither knows.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parent.parent
WORKFLOWS = {p.name: p for p in sorted((ROOT / ".github" / "workflows").glob("*.yml"))}


def load(name: str) -> dict:
    return yaml.load(WORKFLOWS[name].read_text(encoding="utf-8"), Loader=yaml.BaseLoader)  # no `on:` -> True


def steps(workflow: dict):
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, job, step


def test_the_workflows_are_there():
    assert set(WORKFLOWS) == {"ci.yml", "deploy.yml", "gpu.yml", "preview.yml"}


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_every_action_is_pinned_by_commit_and_names_its_version(name):
    text = WORKFLOWS[name].read_text(encoding="utf-8")
    uses = re.findall(r"uses: *(\S+)(.*)", text)
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", action), f"{name}: {action} is not pinned by commit"
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", comment), f"{name}: say which version {action} is"


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_no_workflow_defaults_to_write_permissions(name):
    workflow = load(name)
    assert workflow["permissions"] == {}, f"{name}: start from no permissions, grant per job"
    for job_name, job in workflow["jobs"].items():
        assert "permissions" in job, f"{name}: job {job_name} must say what it needs"


def test_jobs_that_run_pull_request_code_have_no_secrets_and_read_only_tokens():
    ci = load("ci.yml")
    assert "pull_request" in ci["on"] and "pull_request_target" not in ci["on"]
    text = WORKFLOWS["ci.yml"].read_text(encoding="utf-8")
    assert "secrets." not in text
    for job in ci["jobs"].values():
        assert job["permissions"] == {"contents": "read"}
        for step in job["steps"]:
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] == "false"
    for name in WORKFLOWS:
        assert "pull_request_target" not in load(name)["on"], name


def test_the_preview_publisher_never_checks_out_or_runs_the_pull_request():
    preview = load("preview.yml")
    assert "workflow_run" in preview["on"]
    for _, _, step in steps(preview):
        assert "checkout" not in step.get("uses", "")
        assert "head_branch" not in step.get("run", "") and "pip install" not in step.get("run", "")
    text = WORKFLOWS["preview.yml"].read_text(encoding="utf-8")
    assert '"$head" == "$RUN_HEAD"' in text and "gh api \"repos/$REPOSITORY/pulls/$pr\"" in text


def test_the_cpu_workflows_install_torch_without_cuda():
    for name in ("ci.yml", "deploy.yml"):
        workflow = load(name)
        assert workflow["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu", name
        installs = [s for _, _, s in steps(workflow) if "make .venv/.installed" in s.get("run", "")]
        assert installs and all("tools/cpu_only.py" in s["run"] for s in installs), name


def test_deploy_runs_one_at_a_time_with_least_permissions():
    deploy = load("deploy.yml")
    assert deploy["concurrency"] == {"group": "pages", "cancel-in-progress": "false"}
    assert deploy["jobs"]["build"]["permissions"] == {"contents": "read", "pages": "read"}
    assert deploy["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["jobs"]["deploy"]["environment"]["name"] == "github-pages"


def _commands(script: str):
    for line in script.replace("\\\n", " ").splitlines():
        for part in re.split(r"&&|\|\||;|\|", line):
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                continue
            if words:
                yield words


def test_every_make_target_script_and_engine_command_a_workflow_calls_exists():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w./-]+):", makefile, re.MULTILINE)) | {".venv/.installed"}
    engine = set(re.findall(r'add_parser\("(\w+)"', "".join(p.read_text() for p in (ROOT / "src").rglob("*.py"))))
    seen = set()
    for name in WORKFLOWS:
        for _, _, step in steps(load(name)):
            for words in _commands(step.get("run", "")):
                if words[0] == "make":
                    assert words[1] in targets, f"{name}: no make target {words[1]}"
                    seen.add(f"make {words[1]}")
                for word in words:
                    if word.startswith("tools/"):
                        assert (ROOT / word).is_file(), f"{name}: {word} does not exist"
                        seen.add(word)
                if words[1:3] == ["-m", "mkdocs_examples"]:  # python, or .venv/bin/python
                    command = words[3]
                    assert command in engine, f"{name}: the engine has no command {command}"
                    seen.add(f"mkdocs_examples {command}")
    assert {"make test", "make build", "tools/links.py", "tools/cpu_only.py", "mkdocs_examples diff"} <= seen
