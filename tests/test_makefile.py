"""The Makefile as a contributor meets it: `make help`, `make lint`, the worker count on macOS,
the torch wheel `make build` installs, and the check of commit subjects in `make lint`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def make(*args: str, env: dict[str, str] | None = None, venv: bool = True) -> str:
    """What `make` prints (with -n, what it would run); .venv counts as set up unless ``venv`` is false."""
    base = {k: v for k, v in os.environ.items() if k not in ("TEST_JOBS", "CUDA", "MAKEFLAGS", "MFLAGS")}
    old = ["-o", ".venv/.installed"] if venv else []
    done = subprocess.run(["make", "-s", *old, *args], cwd=ROOT, env={**base, **(env or {})},
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout


def test_help_lists_every_target_with_its_comment():
    targets = dict(re.findall(r"^([a-z-]+):.*?## (.*)$", MAKEFILE, re.MULTILINE))
    phony = re.search(r"^\.PHONY: (.*)$", MAKEFILE, re.MULTILINE)
    assert phony and set(phony.group(1).split()) == set(targets)  # every target says what it does
    shown = make("help").splitlines()
    assert [line.split()[1] for line in shown] == list(targets)
    for line, (target, comment) in zip(shown, targets.items(), strict=True):
        assert line.split(None, 2)[2] == comment, target


def test_lint_runs_every_linter_and_test_runs_lint_first():
    commands = make("-n", "test").splitlines()
    tools = ["-m ruff check", "-m mypy", "/actionlint", "/zizmor", "tools/commit_subjects.py", "-m pytest"]
    where = [next(i for i, line in enumerate(commands) if tool in line) for tool in tools]
    assert where == sorted(where), commands
    lint = make("-n", "lint").splitlines()
    assert commands[: len(lint)] == lint
    between = commands[len(lint) : where[-1]]  # outside CI, the notebooks follow the examples
    assert between == ([] if os.environ.get("CI") else [".venv/bin/python -m mkdocs_examples notebooks notebooks"])


def test_the_worker_count_falls_back_to_the_cores_without_sched_getaffinity(tmp_path):
    (tmp_path / "sitecustomize.py").write_text("import os\ndel os.sched_getaffinity  # as on macOS\n")
    env = {"PYTHONPATH": str(tmp_path)}
    check = subprocess.run(["python3", "-c", "import os; print(hasattr(os, 'sched_getaffinity'))"],
                           env={**os.environ, **env}, capture_output=True, text=True, check=True)  # fmt: skip
    assert check.stdout.strip() == "False"
    pytest = [line for line in make("-n", "-o", "lint", "test", env=env).splitlines() if "-m pytest" in line]
    assert len(pytest) == 1
    assert re.search(r" -n (\d+) --dist loadfile ", pytest[0]), pytest[0]
    assert f" -n {(os.cpu_count() or 1) + 1} " in pytest[0]


def test_build_installs_the_cpu_wheel_of_the_pinned_torch_on_linux_unless_asked_for_cuda():
    pin = re.search(r"^(torch==\S+)", (ROOT / "requirements.txt").read_text(), re.MULTILINE)
    assert pin and "index-url" not in (ROOT / "requirements.txt").read_text()  # what CI and the deploy install
    install = make("-n", "-W", "requirements.txt", ".venv/.installed", venv=False).splitlines()
    torch = [i for i, line in enumerate(install) if "--extra-index-url https://download.pytorch.org/whl/cpu" in line]
    requirements = [i for i, line in enumerate(install) if "-r requirements.txt" in line]
    if sys.platform == "linux":
        assert len(torch) == 1 and torch[0] < requirements[0]
        wheel = f'--no-deps --extra-index-url https://download.pytorch.org/whl/cpu "{pin[1]}"'
        assert install[torch[0]].endswith(wheel)
    else:
        assert torch == []  # PyPI's wheels elsewhere carry no CUDA
    cuda = make("-n", "-W", "requirements.txt", ".venv/.installed", "CUDA=1", venv=False).splitlines()
    assert not any("download.pytorch.org" in line for line in cuda) and any("-r requirements.txt" in c for c in cuda)


def _repo(path: Path, *subjects: str, branch: str = "main") -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                            "GIT_COMMITTER_EMAIL": "t@t"})  # fmt: skip

    if not (path / ".git").exists():
        path.mkdir(exist_ok=True)
        git("init", "-q", "-b", branch)
    for subject in subjects:
        git("commit", "-q", "--allow-empty", "-m", subject)


def _subjects(path: Path, *args: str) -> subprocess.CompletedProcess:
    script = ROOT / "tools" / "commit_subjects.py"
    return subprocess.run([sys.executable, str(script), *args], cwd=path, capture_output=True, text=True)


def test_lint_refuses_a_new_commit_whose_subject_is_over_72_characters(tmp_path):
    repo = tmp_path / "repo"
    _repo(repo, "x" * 100)  # main's history is not checked
    subprocess.run(["git", "checkout", "-q", "-b", "work"], cwd=repo, check=True)
    _repo(repo, "y" * 72, "Add a page\n\n" + "a body line may be as long as it needs " * 5)
    assert _subjects(repo).returncode == 0
    _repo(repo, "z" * 73)
    done = _subjects(repo)
    assert done.returncode == 1 and "73 characters" in done.stderr and "z" * 73 in done.stderr
    assert "x" * 100 not in done.stderr


def test_without_main_the_last_commits_are_checked(tmp_path):
    repo = tmp_path / "repo"
    _repo(repo, "w" * 80, "Short", "Also short", branch="trunk")
    assert _subjects(repo, "--last", "2").returncode == 0
    done = _subjects(repo, "--last", "3")
    assert done.returncode == 1 and "w" * 80 in done.stderr
