# %% [markdown]
# Reproducibility: seed every generator you use, give
# DataLoaders their own generator, and turn on deterministic
# algorithms to find ops that may differ from run to run

# %% [markdown] lang="zh"
# 可复现性：给用到的每个随机数生成器设种子，为 `DataLoader` 单独传入
# `generator`，并开启确定性算法，找出每次运行结果可能不同的运算

# %% seed-everything
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator and every GPU's


def draw():
    return random.random(), np.random.rand(), torch.rand(1).item()


seed_everything(0)
first = draw()
seed_everything(0)
second = draw()
print(first)
print(second)

# %% seed-everything-checks tags=["remove-cell"]
assert first == second
assert torch.initial_seed() == 0

# %% torch-only
torch.manual_seed(0)
print(torch.rand(1).item(), np.random.rand(), random.random())
torch.manual_seed(0)
print(torch.rand(1).item(), np.random.rand(), random.random())

# %% torch-only-checks tags=["remove-cell"]
torch.manual_seed(0)
t1, n1, r1 = torch.rand(1).item(), np.random.rand(), random.random()
torch.manual_seed(0)
t2, n2, r2 = torch.rand(1).item(), np.random.rand(), random.random()
assert t1 == t2 and n1 != n2 and r1 != r2  # torch's seed reaches only torch

# %% code-path
torch.manual_seed(0)
print(torch.randn(8))
torch.manual_seed(0)
print(torch.randn(16)[:8])  # the same seed, another code path

# %% code-path-checks tags=["remove-cell"]
torch.manual_seed(0)
short = torch.randn(8)
torch.manual_seed(0)
assert torch.equal(torch.randn(15)[:8], short)  # below 16: one at a time
torch.manual_seed(0)
assert not torch.equal(torch.randn(16)[:8], short)  # 16 and up: vectorised

# %% global-order
dataset = TensorDataset(torch.arange(8))


def first_batch(loader):
    return next(iter(loader))[0].tolist()


torch.manual_seed(0)
loader = DataLoader(dataset, batch_size=4, shuffle=True)
print(first_batch(loader))

torch.manual_seed(0)
model = torch.nn.Linear(4, 4)  # one more draw from the global generator
loader = DataLoader(dataset, batch_size=4, shuffle=True)
print(first_batch(loader))

# %% global-order-checks tags=["remove-cell"]
torch.manual_seed(0)
a = first_batch(DataLoader(dataset, batch_size=4, shuffle=True))
torch.manual_seed(0)
torch.nn.Linear(4, 4)
b = first_batch(DataLoader(dataset, batch_size=4, shuffle=True))
assert a != b  # the model's initialisation moved the shuffling

# %% own-generator
orders = []
for extra_draws in [0, 1, 5]:
    torch.rand(extra_draws)  # whatever the rest of the program draws
    generator = torch.Generator().manual_seed(0)
    loader = DataLoader(
        dataset, batch_size=4, shuffle=True, generator=generator
    )
    orders.append(first_batch(loader))
print(orders)

# %% own-generator-checks tags=["remove-cell"]
assert orders[0] == orders[1] == orders[2]

# %% workers
class Noisy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        info = torch.utils.data.get_worker_info()
        return info.id, torch.rand(1).item(), np.random.rand(), random.random()


def worker_draws(seed):
    loader = DataLoader(Noisy(), batch_size=None, num_workers=2,
                        generator=torch.Generator().manual_seed(seed))
    return [(w, round(t, 4), round(n, 4), round(r, 4)) for w, t, n, r in loader]


for row in worker_draws(seed=0):
    print(row)

# %% workers-checks tags=["remove-cell"]
rows = worker_draws(seed=0)
by_worker = {w: [(t, n, r) for ww, t, n, r in rows if ww == w] for w in (0, 1)}
# torch, NumPy and random differ per worker
assert by_worker[0][0] != by_worker[1][0]
assert all(a != b for a, b in zip(by_worker[0][0], by_worker[1][0]))
# the same generator seed: the same numbers again
assert worker_draws(seed=0) == rows
assert worker_draws(seed=1) != rows


class Seeds(Dataset):  # one sample per worker: what the worker was seeded with
    def __len__(self):
        return 2

    def __getitem__(self, index):
        info = torch.utils.data.get_worker_info()
        first = random.random()  # the worker's first draw
        return info.seed, torch.initial_seed(), first, \
            random.Random(info.seed).random()


seeds = list(DataLoader(Seeds(), batch_size=None, num_workers=2,
                        generator=torch.Generator().manual_seed(0)))
assert seeds[1][0] == seeds[0][0] + 1  # base seed + worker id
for seed, torch_seed, first, expected in seeds:
    # torch and random seeded with it
    assert torch_seed == seed and first == expected

# %% worker-rng
class Augment(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)  # made once, in the main process

    def __len__(self):
        return 4

    def __getitem__(self, index):
        worker = torch.utils.data.get_worker_info().id
        return worker, round(float(self.rng.random()), 4)


def augment_draws(worker_init_fn=None):
    loader = DataLoader(Augment(), batch_size=None, num_workers=2,
                        worker_init_fn=worker_init_fn,
                        generator=torch.Generator().manual_seed(0))
    return [tuple(row) for row in loader]


print(augment_draws())  # (worker, number): each worker has a copy

# %% worker-rng-checks tags=["remove-cell"]
copied = augment_draws()
by_worker = {w: [v for ww, v in copied if ww == w] for w in (0, 1)}
assert by_worker[0] == by_worker[1]  # the same numbers in both workers
# they are the numbers of the generator made in __init__, from its start
fresh = np.random.default_rng(0)
assert by_worker[0] == [round(float(fresh.random()), 4) for _ in range(2)]
# and again next epoch: each epoch's workers copy the main process's rng
assert augment_draws() == copied

# %% worker-rng-fix
def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    # torch.initial_seed() in a worker: its own seed, base seed + worker id
    info.dataset.rng = np.random.default_rng(torch.initial_seed())


print(augment_draws(worker_init_fn=seed_worker))

# %% worker-rng-fix-checks tags=["remove-cell"]
fixed = augment_draws(worker_init_fn=seed_worker)
by_worker = {w: [v for ww, v in fixed if ww == w] for w in (0, 1)}
assert by_worker[0] != by_worker[1]
assert augment_draws(worker_init_fn=seed_worker) == fixed  # reproducible


def seed_from_info(worker_id):  # the same seed, from get_worker_info()
    info = torch.utils.data.get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)


assert augment_draws(worker_init_fn=seed_from_info) == fixed

# %% deterministic tags=["raises-exception"]
torch.use_deterministic_algorithms(True)
x = torch.zeros(5)
x.put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))  # which write wins?

# %% deterministic-checks tags=["remove-cell"]
try:
    torch.zeros(5).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
except RuntimeError as error:
    assert "put_ does not have a deterministic implementation" in str(error)
    assert "warn_only=True" in str(error)
else:
    raise AssertionError("put_ should raise in deterministic mode")
# accumulate=True sums both writes: deterministic on the CPU, allowed
assert torch.zeros(5).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]),
                           accumulate=True)[0] == 3.0

# %% warn-only
torch.use_deterministic_algorithms(True, warn_only=True)
x.put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
print(x)

# %% warn-only-checks tags=["remove-cell"]
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x.put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
assert "put_ does not have a deterministic implementation" \
    in str(caught[0].message)

# %% empty-filled
torch.use_deterministic_algorithms(True)
print(torch.empty(3))  # uninitialised memory is filled, not left as it was
torch.use_deterministic_algorithms(False)

# %% empty-filled-checks tags=["remove-cell"]
torch.use_deterministic_algorithms(True)
assert torch.isnan(torch.empty(3)).all()
assert (torch.empty(3, dtype=torch.long) == torch.iinfo(torch.long).max).all()
# the switch, on by default
assert torch.utils.deterministic.fill_uninitialized_memory
torch.use_deterministic_algorithms(False)
assert not torch.are_deterministic_algorithms_enabled()
assert not torch.backends.cudnn.deterministic \
    and not torch.backends.cudnn.benchmark

# %% cuda tags=["requires-cuda"]
import os

device = torch.device("cuda")


def twice(op):
    """Whether two runs of op give the same result, or the error it raises."""
    try:
        return "same" if torch.equal(op(), op()) else "different"
    except RuntimeError as error:
        return "RuntimeError: " + str(error).split(",")[0][:70]


torch.manual_seed(0)
on_gpu = torch.rand(3, device=device)
torch.manual_seed(0)
seeded = torch.equal(on_gpu, torch.rand(3, device=device))
print("torch.manual_seed reaches the GPU:", seeded)
torch.manual_seed(0)
same_as_cpu = torch.equal(on_gpu.cpu(), torch.rand(3))
print("the same seed gives the CPU's numbers:", same_as_cpu)

values = torch.rand(1_000_000, device=device)
index = torch.randint(0, 10, (1_000_000,), device=device)
a, b = torch.rand(256, 256, device=device), torch.rand(256, 256, device=device)
ops = {
    "index_add_": lambda: torch.zeros(10, device=device).index_add_(
        0, index, values
    ),
    "histc": lambda: torch.histc(values, bins=10),
    "a @ b": lambda: a @ b,
}
print("CUBLAS_WORKSPACE_CONFIG:", os.environ.get("CUBLAS_WORKSPACE_CONFIG"))
for mode in [False, True]:
    torch.use_deterministic_algorithms(mode)
    for name, op in ops.items():
        print(f"deterministic={mode}  {name:10} {twice(op)}")
torch.use_deterministic_algorithms(False)
assert seeded and not same_as_cpu

# %% cuda-checks tags=["remove-cell"] holds=">=2.10" claim="Deterministic mode needs no `CUBLAS_WORKSPACE_CONFIG` for cuBLAS matrix products"
# Up to torch 2.9 a cuBLAS matrix product in deterministic mode needed
# CUBLAS_WORKSPACE_CONFIG; from 2.10 on torch no longer documents (or checks) it
assert "CUBLAS_WORKSPACE_CONFIG" not in torch.use_deterministic_algorithms.__doc__

# %% float-order
big = torch.tensor(1e8)  # float32
print("(1e8 + 1) - 1e8 =", ((big + 1) - big).item())
print("(1e8 - 1e8) + 1 =", ((big - big) + 1).item())
print("float32 eps:", torch.finfo(torch.float32).eps)

# %% float-order-checks tags=["remove-cell"]
assert ((big + 1) - big).item() == 0.0 and ((big - big) + 1).item() == 1.0
assert torch.finfo(torch.float32).eps == 2**-23

# %% sum-orders
torch.manual_seed(0)
x = torch.rand(1_000_000)
reference = x.double().sum().item()  # float64
sums = {
    "x.sum()": x.sum().item(),
    "rows, then total": x.view(1000, 1000).sum(1).sum().item(),
    "columns, then total": x.view(1000, 1000).sum(0).sum().item(),
    "one after another": float(np.cumsum(x.numpy())[-1]),
    "sorted, one after another": float(np.cumsum(np.sort(x.numpy()))[-1]),
}
print(f"{'float64 reference':26} {reference:.6f}")
for name, value in sums.items():
    error = abs(value - reference) / reference
    print(f"{name:26} {value:.6f}  relative error {error:.0e}")

# %% sum-orders-checks tags=["remove-cell"]
values = list(sums.values())
assert len(set(values)) > 1  # the order changes the result
# blocked and pairwise sums stay within a few eps of the reference
for name in ["x.sum()", "rows, then total", "columns, then total"]:
    assert abs(sums[name] - reference) / reference < 1e-6, name
# a plain running sum drifts much further
assert abs(sums["one after another"] - reference) / reference > 1e-5
assert abs(sums["sorted, one after another"] - reference) / reference > 1e-6

# %% sum-orders-fix
in_float64 = x.sum(dtype=torch.float64)  # accumulate in float64
print("sum in float64:", f"{in_float64.item():.6f}")
a, b = torch.tensor(sums["x.sum()"]), torch.tensor(sums["rows, then total"])
print("torch.equal:", torch.equal(a, b))
print("torch.allclose:", torch.allclose(a, b))  # rtol=1e-5 by default

# %% sum-orders-fix-checks tags=["remove-cell"]
assert abs(in_float64.item() - reference) < 1e-6
assert not torch.equal(a, b) and torch.allclose(a, b)
