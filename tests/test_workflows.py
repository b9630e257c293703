"""The GitHub workflows, checked where they cannot run: pins, permissions, and the commands they call.

actionlint (with shellcheck) and zizmor run in `make test` too; these are the rules of this
project that neither knows.
"""

from __future__ import annotations

import re
import shlex
import subprocess
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
    assert '"$head" == "$RUN_HEAD"' in text and 'gh api "repos/$REPOSITORY/pulls/$pr"' in text


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


def _cache_steps(workflow: dict):
    """(job, step) of every step that restores or saves a cache: actions/cache and its
    restore/ and save/ halves, and setup-python's `cache:` input (pip's downloads)."""
    for job_name, job, step in steps(workflow):
        uses = step.get("uses", "")
        if re.match(r"actions/cache(/restore|/save)?@", uses) or (
            uses.startswith("actions/setup-python@") and step.get("with", {}).get("cache")
        ):
            yield job_name, job, step


def _runs_on_pull_requests(workflow: dict, job: dict, step: dict) -> bool:
    """Whether a step can run in a pull request's run: the one condition that excludes it is
    spelt `github.event_name != 'pull_request'`, on the step or its job."""
    if "pull_request" not in workflow["on"]:
        return False
    return "github.event_name != 'pull_request'" not in (job.get("if"), step.get("if"))


def test_the_base_job_restores_no_cache():
    # The base's outputs are what the head's are compared with: nothing a pull request's
    # earlier runs left behind may reach them (see "Caches" at the top of ci.yml)
    base = load("ci.yml")["jobs"]["base"]
    assert base["if"] == "github.event_name == 'pull_request'"
    cached = [s.get("uses") for j, _, s in _cache_steps(load("ci.yml")) if j == "base"]
    assert cached == [], f"the base job restores a cache: {cached}"


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_no_job_restores_or_saves_a_cache_on_a_pull_request(name):
    # A pull request's runs search its own cache scope (refs/pull/N/merge) before the base
    # branch's, and an earlier push of it, with a ci.yml of its own, can have saved any key
    # there: no key or restore-keys prefix is safe to read, so none is read or written
    workflow = load(name)
    used = [f"{j}: {s['uses']}" for j, job, s in _cache_steps(workflow) if _runs_on_pull_requests(workflow, job, s)]
    assert used == [], f"{name}: caches used on pull requests"


def test_every_way_of_using_a_cache_is_seen():
    uses = ["actions/cache@x", "actions/cache/restore@x", "actions/cache/save@x", "actions/setup-python@x"]
    job = {"steps": [{"uses": u, "with": {"cache": "pip"}} for u in uses]}
    workflow = {"on": {"pull_request": ""}, "jobs": {"j": job}}
    assert [s["uses"] for _, j, s in _cache_steps(workflow) if _runs_on_pull_requests(workflow, j, s)] == uses
    job["if"] = "github.event_name != 'pull_request'"
    assert not any(_runs_on_pull_requests(workflow, j, s) for _, j, s in _cache_steps(workflow))


def test_caches_are_kept_where_no_pull_request_runs():
    # Pushes to main, the weekly run and deploy.yml still restore and save: they read main's scope only
    ci, deploy = load("ci.yml"), load("deploy.yml")
    assert [s["with"]["path"] for j, _, s in _cache_steps(ci) if j == "check"] == [".venv", ".cache/examples"]
    assert [s["with"]["path"] for _, _, s in _cache_steps(deploy)] == [".venv", ".cache/examples"]
    assert set(deploy["on"]) == {"push", "workflow_dispatch"} and deploy["on"]["push"] == {"branches": ["main"]}


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


def _run_step(workflow: str, name: str, env: dict[str, str], tmp_path: Path, gh: str) -> tuple[int, str, str]:
    """Run a step's script as GitHub would (bash -eo pipefail), with a stand-in `gh` on PATH."""
    (step,) = [s for _, _, s in steps(load(workflow)) if s.get("name") == name]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(f'#!/bin/bash\necho "$*" >> {tmp_path}/gh.log\n{gh}\n')
    (bin_dir / "gh").chmod(0o755)
    output = tmp_path / "output"
    output.write_text("")
    full = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GITHUB_OUTPUT": str(output), **env}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                          env=full, cwd=tmp_path, capture_output=True, text=True)  # fmt: skip
    return done.returncode, done.stdout + done.stderr, output.read_text()


HEAD = "a" * 40
VALIDATE = "Which pull request (validated, and checked against GitHub's own record)"


def _artifact(tmp_path: Path, pr: str, head: str) -> dict[str, str]:
    preview = tmp_path / "preview"
    (preview / "site" / "sub").mkdir(parents=True)
    (preview / "site" / "index.html").write_text("<p>hi</p>")
    (preview / "site" / "sub" / ".git").mkdir()
    (preview / "site" / "escape").symlink_to("/etc")
    (preview / "pr").write_text(pr + "\n")
    (preview / "head").write_text(head + "\n")
    return {"PREVIEW": str(preview), "RUN_HEAD": HEAD, "REPOSITORY": "o/r", "GH_TOKEN": "t"}


def test_the_preview_accepts_the_artifact_of_its_own_run_and_strips_links_and_git(tmp_path):
    env = _artifact(tmp_path, "42", HEAD)
    code, log, output = _run_step("preview.yml", VALIDATE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 0, log
    assert output == "number=42\n"
    assert (tmp_path / "gh.log").read_text() == "api repos/o/r/pulls/42 --jq .head.sha\n"
    site = tmp_path / "preview" / "site"
    assert (site / "index.html").exists() and not (site / "sub" / ".git").exists() and not (site / "escape").exists()


@pytest.mark.parametrize(
    ("pr", "head", "github_head"),
    [
        ("42; rm -rf /", HEAD, HEAD),  # not a number
        ("42", "b" * 40, HEAD),  # the artifact names another commit than the run's
        ("42", HEAD, "c" * 40),  # pull request 42 is not at this commit: another pull request's number
        ("$(id)", HEAD, HEAD),
    ],
)
def test_the_preview_refuses_an_artifact_that_does_not_describe_its_run(tmp_path, pr, head, github_head):
    env = _artifact(tmp_path, pr, head)
    code, log, output = _run_step("preview.yml", VALIDATE, env, tmp_path, gh=f"echo {github_head}")
    assert code == 1 and output == "", log


def test_the_preview_comment_is_updated_not_repeated(tmp_path):
    env = {"GH_TOKEN": "t", "REPOSITORY": "o/r", "PR": "42", "HEAD": HEAD, "RUN": "https://x/run/1", "URL": ""}
    code, log, _ = _run_step("preview.yml", "Comment the link (one comment per pull request, updated)", env, tmp_path,
                             gh='[[ "$*" == *comments\\ --paginate* ]] && echo 77 || true')  # fmt: skip
    assert code == 0, log
    calls = (tmp_path / "gh.log").read_text().splitlines()
    assert calls[1].startswith("api --method PATCH repos/o/r/issues/comments/77 -f body=<!-- pytorch-tips-preview -->")
    assert "download the artifact `preview`" in (tmp_path / "gh.log").read_text()
