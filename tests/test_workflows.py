"""The GitHub workflows, checked where they cannot run: pins, permissions, and the commands they call.

actionlint (with shellcheck) and zizmor run in `make test` too; these are the rules of this
project that neither knows.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from mkdocs_examples.cli import main

ROOT = Path(__file__).parent.parent
WORKFLOWS = {p.name: p for p in sorted((ROOT / ".github" / "workflows").glob("*.yml"))}


def load(name: str) -> dict:
    return yaml.load(WORKFLOWS[name].read_text(encoding="utf-8"), Loader=yaml.BaseLoader)  # no `on:` -> True


def steps(workflow: dict):
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, job, step


def test_the_workflows_are_there():
    assert set(WORKFLOWS) == {"ci.yml", "deploy.yml", "gpu.yml", "preview.yml", "versions.yml"}


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
        assert set(job["permissions"].values()) == {"read"}
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
                    if re.fullmatch(r"tools/[\w/.-]+\.\w+", word):  # a script, not a pattern naming the folder
                        assert (ROOT / word).is_file(), f"{name}: {word} does not exist"
                        seen.add(word)
                for i in range(len(words) - 2):  # python -m mkdocs_examples X, also inside `docker run`
                    if words[i : i + 2] == ["-m", "mkdocs_examples"]:
                        command = words[i + 2]
                        assert command in engine, f"{name}: the engine has no command {command}"
                        seen.add(f"mkdocs_examples {command}")
    expected = {"make test", "make test-slow", "make build", "tools/links.py", "tools/cpu_only.py",
                "mkdocs_examples diff", "mkdocs_examples run", "mkdocs_examples record",
                "mkdocs_examples merge"}  # fmt: skip
    assert expected <= seen, expected - seen


def _step(workflow: str, name: str) -> dict:
    found = [s for _, _, s in steps(load(workflow)) if s.get("name") == name]
    assert len(found) == 1, f"{workflow} has {len(found)} steps named {name!r}"
    return found[0]


def _run_step(workflow: str, name: str, env: dict[str, str], tmp_path: Path, gh: str = "",
              cwd: Path | None = None) -> tuple[int, str, str]:  # fmt: skip
    """Run a step's script as GitHub would (bash -eo pipefail), with a stand-in `gh` on PATH."""
    step = _step(workflow, name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(f'#!/bin/bash\necho "$*" >> {tmp_path}/gh.log\n{gh}\n')
    (bin_dir / "gh").chmod(0o755)
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.write_text("")
    summary.write_text("")
    full = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(tmp_path), "HOME": str(tmp_path), **env}  # fmt: skip
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                          env=full, cwd=cwd or tmp_path, capture_output=True, text=True)  # fmt: skip
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


def test_the_preview_accepts_the_artifact_of_its_own_run(tmp_path):
    env = _artifact(tmp_path, "42", HEAD)
    code, log, output = _run_step("preview.yml", VALIDATE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 0, log
    assert output == "number=42\n"
    assert (tmp_path / "gh.log").read_text() == "api repos/o/r/pulls/42 --jq .head.sha\n"


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


# --- Example code meets no write permission, no secret ------------------------------------------

# What runs example code: the engine's `run` and `record`, a build or a serve (unless the job or
# step sets MKDOCS_EXAMPLES_EXECUTE=false), and the tests, which build sites
_EXECUTING = re.compile(
    r"\bmake (?P<build>build|serve)\b|\bmake (test|run|diff|record)\b|-m mkdocs_examples (run|record)\b"
    r"|\bmkdocs (?P<mkdocs>build|serve)\b|\bpytest\b"
)


def _runs_examples(job: dict) -> bool:
    for step in job.get("steps", []):
        env = {**job.get("env", {}), **step.get("env", {})}
        for found in _EXECUTING.finditer(step.get("run", "").replace("\\\n", " ")):
            builds = found.group("build") or found.group("mkdocs")
            if not (builds and env.get("MKDOCS_EXAMPLES_EXECUTE") == "false"):
                return True
    return False


def _executing_jobs():
    for name in WORKFLOWS:
        for job_name, job in load(name)["jobs"].items():
            if _runs_examples(job):
                yield name, job_name, job


def test_what_counts_as_running_examples():
    def job(run: str, env: dict | None = None) -> dict:
        return {"steps": [{"run": run}], **({"env": env} if env else {})}

    for run in ("make build", "make test", ".venv/bin/python -m mkdocs_examples run --snapshot x",
                "docker run img \\\n  .venv/bin/python -m mkdocs_examples record --out s", "python -m mkdocs build",
                "python -m pytest tests"):  # fmt: skip
        assert _runs_examples(job(run)), run
        assert _runs_examples(job(run, {"MKDOCS_EXAMPLES_EXECUTE": "false"})) == ("build" not in run), run
    for run in ("make .venv/.installed", "python -m mkdocs_examples diff a b", "python -m mkdocs_examples merge s"):
        assert not _runs_examples(job(run)), run


def test_the_jobs_that_run_example_code_are_these():
    found = {(name, job_name) for name, job_name, _ in _executing_jobs()}
    assert found == {("ci.yml", "check"), ("ci.yml", "base"), ("deploy.yml", "examples"), ("gpu.yml", "record"),
                     ("versions.yml", "record")}  # fmt: skip


def test_no_job_that_runs_example_code_has_a_write_permission_a_secret_or_an_environment():
    # Not even `pages: read`: a job that runs examples may read the repository, and nothing else
    for name, job_name, job in _executing_jobs():
        assert job["permissions"] == {"contents": "read"}, f"{name}: {job_name} runs examples with {job['permissions']}"
        text = yaml.safe_dump(job)
        assert "secrets." not in text and "github.token" not in text, f"{name}: {job_name} runs examples with a token"
        assert "environment" not in job, f"{name}: {job_name} runs examples in an environment"
        for step in job["steps"]:
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] == "false", f"{name}: {job_name} keeps the checkout's token"


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_a_secret_is_read_only_in_a_job_with_an_environment(name):
    # An environment's protection rules (branches, reviewers) then decide who may use it
    for job_name, job in load(name)["jobs"].items():
        if "secrets." in yaml.safe_dump(job):
            assert job.get("environment"), f"{name}: job {job_name} reads a secret outside an environment"


def _pages_jobs():
    for job_name, job in load("deploy.yml")["jobs"].items():
        for step in job.get("steps", []):
            uses = step.get("uses", "")
            if "upload-pages-artifact" in uses or (
                "actions/upload-artifact@" in uses and step["with"].get("name") == "github-pages"
            ):
                yield job_name, job


def test_the_job_that_uploads_pages_runs_no_example_and_builds_from_the_results_of_one_that_did():
    deploy = load("deploy.yml")
    ((name, job),) = list(_pages_jobs())
    assert job["env"]["MKDOCS_EXAMPLES_EXECUTE"] == "false", f"{name} may run examples"
    assert not _runs_examples(job), f"{name} runs examples"
    assert [s for j, _, s in _cache_steps(deploy) if j == name] == [], f"{name} restores a cache"
    (download,) = [s for s in job["steps"] if "download-artifact" in s.get("uses", "")]
    assert download["with"] == {"name": "example-results", "path": ".cache/examples"}
    source = deploy["jobs"][job["needs"]]
    assert _runs_examples(source) and source["permissions"] == {"contents": "read"}
    (upload,) = [s for s in source["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["with"]["name"] == "example-results" and upload["with"]["path"] == ".cache/examples/"


def test_mkdocs_yml_takes_execute_from_the_environment(monkeypatch):
    from mkdocs.config import load_config

    monkeypatch.setenv("MKDOCS_EXAMPLES_EXECUTE", "false")
    assert load_config(str(ROOT / "mkdocs.yml")).plugins["examples"].config.execute is False
    monkeypatch.delenv("MKDOCS_EXAMPLES_EXECUTE")
    assert load_config(str(ROOT / "mkdocs.yml")).plugins["examples"].config.execute is True


# --- Every action pinned, all the way down; every job bounded ----------------------------------

# Actions that call other actions by tag inside: our pin of them does not reach those
UNPINNED_INSIDE = {
    "actions/upload-pages-artifact": "its action.yml (v3.0.1) runs actions/upload-artifact@v4",
}


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_no_action_that_calls_unpinned_actions_inside(name):
    for _, _, step in steps(load(name)):
        action = step.get("uses", "").split("@")[0]
        assert action not in UNPINNED_INSIDE, f"{name}: {action}: {UNPINNED_INSIDE.get(action)}"


def test_the_pages_archive_is_what_upload_pages_artifact_makes(tmp_path):
    site = tmp_path / "site"
    (site / "sub" / ".git").mkdir(parents=True)
    (site / "index.html").write_text("<p>hi</p>")
    (site / "sub" / ".git" / "config").write_text("secret")
    (site / "linked.html").symlink_to(site / "index.html")
    code, log, _ = _run_step("deploy.yml", "Archive the site for Pages", {}, tmp_path)
    assert code == 0, log
    with tarfile.open(tmp_path / "artifact.tar") as archive:
        members = {m.name: m for m in archive.getmembers()}
        assert {"./index.html", "./linked.html", "./sub"} <= set(members) and not any(".git" in m for m in members)
        assert members["./linked.html"].isfile(), "links are stored as the files they point to"
    (step,) = [s for _, job in _pages_jobs() for s in job["steps"] if "upload-artifact" in s.get("uses", "")]
    assert step["with"]["path"] == "${{ runner.temp }}/artifact.tar" and step["with"]["name"] == "github-pages"


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_every_job_has_a_timeout(name):
    for job_name, job in load(name)["jobs"].items():
        assert int(job.get("timeout-minutes", 0)) > 0, f"{name}: job {job_name} has no timeout-minutes"


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_no_runner_image_is_latest(name):
    for job_name, job in load(name)["jobs"].items():
        labels = job["runs-on"] if isinstance(job["runs-on"], list) else [job["runs-on"]]
        assert not any(label.endswith("-latest") for label in labels), f"{name}: {job_name} runs on {labels}"
        assert "self-hosted" in labels or re.fullmatch(r"ubuntu-\d\d\.\d\d", labels[0]), f"{name}: {job_name}"


# --- The summary reviewers read first is written by the base's code --------------------------------


def test_the_summary_checks_out_the_base_and_only_reads_artifacts():
    summary = load("ci.yml")["jobs"]["summary"]
    uses = [s["uses"].split("@")[0] for s in summary["steps"] if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python", "actions/checkout", *["actions/download-artifact"] * 3]
    checkout, head = [s for s in summary["steps"] if "checkout" in s.get("uses", "")]
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    # the pull request's recordings, as data beside the base: nothing else of it, and no credentials kept
    assert head["with"] == {"ref": "${{ github.event.pull_request.head.sha }}", "path": "head",
                            "sparse-checkout": "recordings\ndocs\n", "persist-credentials": "false"}  # fmt: skip
    scripts = " ".join(s.get("run", "") for s in summary["steps"])
    assert ".venv" not in scripts and "make " not in scripts and not _runs_examples(summary)
    # the raw HTML of each changed page, read from the head's pages as data, before the list that names them
    listed = 'mkdocs_examples unsandboxed "$changed" --pages head --nav mkdocs.yml head/mkdocs.yml "${site[@]}"'
    assert listed in scripts
    # the built site of the pull request, as data, before that list: what the strict build's last check finds
    built = next(s for s in summary["steps"] if s.get("with", {}).get("name") == "preview")
    assert built["with"]["path"] == "built" and "site=(--site built/site)" in scripts
    names = [s.get("name", s.get("uses", "")) for s in summary["steps"]]
    assert names.index(head["uses"]) < names.index("Files a reviewer must look at first")
    assert "-m mkdocs_examples diff outputs/base/base.json outputs/head/head.json" in scripts
    assert "--compare-recordings recordings head/recordings" in scripts


FLAG = "Files a reviewer must look at first"


def _flag(tmp_path: Path, files: list[str], head_repository: str = "o/r", branch: str = "topic") -> str:
    env = {"GH_TOKEN": "t", "REPOSITORY": "o/r", "PR": "42", "HEAD_REPOSITORY": head_repository, "HEAD_BRANCH": branch}
    listing = "\\n".join(files)
    (tmp_path / "bin").mkdir(exist_ok=True)
    python = tmp_path / "bin" / "python"  # the runner's Python, with the base's engine
    python.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    python.chmod(0o755)
    code, log, _ = _run_step("ci.yml", FLAG, env, tmp_path, gh=f"printf '{listing}\\n'", cwd=ROOT)
    assert code == 0, log
    assert (tmp_path / "gh.log").read_text().startswith("api repos/o/r/pulls/42/files --paginate")
    return (tmp_path / "summary").read_text() + log


def test_the_summary_flags_recordings_changed_by_hand(tmp_path):
    text = _flag(tmp_path, ["docs/en/x.md", "recordings/cuda/tensors/x.json"])
    assert "Recordings changed by hand" in text and "- `recordings/cuda/tensors/x.json`" in text
    assert "::warning::" in text and "docs/en/x.md" not in text


def test_a_fork_branch_named_like_the_gpu_workflows_is_still_by_hand(tmp_path):
    text = _flag(tmp_path, ["recordings/cuda/x.json"], head_repository="someone/fork", branch="refresh-cuda-recordings")
    assert "Recordings changed by hand" in text


def test_the_gpu_workflows_own_pull_request_is_not_flagged(tmp_path):
    assert _flag(tmp_path, ["recordings/cuda/x.json"], branch="refresh-cuda-recordings") == ""
    # but no workflow writes the keys the site trusts
    text = _flag(tmp_path, ["recordings/cuda/x.json", "recordings/signers.json"], branch="refresh-cuda-recordings")
    assert "- `recordings/signers.json`" in text and "recordings/cuda/x.json" not in text


def test_the_version_matrix_pull_request_may_change_cpu_environments_only(tmp_path):
    cpu = "recordings/cpu-torch2.4.1-py3.11/tensors/x.json"
    assert _flag(tmp_path, [cpu], branch="refresh-version-recordings") == ""
    text = _flag(tmp_path, [cpu, "recordings/cuda-torch2.11.0-py3.12/x.json"], branch="refresh-version-recordings")
    assert "- `recordings/cuda-torch2.11.0-py3.12/x.json`" in text and cpu not in text
    forked = _flag(tmp_path, [cpu], head_repository="someone/fork", branch="refresh-version-recordings")
    assert "Recordings changed by hand" in forked and cpu in forked


def test_the_summary_names_changes_to_the_code_that_made_its_outputs(tmp_path):
    text = _flag(tmp_path, ["src/mkdocs_examples/mkdocs/plugin.py", "docs/en/x.md", ".github/workflows/ci.yml"])
    assert "- `src/mkdocs_examples/mkdocs/plugin.py`" in text and "- `.github/workflows/ci.yml`" in text
    assert "recordings" not in text and "docs/en/x.md" not in text


def test_the_summary_names_templates_and_tests_which_run_outside_the_sandbox(tmp_path):
    text = _flag(tmp_path, ["overrides/main.html", "tests/test_x.py", "examples/tensors/x.py", "docs/zh/x.md"])
    assert "### Files that run outside the sandbox" in text
    assert "- `overrides/main.html`\n- `tests/test_x.py`\n" in text and "examples/" not in text and "docs/" not in text


def test_a_change_to_examples_and_pages_alone_names_no_file(tmp_path):
    assert _flag(tmp_path, ["examples/tensors/x.py", "docs/en/tensors/x.md", "docs/zh/tensors/x.md"]) == ""


UNSANDBOXED = [  # what runs with the rights of whoever builds, tests or deploys, or in a reader's browser
    "data/pytorch_api.json", "data/search_terms.py", "overrides/partials/x.html", "src/mkdocs_examples/cli.py",
    "tests/test_x.py", "tests/conftest.py", "tools/links.py", "bench/bench.py", ".ci/x.sh", ".github/workflows/x.yml",
    "mkdocs.yml", "Makefile", "pyproject.toml", "requirements.txt", "requirements-gpu.txt", "conftest.py",
    "examples/conftest.py", "setup.py", ".pre-commit-config.yaml", "docs/assets/maths.js", "docs/assets/site.css",
    "docs/en/x.svg", "docs/en/x.html", "recordings/cuda/x.py", "notebooks/x.py",
]  # fmt: skip
SANDBOXED_OR_CONTENT = [
    "examples/tensors/x.py", "examples/data/x.csv", "docs/en/x.md", "docs/zh/x/y.md", "docs/en/img/x.png",
    "docs/en/x.JPG", "README.md", "CONTRIBUTING.md", "LICENSE", "notebooks/tensors/x.ipynb",
    "recordings/cuda-torch2.11.0-py3.12/x.json", "tests/search_queries.yml", "data/search_terms.yml",
]  # fmt: skip


def test_every_file_but_examples_and_plain_content_is_named():
    from mkdocs_examples.publish.review import unsandboxed

    assert unsandboxed(UNSANDBOXED + SANDBOXED_OR_CONTENT) == sorted(UNSANDBOXED)
    assert unsandboxed(["pages/x.md", "ex/x.py", "examples/x.py"], examples="ex", docs="pages") == ["examples/x.py"]


def test_a_change_of_mkdocs_yml_that_touches_only_the_nav_is_content(tmp_path, capsys):
    from mkdocs_examples.cli import main
    from mkdocs_examples.publish.review import nav_only

    base = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = base.replace("  - Tensors:\n", "  - Tensors:\n      - tensors/one-hot.md\n", 1)
    section = pages.replace("nav_translations:\n", "nav_translations:\n            Sparse: 稀疏张量\n", 1)
    assert pages != base and section != pages and nav_only(base, pages) and nav_only(base, section)
    assert nav_only(base, base + "\n# a comment\n")
    assert not nav_only(base, base.replace("strict: true", "strict: false", 1))
    assert not nav_only("a: !!python/name:os.getcwd\nnav: []\n", "a: !!python/name:os.system\nnav: []\n")
    assert not nav_only("a: !ENV X\n", "a: !ENV Y\n") and not nav_only(base, "a: [")

    head = tmp_path / "mkdocs.yml"
    changed = tmp_path / "changed"
    changed.write_text("mkdocs.yml\ntests/search_queries.yml\ndata/search_terms.yml\ndocs/en/tensors/one-hot.md\n")
    head.write_text(section, encoding="utf-8")
    assert main(["unsandboxed", str(changed), "-f", str(ROOT / "mkdocs.yml"), "--nav", str(ROOT / "mkdocs.yml"),
                 str(head)]) == 0  # fmt: skip
    assert capsys.readouterr().out == ""  # a content pull request: nothing to read as code
    head.write_text(section.replace("strict: true", "strict: false", 1), encoding="utf-8")
    assert main(["unsandboxed", str(changed), "-f", str(ROOT / "mkdocs.yml"), "--nav", str(ROOT / "mkdocs.yml"),
                 str(head)]) == 0  # fmt: skip
    assert capsys.readouterr().out.endswith("first.\n\n- `mkdocs.yml`\n\n")  # and only it


HTML_PAGE = """\
# A page {: onclick=alert(1) }

Text with e<sup>x</sup>, `<script>` in code, $\\sum_{i=1}^{n} x_i$ and <https://example.org>.

```html
<script>alert(1)</script>
```

$$
\\frac{1}{n} \\sum_{j=1}^{n} x_j
$$

<IMG src=x onerror=alert(1)> <!-- a comment -->
[link](x.md){ #id .class target=_blank }
"""


def test_the_raw_html_of_a_page_is_found_outside_code_and_formulas():
    from mkdocs_examples.publish.review import raw_html

    assert raw_html(HTML_PAGE) == [
        (1, "{: onclick=… }"), (3, "<sup>"), (13, "<!--"), (13, "<img>"), (14, "{: target=… }"),
    ]  # fmt: skip


def test_the_summary_lists_the_raw_html_of_each_changed_page_and_follows_no_link(tmp_path, capsys):
    from mkdocs_examples.cli import main

    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "x.md").write_text(HTML_PAGE)
    (tmp_path / "docs" / "en" / "plain.md").write_text("# Plain\n\nNo HTML, `<b>` in code.\n")
    secret = tmp_path / "secret.md"
    secret.write_text("<script>TOKEN</script>\n")
    (tmp_path / "docs" / "en" / "link.md").symlink_to(secret)
    changed = tmp_path / "changed"
    changed.write_text("docs/en/x.md\ndocs/en/plain.md\ndocs/en/link.md\ndocs/en/deleted.md\nREADME.md\n")
    assert main(["unsandboxed", str(changed), "-f", str(ROOT / "mkdocs.yml"), "--pages", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### Raw HTML in the pages\n")  # no file that runs outside the sandbox
    assert "- `docs/en/x.md`: line 1 `{: onclick=… }`, line 3 `<sup>`, line 13 `<!--`, line 13 `<img>`," in out
    assert "- `docs/en/link.md`: a symbolic link, not read" in out and "script" not in out
    assert "plain.md" not in out and "deleted.md" not in out
    assert main(["unsandboxed", str(changed), "-f", str(ROOT / "mkdocs.yml")]) == 0  # without --pages: no pages
    assert capsys.readouterr().out == ""


def test_the_weekly_and_manual_runs_have_their_own_concurrency_group():
    # A push to main must not cancel the run that checks the external links
    group = load("ci.yml")["concurrency"]["group"]
    assert "${{ github.event_name }}" in group and "github.event.pull_request.number" in group


# --- Previews: one queue per pull request, capped, without service workers -------------------------


def test_each_pull_request_has_its_own_preview_queue():
    preview = load("preview.yml")
    publish = preview["jobs"]["publish"]
    assert publish["concurrency"]["group"] == "preview-${{ needs.identify.outputs.number }}"
    assert preview["jobs"]["identify"]["outputs"]["number"] == "${{ steps.pr.outputs.number }}"
    for job_name, job in preview["jobs"].items():  # no group shared by pull requests, which would drop runs
        if "concurrency" in job and job_name != "prune":
            assert "number" in job["concurrency"]["group"], f"preview.yml: {job_name} shares a queue"


CHECK_SITE = "Still the pull request's head, and a site fit to preview (no links, size, no worker)"


def _preview_site(tmp_path: Path, files: dict[str, str | bytes]) -> dict[str, str]:
    site = tmp_path / "preview" / "site"
    for name, content in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    return {"GH_TOKEN": "t", "REPOSITORY": "o/r", "RUN_HEAD": HEAD, "PR": "42", "PREVIEW": str(site.parent),
            "MAX_PREVIEW_MB": "1"}  # fmt: skip


def test_a_preview_loses_links_and_git_folders_and_keeps_its_pages(tmp_path):
    env = _preview_site(tmp_path, {"index.html": "<p>hi</p>", "sub/.git/config": "x"})
    (tmp_path / "preview" / "site" / "escape").symlink_to("/etc")
    code, log, _ = _run_step("preview.yml", CHECK_SITE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 0, log
    site = tmp_path / "preview" / "site"
    assert (site / "index.html").exists() and not (site / "sub" / ".git").exists() and not (site / "escape").exists()


def test_a_preview_of_a_head_that_moved_on_while_queued_is_not_published(tmp_path):
    env = _preview_site(tmp_path, {"index.html": "<p>hi</p>"})
    code, log, _ = _run_step("preview.yml", CHECK_SITE, env, tmp_path, gh=f"echo {'c' * 40}")
    assert code == 1 and "has moved on" in log, log


def test_a_preview_over_the_size_limit_is_refused_with_the_reason(tmp_path):
    env = _preview_site(tmp_path, {"index.html": "<p>hi</p>", "big.bin": b"\0" * (2 * 1024 * 1024)})
    code, log, _ = _run_step("preview.yml", CHECK_SITE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 1, log
    assert "::error::the built site is 2 MB, over the 1 MB a preview may take" in log and "MAX_PREVIEW_MB" in log


POLICY = "<meta http-equiv=\"Content-Security-Policy\" content=\"worker-src 'none'\">"


def test_every_html_file_of_a_preview_starts_with_a_policy_that_refuses_workers(tmp_path):
    script = "navigator['service' + 'Worker'].register('sw.js')"  # a grep for serviceWorker would not see it
    pages = {
        "index.html": "<!doctype html><html><head><title>x</title></head><body><p>hi</p></body></html>",
        "bare/index.html": "<script>" + script + "</script>",  # no doctype, no <head>: the policy still comes first
        "bom.htm": "\ufeff  <!DOCTYPE html>\n<p>x</p>",
        "assets/app.js": script,  # not a document: governed by the policy of the page that loads it
    }
    env = _preview_site(tmp_path, pages)
    code, log, _ = _run_step("preview.yml", CHECK_SITE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 0, log
    site = tmp_path / "preview" / "site"
    assert (site / "index.html").read_text() == "<!doctype html>" + POLICY + pages["index.html"][15:]
    assert (site / "bare" / "index.html").read_text() == POLICY + pages["bare/index.html"]
    assert (site / "bom.htm").read_text() == "\ufeff  <!DOCTYPE html>" + POLICY + "\n<p>x</p>"
    assert (site / "assets" / "app.js").read_text() == script


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("sw.svg", "<svg><script>register()</script></svg>", "a script in a document"),
        ("a.xhtml", '<html><body onload="x()"/></html>', "a script in a document"),
        ("utf16.html", "\ufeff<script>x()</script>".encode("utf-16-le"), "not UTF-8"),
    ],
)
def test_a_preview_with_a_document_that_cannot_carry_the_policy_is_refused_naming_it(tmp_path, name, content, why):
    env = _preview_site(tmp_path, {"index.html": "<p>hi</p>", name: content})
    code, log, _ = _run_step("preview.yml", CHECK_SITE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 1, log
    assert "::error::a preview cannot keep these files" in log and f"{name} ({why}" in log


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _remote(tmp_path: Path, url: str, files: dict[str, str], branch: str) -> tuple[Path, dict[str, str]]:
    """A bare repository with one commit, that ``url`` reaches (git's url.insteadOf)."""
    remote, work = tmp_path / "remote.git", tmp_path / "seed"
    _git("init", "--quiet", "--bare", str(remote), cwd=tmp_path)
    _git("init", "--quiet", "-b", branch, str(work), cwd=tmp_path)
    for name, content in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(content)
    _git("add", "--all", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "seed", cwd=work)
    _git("push", "--quiet", str(remote), f"HEAD:{branch}", cwd=work)
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{remote}.insteadOf", "GIT_CONFIG_VALUE_0": url}
    return remote, env


def test_previews_that_land_meanwhile_are_kept_and_this_one_lands_on_top(tmp_path):
    remote, git_env = _remote(tmp_path, "https://x-access-token:t@github.com/o/previews.git",
                              {"index.html": "previews", "pr-3/index.html": "three"}, "gh-pages")  # fmt: skip
    # Another pull request's preview lands between this run's clone and its first push
    other = tmp_path / "other"
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "git").write_text(f"""#!/bin/bash
if [[ " $* " == *" push "* && ! -e {tmp_path}/raced ]]; then
  touch {tmp_path}/raced
  /usr/bin/git clone --quiet --branch gh-pages {remote} {other}
  mkdir {other}/pr-7 && echo seven > {other}/pr-7/index.html
  /usr/bin/git -C {other} add --all && /usr/bin/git -C {other} -c user.name=t -c user.email=t@t commit --quiet -m 7
  /usr/bin/git -C {other} push --quiet origin gh-pages
fi
exec /usr/bin/git "$@"
""")
    (tmp_path / "bin" / "git").chmod(0o755)
    env = _preview_site(tmp_path, {"index.html": "forty-two"})
    env.update(git_env, TOKEN="t", TARGET="o/previews", URL="https://o.github.io/previews", SITE_URL=SITE_URL)
    code, log, output = _run_step("preview.yml", "Publish to the previews repository", env, tmp_path)
    assert code == 0, log
    assert (tmp_path / "raced").exists()
    assert output == "url=https://o.github.io/previews/pr-42/\n"
    files = set(_git("ls-tree", "-r", "--name-only", "gh-pages", cwd=remote).split())
    assert files == {".nojekyll", "index.html", "pr-3/index.html", "pr-7/index.html", "pr-42/index.html"}


SITE_URL = load("preview.yml")["jobs"]["publish"]["env"]["SITE_URL"]


@pytest.mark.parametrize("url", ["https://pytorch-tips.github.io/previews", "HTTPS://PyTorch-Tips.github.io",
                                 "pytorch-tips.github.io/previews"])  # fmt: skip
def test_a_preview_on_the_real_sites_origin_or_not_a_url_is_refused(tmp_path, url):
    env = _preview_site(tmp_path, {"index.html": "forty-two"})
    env.update(TOKEN="t", TARGET="o/previews", URL=url, SITE_URL=SITE_URL)
    code, log, output = _run_step("preview.yml", "Publish to the previews repository", env, tmp_path)
    assert code == 1 and "is on the real site's origin" in log and output == "", log


def test_the_previews_idea_of_the_real_site_is_mkdocs_yml_s():
    site_url = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)
    assert site_url and site_url[1] == SITE_URL


def test_the_summary_downloads_each_snapshot_by_its_name_into_its_own_folder():
    downloads = [s for _, _, s in steps(load("ci.yml")) if "download-artifact" in s.get("uses", "")]
    found = {s["with"].get("name"): s["with"].get("path") for s in downloads}
    assert found == {"outputs-head": "outputs/head", "outputs-base": "outputs/base", "preview": "built"}
    assert not any("pattern" in s["with"] or "merge-multiple" in s["with"] for s in downloads)


def test_the_daily_prune_removes_the_previews_of_closed_pull_requests_only(tmp_path):
    pages = {"index.html": "p", "pr-3/index.html": "3", "pr-5/index.html": "5"}
    remote, git_env = _remote(tmp_path, "https://x-access-token:t@github.com/o/previews.git", pages, "gh-pages")
    env = {"GH_TOKEN": "t", "TOKEN": "t", "TARGET": "o/previews", "REPOSITORY": "o/r", **git_env}
    code, log, _ = _run_step("preview.yml", "Remove the previews of pull requests no longer open", env, tmp_path,
                             gh="printf '5\\n12\\n'")  # fmt: skip
    assert code == 0, log
    left = set(_git("ls-tree", "-r", "--name-only", "gh-pages", cwd=remote).split())
    assert left == {"index.html", "pr-5/index.html"}  # pull request 3 is closed, 5 is open


# --- GPU runners: ephemeral, hash-locked installs, a container without network -----------------


def test_the_record_job_checks_its_runner_then_installs_locked_and_records_offline():
    record = load("gpu.yml")["jobs"]["record"]
    names = [s.get("name", s.get("uses", "")) for s in record["steps"]]
    assert names[:2] == ["This runner is ephemeral", "The image is pinned by digest"], names
    scripts = [s.get("run", "").replace("\\\n", " ") for s in record["steps"]]
    pips = [s for s in scripts if "pip install" in s]
    assert len(pips) == 1, pips
    assert "--require-hashes --only-binary :all: -r requirements-gpu.txt" in pips[0] and "--no-cache-dir" in pips[0]
    (recording,) = [s for s in scripts if "-m mkdocs_examples record" in s]
    assert recording.lstrip().startswith("mkdir -p shard") and "docker run" in recording
    runs = [shlex.split(run, comments=True) for run in recording.split("docker run")[1:]]
    assert len(runs) == 2  # the GPU, then the same image's torch on the CPU
    for words in runs:
        assert {"--network", "none"} <= set(words) and words[words.index("--network") + 1] == "none"
        mounts = [words[i + 1] for i, w in enumerate(words) if w == "-v"]
        assert mounts == ["$PWD:/work:ro", "$PWD/shard:/work/shard"], mounts
        assert "--privileged" not in words and not any("docker.sock" in w or "HOME" in w.split("=")[0] for w in mounts)
    gpu, cpu = runs
    assert "--gpus" in gpu and words_after(gpu, "--out") == "shard/cuda"
    assert "--gpus" not in cpu and words_after(cpu, "--device") == "cpu" and words_after(cpu, "--out") == "shard/cpu"
    assert "--keep-failed" in cpu
    assert record["env"]["IMAGE"] == "${{ vars.RECORDING_IMAGE }}"


def words_after(words: list[str], option: str) -> str:
    return words[words.index(option) + 1]


def _fake_runner(tmp_path: Path, settings: str | None) -> Path:
    """A runner's folder whose bin/Runner.Worker (a copy of bash) starts the steps, as GitHub's does."""
    root = tmp_path / "actions-runner"
    (root / "bin").mkdir(parents=True)
    worker = root / "bin" / "Runner.Worker"
    shutil.copy("/bin/bash", worker)
    if settings is not None:
        (root / ".runner").write_text(settings, encoding="utf-8-sig")  # the runner writes a BOM
    return worker


@pytest.mark.parametrize(
    ("settings", "ok"),
    [
        ('{\n  "agentId": 7,\n  "ephemeral": true,\n  "poolId": 1\n}', True),
        ('{"AgentId": 7, "Ephemeral": true}', True),
        ('{\n  "agentId": 7,\n  "poolId": 1\n}', False),  # a runner that stays: no "ephemeral" key
        ('{"agentId": 7, "ephemeral": false}', False),
        (None, False),
    ],
)
def test_the_record_job_refuses_a_runner_that_is_not_ephemeral(tmp_path, settings, ok):
    worker = _fake_runner(tmp_path, settings)
    script = _step("gpu.yml", "This runner is ephemeral")["run"]
    steps_shell = 'bash --noprofile --norc -eo pipefail -c "$STEP"; exit $?'  # the worker stays the parent
    done = subprocess.run([str(worker), "--noprofile", "--norc", "-c", steps_shell],
                          env={"PATH": "/usr/bin:/bin", "STEP": script}, capture_output=True, text=True)  # fmt: skip
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    if not ok:
        assert "::error::" in done.stdout and ("is not ephemeral" in done.stdout or settings is None)


def test_outside_a_runner_the_check_refuses(tmp_path):
    code, log, _ = _run_step("gpu.yml", "This runner is ephemeral", {}, tmp_path)
    assert code == 1 and "no Runner.Worker process above this step" in log, log


@pytest.mark.parametrize(
    ("image", "ok"),
    [
        ("python:3.11-slim-bookworm@sha256:" + "a" * 64, True),
        ("ghcr.io/o/gpu:1@sha256:" + "0" * 64, True),
        ("python:3.11-slim-bookworm", False),
        ("", False),
        ("python@sha256:abc", False),
    ],
)
def test_the_recording_image_must_be_pinned_by_digest(tmp_path, image, ok):
    code, log, _ = _run_step("gpu.yml", "The image is pinned by digest", {"IMAGE": image}, tmp_path)
    assert (code == 0) == ok, log


def test_only_the_propose_job_holds_a_token_and_it_is_the_environments():
    gpu = load("gpu.yml")
    assert gpu["jobs"]["merge"]["permissions"] == {"contents": "read"}
    propose = gpu["jobs"]["propose"]
    assert propose["environment"] == "recordings" and propose["permissions"] == {"contents": "read"}
    assert "github.token" not in WORKFLOWS["gpu.yml"].read_text(encoding="utf-8")
    assert [s.get("uses", "").split("@")[0] for s in propose["steps"] if "uses" in s] == [
        "actions/checkout", "actions/download-artifact"]  # fmt: skip  (no pip, no engine, where the token is)
    assert not any("pip" in s.get("run", "") or "python" in s.get("run", "") for s in propose["steps"])


PROPOSE = 'Open or update the pull request "Refresh CUDA recordings"'


VERSIONS_PROPOSE = 'Open or update the pull request "Refresh torch release recordings"'


@pytest.mark.parametrize(
    ("workflow", "step", "files", "refusal"),
    [
        ("gpu.yml", PROPOSE, ["..hidden/x.json"], "a folder that names no environment"),
        ("gpu.yml", PROPOSE, ["cuda-torch2.13.0-py3.11/tensors/x.json", "cuda-torch2.13.0-py3.11/tensors/run.sh"],
         "something other than .json files"),
        ("versions.yml", VERSIONS_PROPOSE, ["cuda-torch2.13.0-py3.11/x.json"],
         "a folder that names no CPU environment"),
    ],
)  # fmt: skip
def test_a_proposal_refuses_what_its_workflow_does_not_record(tmp_path, workflow, step, files, refusal):
    merged = tmp_path / "merged"
    for name in files:
        (merged / name).parent.mkdir(parents=True, exist_ok=True)
        (merged / name).write_text("echo hi" if name.endswith(".sh") else "{}")
    env = {"GH_TOKEN": "t", "REPOSITORY": "o/r", "BASE": "main", "MERGED": str(merged)}
    code, log, _ = _run_step(workflow, step, env, tmp_path)
    assert code == 1 and refusal in log, log


def test_the_proposal_pushes_the_recordings_to_their_branch_and_opens_the_pull_request(tmp_path):
    url = "https://x-access-token:t@github.com/o/r.git"
    remote, git_env = _remote(tmp_path, url, {
        "README.md": "r",
        "recordings/cuda-torch2.11.0-py3.12/old.json": "{}",  # an older torch of the GPU image: goes
        "recordings/cpu-torch2.11.0-py3.12/old.json": "{}",  # its CPU twin: goes too
        "recordings/cpu-torch2.14.1-py3.11/kept.json": "{}",  # another environment's: stays
    }, "main")  # fmt: skip
    checkout = tmp_path / "checkout"
    _git("clone", "--quiet", "--branch", "main", str(remote), str(checkout), cwd=tmp_path)
    merged = tmp_path / "merged"
    for name in ("cuda-torch2.13.0-py3.11", "cpu-torch2.13.0-py3.11"):
        (merged / name / "tensors").mkdir(parents=True)
        (merged / name / "tensors" / "new.json").write_text('{"a": 1}')
        (merged / name / "environment.json").write_text("{}")
    env = {"GH_TOKEN": "t", "REPOSITORY": "o/r", "BASE": "main", "MERGED": str(merged), "GITHUB_RUN_ID": "9", **git_env}
    no_pull_request_yet = '[ "$2" != edit ]'  # `gh pr edit` fails, `gh pr create` works
    code, log, _ = _run_step("gpu.yml", PROPOSE, env, tmp_path, gh=no_pull_request_yet, cwd=checkout)
    assert code == 0, log
    files = set(_git("ls-tree", "-r", "--name-only", "refresh-cuda-recordings", cwd=remote).split())
    assert files == {
        "README.md", "recordings/cpu-torch2.14.1-py3.11/kept.json",
        *(f"recordings/{name}/{file}" for name in ("cuda-torch2.13.0-py3.11", "cpu-torch2.13.0-py3.11")
          for file in ("tensors/new.json", "environment.json")),
    }  # fmt: skip
    calls = (tmp_path / "gh.log").read_text().splitlines()
    assert calls[0].startswith("pr edit refresh-cuda-recordings") and calls[1].startswith("pr create --base main")
    env.pop("GH_TOKEN")
    code, log, _ = _run_step("gpu.yml", PROPOSE, {**env, "GH_TOKEN": ""}, tmp_path, cwd=checkout)
    assert code == 1 and "set the secret RECORDINGS_TOKEN in the environment recordings" in log


# --- The version matrix: torch releases on GitHub's CPU runners ------------------------------------


def test_the_version_matrix_runs_weekly_on_main_and_by_hand_never_for_pull_requests():
    versions = load("versions.yml")
    assert set(versions["on"]) == {"push", "schedule", "workflow_dispatch"}
    assert versions["on"]["push"]["branches"] == ["main"] and len(versions["on"]["schedule"]) == 1
    assert versions["concurrency"]["group"] == "version-recordings"


def test_the_version_matrix_reads_its_releases_from_mkdocs_yml(capsys):
    # the plan job prints the matrix from mkdocs.yml; the record jobs take release, Python and shard from it
    jobs = load("versions.yml")["jobs"]
    (plan,) = [s["run"] for s in jobs["plan"]["steps"] if "mkdocs_examples" in s.get("run", "")]
    assert plan == 'echo "matrix=$(python -m mkdocs_examples versions)" >> "$GITHUB_OUTPUT"'
    record = jobs["record"]
    assert record["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    (python,) = [s for s in record["steps"] if s.get("uses", "").startswith("actions/setup-python@")]
    assert python["with"]["python-version"] == "${{ matrix.python }}"
    text = WORKFLOWS["versions.yml"].read_text(encoding="utf-8")
    assert not re.search(r"(?<![\w.])2\.\d+\b", text), "a torch release written in the workflow"
    # and the one list: the releases the site supports, 2.4 to 2.15, under the build's Python where they can be
    assert main(["versions", "-f", str(ROOT / "mkdocs.yml")]) == 0
    matrix = json.loads(capsys.readouterr().out)["include"]
    releases = sorted({job["torch"] for job in matrix}, key=lambda r: tuple(map(int, r.split("."))))
    assert releases == [f"2.{minor}" for minor in range(4, 16)]
    ci = load("ci.yml")
    ci_python = [s["with"]["python-version"] for _, _, s in steps(ci) if "setup-python" in s.get("uses", "")]
    assert {job["python"] for job in matrix} == set(ci_python) == {"3.11"}


def test_the_gpu_workflow_reads_its_jobs_from_mkdocs_yml_too():
    (plan,) = [s["run"] for s in load("gpu.yml")["jobs"]["plan"]["steps"] if "mkdocs_examples" in s.get("run", "")]
    assert "python -m mkdocs_examples shards" in plan
    assert load("gpu.yml")["jobs"]["record"]["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"


def test_the_version_matrix_installs_torch_from_pytorchs_cpu_index_and_records_every_example():
    record = load("versions.yml")["jobs"]["record"]
    assert record["runs-on"] == "ubuntu-24.04" and record["permissions"] == {"contents": "read"}
    scripts = [s.get("run", "") for s in record["steps"]]
    (install,) = [s for s in scripts if "pip install" in s and "torch" in s]
    assert '--index-url https://download.pytorch.org/whl/cpu "torch==${TORCH}.*"' in install
    assert "tools/cpu_only.py" in install and "--extra-index-url" not in install
    (recording,) = [s for s in scripts if "-m mkdocs_examples record" in s]
    words = shlex.split(recording.split("-m mkdocs_examples record", 1)[1].splitlines()[0])
    assert words_after(words, "--matrix") == "versions" and words_after(words, "--device") == "cpu"
    assert "--keep-failed" in words and words_after(words, "--shard") == "$SHARD"


@pytest.mark.parametrize(("name", "environment"), [("gpu.yml", "recording-signing"),
                                                   ("versions.yml", "recording-signing-versions")])
def test_only_the_merge_job_holds_the_signing_key_in_an_environment_of_its_own(name, environment):
    # the private key of the workflow's entry in recordings/signers.json: never where examples run or the token is
    jobs = load(name)["jobs"]
    for job_name, job in jobs.items():
        holds = "RECORDING_SIGNING_KEY" in yaml.safe_dump(job)
        assert holds == (job_name == "merge"), f"{name}: {job_name}"
    merge = jobs["merge"]
    assert merge["environment"] == environment and merge["permissions"] == {"contents": "read"}
    secrets = re.findall(r"secrets\.(\w+)", yaml.safe_dump(merge))
    assert set(secrets) == {"RECORDING_SIGNING_KEY"}
    (step,) = [s for s in merge["steps"] if "RECORDING_SIGNING_KEY" in s.get("env", {})]
    assert "-m mkdocs_examples sign merged/*/ --signers recordings/signers.json" in step["run"]


def test_the_version_matrix_gives_the_token_only_to_the_job_that_runs_no_code():
    versions = load("versions.yml")
    for name in ("plan", "record", "merge"):
        assert versions["jobs"][name]["permissions"] == {"contents": "read"}, name
    for name in ("plan", "record"):
        assert "environment" not in versions["jobs"][name] and "secrets." not in yaml.safe_dump(versions["jobs"][name])
    propose = versions["jobs"]["propose"]
    assert propose["environment"] == "recordings" and propose["permissions"] == {"contents": "read"}
    assert "github.token" not in WORKFLOWS["versions.yml"].read_text(encoding="utf-8")
    assert [s.get("uses", "").split("@")[0] for s in propose["steps"] if "uses" in s] == [
        "actions/checkout", "actions/download-artifact"]  # fmt: skip
    assert not any("pip" in s.get("run", "") or "python" in s.get("run", "") for s in propose["steps"])


MERGE_RELEASES = "Merge each release (fails for a release with no recording, or a malformed one)"


def test_the_version_merge_merges_each_release_on_its_own(tmp_path):
    # a stand-in `python` logs the merge it is asked for
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(f'#!/bin/bash\necho "$*" >> {tmp_path}/python.log\n')
    (bin_dir / "python").chmod(0o755)
    for name in ("recordings-2.1-0", "recordings-2.10-2", "recordings-2.10-3"):
        (tmp_path / "shards" / name).mkdir(parents=True)
    # the committed folder of 2.10's environment is where merge starts from (it keeps unchanged recordings)
    (tmp_path / "shards/recordings-2.10-3/environment.json").write_text('{"id": "cpu-torch2.10.1-py3.11"}')
    (tmp_path / "recordings/cpu-torch2.10.1-py3.11").mkdir(parents=True)
    (tmp_path / "recordings/cpu-torch2.10.1-py3.11/x.json").write_text("committed")
    (tmp_path / "shards/recordings-2.1-0/environment.json").write_text('{"id": "../../etc"}')  # not an id: ignored
    jobs = [{"torch": t, "python": "3.11", "shard": f"{k}/2"} for t in ("2.1", "2.10") for k in (1, 2)]
    code, log, _ = _run_step("versions.yml", MERGE_RELEASES, {"MATRIX": json.dumps({"include": jobs})}, tmp_path)
    assert code == 0, log
    assert (tmp_path / "python.log").read_text().splitlines() == [
        "-m mkdocs_examples merge shards/recordings-2.1-0/ --device cpu --allow-missing --into merged",
        "-m mkdocs_examples merge shards/recordings-2.10-2/ shards/recordings-2.10-3/ --device cpu --allow-missing "
        "--into merged",
    ]
    assert sorted(p.name for p in (tmp_path / "merged").iterdir()) == ["cpu-torch2.10.1-py3.11"]
    assert (tmp_path / "merged/cpu-torch2.10.1-py3.11/x.json").read_text() == "committed"
    jobs.append({"torch": "2.11", "python": "3.11", "shard": "1/2"})  # a release whose shards recorded nothing
    code, log, _ = _run_step("versions.yml", MERGE_RELEASES, {"MATRIX": json.dumps({"include": jobs})}, tmp_path)
    assert code == 1 and "torch 2.11: no shard recorded anything" in log


def test_the_version_proposal_replaces_cpu_environments_and_leaves_the_gpu_workflows_twin(tmp_path):
    url = "https://x-access-token:t@github.com/o/r.git"
    remote, git_env = _remote(tmp_path, url, {
        "README.md": "r",
        "recordings/cpu-torch2.14.1-py3.11/old.json": "{}",  # an older patch of a release: replaced by 2.14.2
        "recordings/cuda-torch2.13.0-py3.11/gpu.json": "{}",  # the GPU workflow's ...
        "recordings/cpu-torch2.13.0-py3.11/twin.json": "{}",  # ... and its CPU twin: both stay as they are
    }, "main")  # fmt: skip
    checkout = tmp_path / "checkout"
    _git("clone", "--quiet", "--branch", "main", str(remote), str(checkout), cwd=tmp_path)
    merged = tmp_path / "merged"
    for name in ("cpu-torch2.4.1-py3.11", "cpu-torch2.14.2-py3.11", "cpu-torch2.13.0-py3.11"):
        (merged / name / "tensors").mkdir(parents=True)
        (merged / name / "tensors" / "new.json").write_text('{"a": 1}')
        (merged / name / "environment.json").write_text("{}")
    env = {"GH_TOKEN": "t", "REPOSITORY": "o/r", "BASE": "main", "MERGED": str(merged), "GITHUB_RUN_ID": "9", **git_env}
    code, log, _ = _run_step("versions.yml", VERSIONS_PROPOSE, env, tmp_path, gh='[ "$2" != edit ]', cwd=checkout)
    assert code == 0, log
    files = set(_git("ls-tree", "-r", "--name-only", "refresh-version-recordings", cwd=remote).split())
    assert files == {
        "README.md", "recordings/cuda-torch2.13.0-py3.11/gpu.json", "recordings/cpu-torch2.13.0-py3.11/twin.json",
        *(f"recordings/{name}/{file}" for name in ("cpu-torch2.4.1-py3.11", "cpu-torch2.14.2-py3.11")
          for file in ("tensors/new.json", "environment.json")),
    }  # fmt: skip
    calls = (tmp_path / "gh.log").read_text().splitlines()
    assert calls[0].startswith("pr edit refresh-version-recordings") and calls[1].startswith("pr create --base main")
    assert "--title Refresh torch release recordings" in calls[1]
