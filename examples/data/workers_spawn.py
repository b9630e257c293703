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
assert returncode == 0 and "Error" not in err, err
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

# %% respawn
script = """\
import multiprocessing
import sys

loaded = "torch" in sys.modules  # before this file imports it
with open("imports.log", "a") as log:  # a line each time this file runs
    print(multiprocessing.current_process().name, loaded, file=log)

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    dataset = TensorDataset(torch.arange(8.0))
    for persistent in (False, True):
        loader = DataLoader(dataset, batch_size=4, num_workers=2,
                            persistent_workers=persistent,
                            multiprocessing_context="spawn")
        print("persistent_workers", persistent)
        for epoch in range(2):
            for (x,) in loader:
                alive = len(multiprocessing.active_children())
            after = len(multiprocessing.active_children())
            with open("imports.log") as log:
                runs = len(log.readlines())
            print(f"  epoch {epoch}: {alive} workers, {after} after it;",
                  f"train.py has run {runs} times")


if __name__ == "__main__":
    main()
"""
Path("train.py").write_text(script)
returncode, out, err = run("train.py")
print(out, end="")
runs = [line.split() for line in Path("imports.log").read_text().splitlines()]
print("torch loaded before train.py imported it:",
      sorted({loaded for name, loaded in runs}))

# %% respawn-checks tags=["remove-cell"]
assert returncode == 0 and "Traceback" not in err
# the main process, then 2 new workers per epoch, then 2 workers for both epochs
assert [name for name, _ in runs][0] == "MainProcess" and len(runs) == 7
assert all(name.startswith("SpawnProcess") for name, _ in runs[1:])
assert all(loaded == "False" for _, loaded in runs)  # each loads torch itself
lines = out.splitlines()
assert lines[1] == "  epoch 0: 2 workers, 0 after it; train.py has run 3 times"
assert lines[2] == "  epoch 1: 2 workers, 0 after it; train.py has run 5 times"
assert lines[4] == "  epoch 0: 2 workers, 2 after it; train.py has run 7 times"
assert lines[5] == "  epoch 1: 2 workers, 2 after it; train.py has run 7 times"

# %% prefetch-no-workers raises="ValueError: prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
dataset = TensorDataset(torch.arange(8.0))
num_workers = 0  # was 4: workers turned off, the rest left as it was
loader = DataLoader(dataset, batch_size=4, num_workers=num_workers,
                    prefetch_factor=2)

# %% prefetch-fix
def loader_options(num_workers):
    """Options that only mean something with worker processes"""
    if num_workers == 0:
        return {}
    return {"prefetch_factor": 4, "persistent_workers": True}


for num_workers in (0, 2):
    loader = DataLoader(dataset, batch_size=4, num_workers=num_workers,
                        **loader_options(num_workers))
    print(num_workers, loader.prefetch_factor, loader.persistent_workers,
          [x.tolist() for (x,) in loader])
del loader  # ends the persistent workers

# %% prefetch-fix-checks tags=["remove-cell"]
import gc
import inspect
import multiprocessing

gc.collect()
assert multiprocessing.active_children() == []  # no worker left running
# the default is None, which means 2 once there are workers
assert inspect.signature(DataLoader).parameters["prefetch_factor"].default is None
assert DataLoader(dataset, num_workers=0).prefetch_factor is None
assert DataLoader(dataset, num_workers=2).prefetch_factor == 2
try:  # persistent_workers has the same rule
    DataLoader(dataset, num_workers=0, persistent_workers=True)
except ValueError as error:
    assert str(error) == "persistent_workers option needs num_workers > 0"
else:
    raise AssertionError("persistent_workers=True was accepted without workers")
try:  # the default's value, 2, is refused too
    DataLoader(dataset, num_workers=0, prefetch_factor=2)
except ValueError:
    pass
else:
    raise AssertionError("prefetch_factor=2 was accepted without workers")
batches = {}
for workers in (0, 2):  # the same batches with and without workers
    batches[workers] = [x.tolist() for (x,) in DataLoader(
        dataset, batch_size=4, num_workers=workers, **loader_options(0))]
    if workers == 0:  # num_workers=0 starts no process
        for _ in DataLoader(dataset, batch_size=4):
            assert multiprocessing.active_children() == []
assert batches[0] == batches[2] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]

# %% handle-eager raises="TypeError: cannot pickle 'sqlite3.Connection' object"
import sqlite3

# a small database file: the table data holds the values 0 to 19
with sqlite3.connect("rows.db") as db:
    db.execute("CREATE TABLE data (id INTEGER PRIMARY KEY, value INTEGER)")
    db.executemany("INSERT INTO data VALUES (?, ?)",
                   [(i, i) for i in range(20)])
db.close()


class EagerRows(Dataset):
    def __init__(self, path):
        self.connection = sqlite3.connect(path)  # opened in the main process

    def __len__(self):
        return 20

    def __getitem__(self, index):
        row = self.connection.execute(
            "SELECT value FROM data WHERE id = ?", (index,)).fetchone()
        return torch.tensor(row[0])


loader = DataLoader(EagerRows("rows.db"), batch_size=5, num_workers=2,
                    multiprocessing_context="spawn")
next(iter(loader))

# %% handle-eager-checks tags=["remove-cell"]
# fork copies the process instead of pickling: the eager dataset starts
# there, sharing the main process's connection (not safe, though it can work)
fork = DataLoader(EagerRows("rows.db"), batch_size=5, num_workers=2,
                  multiprocessing_context="fork")
assert sum(x.sum().item() for x in fork) == 190
try:
    pickle.dumps(sqlite3.connect("rows.db"))
except TypeError:
    pass
else:
    raise AssertionError("a sqlite3 connection pickled")

# %% handle-lazy
script = """\
import multiprocessing
import os
import sqlite3
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    \"\"\"Row i of a SQLite table; each process opens its own connection\"\"\"

    def __init__(self, path):
        self.path = path  # only the path: it pickles
        self.connection = None
        self.pid = None  # the process that opened the connection

    def __len__(self):
        return 20

    def __getitem__(self, index):
        if self.pid != os.getpid():  # first use in this process
            self.connection = sqlite3.connect(self.path)
            self.pid = os.getpid()
            with open("connections.log", "a") as log:
                print(multiprocessing.current_process().name, file=log)
        row = self.connection.execute(
            "SELECT value FROM data WHERE id = ?", (index,)).fetchone()
        return torch.tensor(row[0])

    def __getstate__(self):  # what spawn sends to a worker: no connection
        return {"path": self.path, "connection": None, "pid": None}


def main():
    dataset = Rows("rows.db")
    print("dataset[0] in the main process:", dataset[0].item())
    loader = DataLoader(dataset, batch_size=5, num_workers=2,
                        multiprocessing_context=sys.argv[1])
    print(sys.argv[1], "sum", sum(x.sum().item() for x in loader))


if __name__ == "__main__":
    main()
"""
Path("train.py").write_text(script)
opened, printed = {}, {}
for method in ("fork", "spawn"):
    Path("connections.log").write_text("")
    returncode, printed[method], err = run("train.py", method)
    assert returncode == 0, err
    print(printed[method], end="")
    names = Path("connections.log").read_text().split()
    opened[method] = names[:1] + sorted(names[1:])  # the workers in any order
    print("  connections opened by:", opened[method])

# %% handle-lazy-checks tags=["remove-cell"]
assert "Traceback" not in err
for method, prefix in (("fork", "ForkProcess"), ("spawn", "SpawnProcess")):
    # one connection in the main process (dataset[0]), one in each worker
    assert opened[method] == ["MainProcess", f"{prefix}-1", f"{prefix}-2"]
    assert printed[method].splitlines() == [
        "dataset[0] in the main process: 0", f"{method} sum 190"]

# %% hogwild
script = """\
import torch
import torch.multiprocessing as mp
from torch import nn


def train(model, steps):  # runs in each process
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)  # its own
    x = torch.ones(1, 1)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (model(x) - 3).pow(2).mean()  # trains the weight towards 3
        loss.backward()
        optimizer.step()  # writes into the weight, without a lock


def main(method, share):
    model = nn.Linear(1, 1, bias=False)
    nn.init.zeros_(model.weight)
    if share:
        model.share_memory()  # the parameters move to shared memory
    context = mp.get_context(method)
    workers = [context.Process(target=train, args=(model, 20))
               for _ in range(2)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()  # wait for both
    weight = model.weight.item()
    print(f"{method}, share_memory: {share}: weight was shared:"
          f" {model.weight.is_shared()}, the parent sees the training:"
          f" {weight > 2}")


if __name__ == "__main__":  # needed: spawn imports this file again
    main("fork", share=True)
    main("fork", share=False)
    main("spawn", share=False)
"""
Path("hogwild.py").write_text(script)
returncode, out, err = run("hogwild.py")
assert returncode == 0, err
print(out, end="")

# %% hogwild-checks tags=["remove-cell"]
hogwild = out.splitlines()
assert hogwild[0] == ("fork, share_memory: True: weight was"
    " shared: True, the parent sees the training: True")
# forked without share_memory: each child trained its own copy
assert hogwild[1] == ("fork, share_memory: False: weight was"
    " shared: False, the parent sees the training: False")
# spawn pickles the model, which moves its tensors to shared memory anyway
assert hogwild[2] == ("spawn, share_memory: False: weight was"
    " shared: True, the parent sees the training: True")
