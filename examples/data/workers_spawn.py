# %% [markdown]
# DataLoader workers on Windows and macOS: spawn starts each worker as a new
# Python that imports your script again, so the script needs the __main__
# guard, and the dataset and functions it hands the workers must pickle.
# Run here with the spawn start method, in scripts started as you start yours

# %% [markdown] lang="zh"
# Windows 和 macOS 上的 `DataLoader` worker：spawn 方式下，每个 worker 都是一个
# 新的 Python 进程，会把你的脚本重新导入一遍，所以脚本需要 `__main__` 保护，
# 交给 worker 的数据集和函数也必须能被 pickle。本例在这里用 spawn 方式运行，
# 脚本的启动方式和你启动自己脚本的方式一样

# %% start-method
import multiprocessing
import re
import subprocess
import sys
from pathlib import Path

print(sys.platform, multiprocessing.get_start_method())
print(multiprocessing.get_all_start_methods())


def run(*args):  # run Python as a reader would; keep what it printed
    done = subprocess.run([sys.executable, *args], capture_output=True,
                          text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def errors(stderr):  # the exceptions in stderr, each once, without frames
    found = []
    for block in stderr.split("Traceback (most recent call last):\n")[1:]:
        lines = block.split("\n")
        start = next(i for i, line in enumerate(lines) if line[:1] not in " ")
        text = "\n".join(lines[start:]).split("\n\nThe above exception")[0]
        # a worker's process id changes on every run: shown as …
        text = re.sub(r"(pid(?:\(s\))?) \d+(?:, \d+)*", r"\1 …", text)
        if text.strip() not in found:
            found.append(text.strip())
    return found

# %% start-method-checks tags=["remove-cell"]
# Linux's default up to Python 3.13 (3.14 takes forkserver); spawn is there
# too, and it is the default on Windows and macOS
if sys.platform == "linux" and sys.version_info < (3, 14):
    assert multiprocessing.get_start_method() == "fork"
assert "spawn" in multiprocessing.get_all_start_methods()
assert errors("Traceback (most recent call last):\n  File x\nE: a\n b\n") \
    == ["E: a\n b"]
assert errors("Traceback (most recent call last):\nE: worker (pid(s) 7, 12) "
              "exited\n") == ["E: worker (pid(s) …) exited"]

# %% no-guard
script = """\
import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.arange(8.0))
loader = DataLoader(dataset, batch_size=4, num_workers=1,
                    multiprocessing_context="spawn")  # Windows, macOS
for (x,) in loader:
    print(x)
"""
Path("train.py").write_text(script)
returncode, out, err = run("train.py")
print("exit code", returncode)
for error in errors(err):
    print(error)

# %% no-guard-checks tags=["remove-cell"]
assert returncode == 1 and out == ""
found = errors(err)
# each worker re-ran the script and failed where it starts the workers
assert found[0].startswith("RuntimeError: \n        An attempt has been made "
                           "to start a new process before the")
assert "current process has finished its bootstrapping phase." in found[0]
assert "if __name__ == '__main__':" in found[0]
assert found[-1] == "RuntimeError: DataLoader worker (pid(s) …) exited unexpectedly"
assert re.search(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly", err)
assert err.count("An attempt has been made to start a new process") == 1

# %% guard
script = """\
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):  # defined at the top level: workers import it
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index**2)


def collate(batch):  # a top-level function, not a lambda
    return torch.stack(batch)


def main():
    loader = DataLoader(Squares(), batch_size=4, num_workers=1,
                        collate_fn=collate, multiprocessing_context="spawn")
    for x in loader:
        print(x)


if __name__ == "__main__":  # not run when a worker imports this file
    main()
"""
Path("train.py").write_text(script)
returncode, out, err = run("train.py")
print("exit code", returncode)
print(out, end="")

# %% guard-checks tags=["remove-cell"]
assert returncode == 0 and err == ""
assert out == "tensor([0, 1, 4, 9])\ntensor([16, 25, 36, 49])\n"

# %% lambda raises="_pickle.PicklingError: Can't pickle <function <lambda> at 0x…>: attribute lookup <lambda> on __main__ failed"
import pickle

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

dataset = TensorDataset(torch.arange(8.0))
loader = DataLoader(dataset, batch_size=4, num_workers=2,
                    collate_fn=lambda batch: batch,
                    multiprocessing_context="spawn")
try:
    next(iter(loader))
except pickle.PicklingError as error:
    # the lambda's address changes on every run: shown as 0x…
    raise pickle.PicklingError(
        re.sub(r"0x[0-9a-f]+", "0x…", str(error))) from None

# %% local-class raises="AttributeError: Can't pickle local object 'make_dataset.<locals>.Squares'"
def make_dataset():
    class Squares(Dataset):  # a class defined inside a function
        def __len__(self):
            return 8

        def __getitem__(self, index):
            return index**2

    return Squares()


loader = DataLoader(make_dataset(), batch_size=4, num_workers=2,
                    multiprocessing_context="spawn")
next(iter(loader))

# %% pickle-checks tags=["remove-cell"]
# the main process pickles them before any worker starts: fork never does;
# a partial of a top-level function pickles
import functools

pickle.dumps(functools.partial(torch.stack, dim=0))
for thing in (lambda batch: batch, make_dataset()):
    try:
        pickle.dumps(thing)
    except (pickle.PicklingError, AttributeError):
        pass
    else:
        raise AssertionError(f"{thing} pickled")
fork = DataLoader(make_dataset(), batch_size=4, num_workers=2,
                  collate_fn=lambda batch: batch,
                  multiprocessing_context="fork")
assert list(fork) == [[0, 1, 4, 9], [16, 25, 36, 49]]
# num_workers=0: nothing to pickle, nothing started
main_process = DataLoader(make_dataset(), batch_size=4,
                          collate_fn=lambda batch: batch)
assert list(main_process) == [[0, 1, 4, 9], [16, 25, 36, 49]]

# %% pickle-hint-checks tags=["remove-cell"] holds=">=2.10" claim="Where a worker cannot be pickled, torch adds a warning that hints at the start method" about="local-class"
import warnings

# torch's hint about start methods, a warning beside the pickling error
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        next(iter(DataLoader(make_dataset(), num_workers=1,
                             multiprocessing_context="spawn")))
    except AttributeError:
        pass
hint = [str(w.message) for w in caught]
assert any("Got pickle error when attempting to start a worker" in h
           for h in hint)

# %% notebook
returncode, out, err = run("-c", script)  # __main__ without a file
print("exit code", returncode)
for error in errors(err):
    print(error)

# %% notebook-checks tags=["remove-cell"]
assert returncode == 1 and out == ""
assert errors(err)[0] == (
    "AttributeError: Can't get attribute 'Squares' on <module '__main__' "
    "(built-in)>"
)
