# %% [markdown]
# DistributedDataParallel on CPU: two processes with the
# gloo backend, DistributedSampler and set_epoch,
# gradients averaged across processes, saving from rank 0

# %% [markdown] lang="zh"
# 在 CPU 上使用 `DistributedDataParallel`：gloo 后端的两个进程、
# `DistributedSampler` 与 `set_epoch`、梯度在进程间取平均、
# 只在 rank 0 上保存

# %% worker
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def train(rank, world_size, store):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size
    )
    torch.manual_seed(rank)  # each process starts from different weights...
    model = DDP(nn.Linear(4, 1))  # ...and DDP copies rank 0's to all of them

    g = torch.Generator().manual_seed(0)  # the same dataset in every process
    x, y = torch.randn(16, 4, generator=g), torch.randn(16, 1, generator=g)
    dataset = TensorDataset(x, y)
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    start = {k: v.clone() for k, v in model.module.state_dict().items()}
    record = {"start": start, "indices": []}
    for epoch in range(2):
        sampler.set_epoch(epoch)  # a new shuffle each epoch
        record["indices"].append(list(sampler))
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()  # DDP averages the gradients of all processes here
            if "grad" not in record:  # the first step, kept for the checks
                record["batch"] = (x, y)
                record["grad"] = model.module.weight.grad.clone()
            optimizer.step()

    # one process writes the checkpoint, without the "module." prefix
    if rank == 0:
        torch.save(model.module.state_dict(), "model.pt")
    dist.barrier()  # the others wait until it is written
    record["end"] = model.module.weight.detach().clone()

    # gradient accumulation over two batches, with one all-reduce
    first, second = list(loader)[:2]
    record["acc_start"] = {
        k: v.clone() for k, v in model.module.state_dict().items()
    }
    record["acc_batches"] = (first, second)
    optimizer.zero_grad()
    with model.no_sync():  # forward and backward inside: nothing sent
        nn.functional.mse_loss(model(first[0]), first[1]).backward()
    record["no_sync"] = model.module.weight.grad.clone()  # this rank's own
    # outside: averages the gradients accumulated from both batches
    nn.functional.mse_loss(model(second[0]), second[1]).backward()
    record["synced"] = model.module.weight.grad.clone()
    torch.save(record, f"rank{rank}.pt")
    # DDP holds the process group: let it go while both processes are there,
    # then close the group (freed after it, gloo could wait forever)
    dist.barrier()
    del model, optimizer
    dist.destroy_process_group()


# %% launch
world_size = 2
# a file both processes open to find each other
store = os.path.abspath("store")
mp.start_processes(
    train, args=(world_size, store), nprocs=world_size, start_method="fork"
)
records = [torch.load(f"rank{rank}.pt") for rank in range(world_size)]
print("done:", len(records), "processes")

# %% same-start
for rank, record in enumerate(records):
    print(rank, record["start"]["weight"])

# %% same-start-checks tags=["remove-cell"]
torch.manual_seed(0)
w0 = nn.Linear(4, 1).weight.detach()
torch.manual_seed(1)
# the two seeds give different weights
assert not torch.equal(nn.Linear(4, 1).weight, w0)
for name in ("weight", "bias"):
    assert torch.equal(records[1]["start"][name], records[0]["start"][name])
assert torch.equal(records[0]["start"]["weight"], w0)  # rank 0's

# %% sampler
for rank, record in enumerate(records):
    indices = record["indices"]
    print(f"rank {rank}: epoch 0 {indices[0]}, epoch 1 {indices[1]}")

# %% sampler-checks tags=["remove-cell"]
for epoch in range(2):
    first, second = (set(record["indices"][epoch]) for record in records)
    # a split, no overlap
    assert not first & second and first | second == set(range(16))
    assert all(len(record["indices"][epoch]) == 8 for record in records)
for record in records:
    # set_epoch: a new order
    assert record["indices"][0] != record["indices"][1]

# %% averaged
local_grads = []
# each process's own gradient on its own first batch, without DDP
for record in records:
    net = nn.Linear(4, 1)
    net.load_state_dict(records[0]["start"])
    x, y = record["batch"]
    nn.functional.mse_loss(net(x), y).backward()
    local_grads.append(net.weight.grad)
mean = (local_grads[0] + local_grads[1]) / 2
print("local, rank 0:", local_grads[0])
print("local, rank 1:", local_grads[1])
print("their mean:   ", mean)
print("DDP, rank 0:  ", records[0]["grad"])
print("DDP, rank 1:  ", records[1]["grad"])

# %% averaged-checks tags=["remove-cell"]
assert not torch.allclose(local_grads[0], local_grads[1])
for record in records:
    assert torch.allclose(record["grad"], mean, atol=1e-6)
# still in step after 4 updates
assert torch.equal(records[0]["end"], records[1]["end"])
# averaged, not summed: the step of one process with both batches (8 samples)
net = nn.Linear(4, 1)
net.load_state_dict(records[0]["start"])
x8 = torch.cat([records[0]["batch"][0], records[1]["batch"][0]])
y8 = torch.cat([records[0]["batch"][1], records[1]["batch"][1]])
nn.functional.mse_loss(net(x8), y8).backward()
assert torch.allclose(net.weight.grad, records[0]["grad"], atol=1e-6)
assert not torch.equal(records[0]["end"], records[0]["start"]["weight"])

# %% no-sync
for rank, record in enumerate(records):
    print(f"rank {rank}, inside no_sync: {record['no_sync']}")
for rank, record in enumerate(records):
    print(f"rank {rank}, after the next:  {record['synced']}")

# %% no-sync-checks tags=["remove-cell"]
# inside no_sync: each rank kept its own gradient
assert not torch.allclose(records[0]["no_sync"], records[1]["no_sync"])
assert torch.equal(records[0]["synced"], records[1]["synced"])
# the synced gradient: the mean over ranks of each rank's sum of two batches
sums = []
for record in records:
    net = nn.Linear(4, 1)
    net.load_state_dict(record["acc_start"])
    for x, y in record["acc_batches"]:
        nn.functional.mse_loss(net(x), y).backward()  # accumulates
    sums.append(net.weight.grad)
assert torch.allclose(records[0]["synced"], (sums[0] + sums[1]) / 2,
                      atol=1e-6)
# the forward pass belongs inside the block, as its docstring warns
doc = " ".join(DDP.no_sync.__doc__.split())
assert "The forward pass should be included inside the context manager" in doc
assert "synchronized in the first forward-backward pass exiting" in doc
# and the no_sync gradient was the first batch's alone, on that rank
for record in records:
    net = nn.Linear(4, 1)
    net.load_state_dict(record["acc_start"])
    x, y = record["acc_batches"][0]
    nn.functional.mse_loss(net(x), y).backward()
    assert torch.allclose(record["no_sync"], net.weight.grad, atol=1e-6)

# %% saved
state = torch.load("model.pt")
print(list(state))
print(torch.equal(state["weight"], records[0]["end"]))

# %% saved-checks tags=["remove-cell"]
assert list(state) == ["weight", "bias"]  # model.module: no "module." prefix
assert torch.equal(state["weight"], records[1]["end"])
restored = nn.Linear(4, 1)
restored.load_state_dict(state)  # loads into a plain model

# %% no-set-epoch
dataset = torch.utils.data.TensorDataset(torch.arange(8))
sampler = DistributedSampler(
    dataset, num_replicas=2, rank=0, shuffle=True, seed=0
)
for epoch in range(3):
    print(f"epoch {epoch}:", list(sampler))  # set_epoch forgotten

# %% with-set-epoch
for epoch in range(3):
    sampler.set_epoch(epoch)
    print(f"epoch {epoch}:", list(sampler))

# %% set-epoch-checks tags=["remove-cell"]
fresh = DistributedSampler(
    dataset, num_replicas=2, rank=0, shuffle=True, seed=0
)
assert list(fresh) == list(fresh) == list(fresh)  # the same order every epoch
orders = []
for epoch in range(3):
    fresh.set_epoch(epoch)
    orders.append(list(fresh))
assert len({tuple(o) for o in orders}) == 3
fresh.set_epoch(0)
assert list(fresh) == orders[0]  # the order is a function of seed + epoch

# %% padding
dataset = torch.utils.data.TensorDataset(torch.arange(10))  # 10 samples
for rank in range(4):  # 4 processes: 3 samples each, 12 in all
    sampler = DistributedSampler(
        dataset, num_replicas=4, rank=rank, shuffle=False
    )
    print(f"rank {rank}: {list(sampler)}")

# %% padding-checks tags=["remove-cell"]
parts = [
    list(DistributedSampler(dataset, num_replicas=4, rank=r, shuffle=False))
    for r in range(4)
]
assert all(len(part) == 3 for part in parts)
every = sorted(i for part in parts for i in part)
assert every == sorted(list(range(10)) + [0, 1])  # 0 and 1 twice
# shuffled, the padding repeats the start of the shuffled order
shuffled = [
    list(DistributedSampler(dataset, num_replicas=4, rank=r, seed=3))
    for r in range(4)
]
positions = {}
for r, part in enumerate(shuffled):
    for k, index in enumerate(part):
        positions[r + 4 * k] = index  # its place in the global order
order = [positions[p] for p in range(12)]
assert order[10:] == order[:2] and sorted(order[:10]) == list(range(10))
# drop_last=True drops the tail instead: 8 of the 10, 2 each
dropped = [
    list(DistributedSampler(dataset, num_replicas=4, rank=r, shuffle=False,
                            drop_last=True))
    for r in range(4)
]
assert all(len(part) == 2 for part in dropped)
assert sorted(i for part in dropped for i in part) == list(range(8))

# %% padding-fix
scores = torch.rand(10)  # a per-sample metric, say each sample's accuracy
true_mean = scores.mean()
kept, counted = [], []
for rank in range(4):
    sampler = DistributedSampler(dataset, num_replicas=4, rank=rank, seed=3)
    indices = list(sampler)
    # the k-th sample of a rank is number rank + k * world in the global order
    real = [rank + k * 4 < len(dataset) for k in range(len(indices))]
    counted += scores[indices].tolist()
    kept += [s for s, r in zip(scores[indices].tolist(), real) if r]
print(f"true mean {true_mean:.4f}")
print(f"all 12:   {sum(counted) / len(counted):.4f}")
print(f"10 kept:  {sum(kept) / len(kept):.4f}")

# %% padding-fix-checks tags=["remove-cell"]
assert len(counted) == 12 and len(kept) == 10
assert abs(sum(kept) / len(kept) - true_mean.item()) < 1e-6
# what the 12 counted: the 10 and, again, the two repeated at the end
repeated = []
for rank in range(4):
    indices = list(DistributedSampler(dataset, num_replicas=4, rank=rank,
                                      seed=3))
    repeated += [i for k, i in enumerate(indices) if rank + k * 4 >= 10]
assert len(repeated) == 2
assert sorted(counted) == sorted(kept + scores[repeated].tolist())

# %% torchrun-checks tags=["remove-cell"]
# what torchrun sets is what init_process_group
# reads by default (init_method env://)
import socket

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
saved_environ = dict(os.environ)
os.environ.update(
    RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)
)
# c10d's line that the sandbox has no DNS for the peer's name: not ours
stderr = os.dup(2)
with open(os.devnull, "w") as devnull:
    os.dup2(devnull.fileno(), 2)
    try:
        dist.init_process_group("gloo")
    finally:
        os.dup2(stderr, 2)
        os.close(stderr)
assert dist.get_rank() == 0 and dist.get_world_size() == 1
dist.destroy_process_group()
os.environ.clear()
os.environ.update(saved_environ)

# %% set-device-checks tags=["remove-cell"]
# set_device(local_rank), as the page writes it: DDP's documentation asks each
# process to pick its one GPU so (or by CUDA_VISIBLE_DEVICES), the object
# collectives with NCCL use the current device, and set_device's own
# documentation discourages it for the other uses
ddp_doc = " ".join(DDP.__doc__.split())
assert "torch.cuda.set_device(i)" in ddp_doc and "CUDA_VISIBLE_DEVICES" in ddp_doc
assert "each process exclusively works on a single GPU" in ddp_doc
gather_doc = " ".join(dist.all_gather_object.__doc__.split())
assert "torch.cuda.current_device()" in gather_doc
assert "torch.cuda.set_device()" in gather_doc
set_device_doc = " ".join(torch.cuda.set_device.__doc__.split())
assert "Usage of this function is discouraged in favor of" in set_device_doc

# %% unused-setup
class Net(nn.Module):
    def __init__(self, aux=True):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        if aux:
            self.aux_head = nn.Linear(8, 1)  # registered, never called

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


# one process is enough to see the error: a group of world size 1
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-unused')}",
    rank=0, world_size=1,
)
g = torch.Generator().manual_seed(0)
x, y = torch.randn(8, 4, generator=g), torch.randn(8, 1, generator=g)


def train_steps(model, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 6))
    return losses

# %% unused-error tags=["raises-exception"]
torch.manual_seed(0)
model = DDP(Net())
train_steps(model, 2)  # step 0 goes through, the forward of step 1 raises

# %% unused-error-checks tags=["remove-cell"]
try:
    train_steps(DDP(Net()), 2)
except RuntimeError as error:
    message = str(error)
else:
    raise AssertionError("DDP trained with an unused parameter")
for words in (
    "Expected to have finished reduction in the prior iteration",
    "your module has parameters that were not used in producing loss",
    "find_unused_parameters=True",
    "making sure all `forward` function outputs participate",
    "Parameter indices which did not receive grad for rank 0: 4 5",
    "TORCH_DISTRIBUTED_DEBUG",
):
    assert words in message, words
# the first step went through: the check comes at the next forward
assert len(train_steps(DDP(Net()), 1)) == 1


# the same error when every parameter is used but the loss leaves out one of
# the outputs of forward
class TwoOutputs(Net):
    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h), self.aux_head(h)


two = DDP(TwoOutputs())
for step in range(2):
    try:
        nn.functional.mse_loss(two(x)[0], y).backward()
    except RuntimeError as error:
        assert step == 1
        assert "Expected to have finished reduction" in str(error)
        assert "not used in producing loss" in str(error)
        break
else:
    raise AssertionError("DDP accepted a loss without the second output")
del two

# %% unused-names
names = [name for name, _ in model.module.named_parameters()]
print(names)
print(names[4], names[5])  # the indices in the message

# %% unused-names-checks tags=["remove-cell"]
assert (names[4], names[5]) == ("aux_head.weight", "aux_head.bias")
assert model.module.aux_head.weight.grad is None  # no gradient ever came

# %% unused-fixes
results = {}
torch.manual_seed(0)
results["unused module removed"] = train_steps(DDP(Net(aux=False)), 3)

torch.manual_seed(0)
net = Net()
net.aux_head.requires_grad_(False)  # frozen: DDP leaves it out
results["unused module frozen"] = train_steps(DDP(net), 3)

torch.manual_seed(0)
found = DDP(Net(), find_unused_parameters=True)
results["find_unused_parameters"] = train_steps(found, 3)

torch.manual_seed(0)
static = DDP(Net(), static_graph=True)
results["static_graph"] = train_steps(static, 3)
for fix, losses in results.items():
    print(f"{fix:24} {losses}")
print(found.module.aux_head.weight.grad)

# %% unused-fixes-checks tags=["remove-cell"]
# body and head start from the same weights in every model (aux_head is made
# after them), so all the fixes train them the same way
first = list(results.values())[0]
assert all(losses == first for losses in results.values())
assert found.module.aux_head.weight.grad is None
# the aux head's output added to the loss: every parameter takes part
both = DDP(TwoOutputs())
for step in range(3):
    main, aux = both(x)
    (nn.functional.mse_loss(main, y) + nn.functional.mse_loss(aux, y)).backward()
assert both.module.aux_head.weight.grad is not None
del both
assert static.module.aux_head.weight.grad is None
# the cost: a traversal of the autograd graph in every iteration; with no
# unused parameter to find, DDP says so on stderr
ddp_doc = " ".join(DDP.__doc__.split())
assert "find_unused_parameters (bool): Traverse the autograd graph" in ddp_doc
assert "The set of used and unused parameters will not change" in ddp_doc
assert "DDP will not search graph in each iteration" in ddp_doc
assert "Activation checkpointing when model has unused parameters" in ddp_doc


# find_unused_parameters=True also trains a model whose unused parameters
# change from one iteration to the next
class Branch(Net):
    def forward(self, x):
        self.calls = getattr(self, "calls", 0) + 1
        h = torch.relu(self.body(x))
        return (self.aux_head if self.calls % 2 else self.head)(h)


torch.manual_seed(0)
branch = DDP(Branch(), find_unused_parameters=True)
assert len(train_steps(branch, 4)) == 4
del branch
# TORCH_DISTRIBUTED_DEBUG=DETAIL: the message names the parameters
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
dist.set_debug_level_from_env()
try:
    torch.manual_seed(0)
    train_steps(DDP(Net()), 2)
except RuntimeError as error:
    detail = str(error)
finally:
    del os.environ["TORCH_DISTRIBUTED_DEBUG"]
    dist.set_debug_level_from_env()
assert "did not receive grad for rank 0: aux_head.bias, aux_head.weight" \
    in detail
import tempfile

stderr = os.dup(2)
with tempfile.TemporaryFile(dir=".") as captured:
    os.dup2(captured.fileno(), 2)
    try:
        torch.manual_seed(0)
        train_steps(DDP(Net(aux=False), find_unused_parameters=True), 1)
    finally:
        os.dup2(stderr, 2)
        os.close(stderr)
    captured.seek(0)
    warning = " ".join(captured.read().decode().split())
assert "find_unused_parameters=True was specified" in warning
assert "did not find any unused parameters" in warning
assert "extra traversal of the autograd graph every iteration" in warning

# %% unused-end tags=["remove-cell"]
del model, found, static  # DDP holds the group: free the models first
dist.destroy_process_group()

# %% sync-bn-convert
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
model[1].running_mean.fill_(0.5)  # statistics learned so far
synced = nn.SyncBatchNorm.convert_sync_batchnorm(model)
print(synced)
print(synced[1].running_mean[:3])  # kept, like the weights

# %% sync-bn-convert-checks tags=["remove-cell"]
assert isinstance(synced[1], nn.SyncBatchNorm)
assert not any(type(m) is nn.BatchNorm2d for m in synced.modules())
assert synced is model  # the BatchNorm inside is replaced in place
assert torch.equal(synced[1].running_mean, torch.full((8,), 0.5))
# outside a process group, and in eval mode, it is BatchNorm
bn = nn.BatchNorm2d(8)
bn.load_state_dict({k: v for k, v in synced[1].state_dict().items()})
images = torch.randn(4, 8, 5, 5)
assert torch.allclose(nn.SyncBatchNorm.convert_sync_batchnorm(
    nn.Sequential(nn.BatchNorm2d(8)))[0](images), nn.BatchNorm2d(8)(images))
assert torch.allclose(synced[1].eval()(images), bn.eval()(images))
synced.train()

# %% sync-bn-cpu raises="ValueError: SyncBatchNorm expected input tensor to be on GPU"
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-sync-bn')}",
    rank=0, world_size=1,
)
try:
    synced(torch.randn(4, 3, 10, 10))  # training mode, on the CPU
finally:
    dist.destroy_process_group()

# %% sync-bn-cpu-checks tags=["remove-cell"]
assert not dist.is_initialized()

# %% no-group raises="ValueError: Default process group has not been initialized, please make sure to call init_process_group."
# python train.py, without torchrun: nothing called init_process_group
print("initialized:", dist.is_initialized())
model = DDP(nn.Linear(4, 1))

# %% no-group-checks tags=["remove-cell"]
assert dist.is_available() and not dist.is_initialized()
# the same error from the functions that need the default group
for call in (dist.get_rank, dist.get_world_size, dist.barrier,
             lambda: dist.all_reduce(torch.ones(2))):
    try:
        call()
    except ValueError as error:
        assert str(error) == ("Default process group has not been initialized,"
                              " please make sure to call init_process_group.")
    else:
        raise AssertionError("a collective ran without a process group")

# %% one-process
# a group of one process: the DDP code runs as it is, without torchrun
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-one')}",
    rank=0, world_size=1,
)
model = DDP(nn.Linear(4, 1))
total = torch.tensor([3.0])
dist.all_reduce(total)  # the sum over one process: the tensor itself
print(f"rank {dist.get_rank()} of {dist.get_world_size()}, sum: {total}")
del model  # DDP holds the group: free it first
dist.destroy_process_group()

# %% one-process-checks tags=["remove-cell"]
assert torch.equal(total, torch.tensor([3.0]))
assert not dist.is_initialized()
# a TCP address on this machine instead of a file: the same group
import socket

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
dist.init_process_group(
    "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1
)
assert dist.get_rank() == 0 and dist.get_world_size() == 1
dist.destroy_process_group()

# %% guard
def rank():
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank()
    return 0  # a single process without a group


def world_size():
    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    return 1


model = nn.Linear(4, 1)
if dist.is_available() and dist.is_initialized():
    model = DDP(model)  # only inside a group
print("initialized:", dist.is_initialized())
print(f"{type(model).__name__}, rank {rank()} of {world_size()}")
if rank() == 0:
    print("rank 0 saves the checkpoint")

# %% guard-checks tags=["remove-cell"]
assert not dist.is_initialized() and (rank(), world_size()) == (0, 1)
# inside a group the helpers return the group's values
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-guard')}",
    rank=0, world_size=1,
)
assert (rank(), world_size()) == (dist.get_rank(), dist.get_world_size())
dist.destroy_process_group()

# %% backends tags=["environment"]
print("NCCL available:", dist.is_nccl_available())
print("gloo available:", dist.is_gloo_available())
print("CUDA available:", torch.cuda.is_available())

# %% backends-checks tags=["remove-cell"]
assert dist.is_gloo_available()
if not dist.is_nccl_available():
    # this build's error: a torch without NCCL (macOS, Windows, CPU-only)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a line on NCCL's default timeout
        try:
            dist.init_process_group(
                "nccl", init_method=f"file://{os.path.abspath('store-nccl')}",
                rank=0, world_size=1,
            )
        except RuntimeError as error:
            assert str(error) == "Distributed package doesn't have NCCL built in"
        else:
            raise AssertionError("a torch without NCCL started an NCCL group")
    assert not dist.is_initialized()

# %% portable-backend
backend = "nccl" if torch.cuda.is_available() else "gloo"
dist.init_process_group(
    backend, init_method=f"file://{os.path.abspath('store-backend')}",
    rank=0, world_size=1,
)
print(dist.get_backend())
dist.destroy_process_group()

# %% portable-backend-checks tags=["remove-cell"]
if not torch.cuda.is_available():
    assert backend == "gloo"
    # no backend at all: init_process_group picks gloo for the CPU
    dist.init_process_group(
        init_method=f"file://{os.path.abspath('store-default')}",
        rank=0, world_size=1,
    )
    assert dist.get_backend_config() == "cpu:gloo"
    total = torch.ones(2)
    dist.all_reduce(total)
    assert torch.equal(total, torch.ones(2))
    dist.destroy_process_group()

# %% local-rank-error
import argparse
import contextlib
import io

parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--local_rank", type=int, default=0)  # underscore only
stderr = io.StringIO()
try:
    with contextlib.redirect_stderr(stderr):
        parser.parse_args(["--local-rank=0"])  # what the launcher passes
except SystemExit as error:
    status = error.code
print(stderr.getvalue(), end="")
print("exit status:", status)

# %% local-rank-error-checks tags=["remove-cell"]
assert status == 2
assert "train.py: error: unrecognized arguments: --local-rank=0" \
    in stderr.getvalue()
# argparse accepts an unambiguous prefix of an option, not another spelling
assert parser.parse_args(["--local_r=1"]).local_rank == 1

# %% local-rank-fix
parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument(
    "--local-rank", "--local_rank", type=int,
    default=int(os.environ.get("LOCAL_RANK", 0)),  # torchrun: no argument
)
for argv in (["--local-rank=1"], ["--local_rank=1"], []):
    print(argv, "->", parser.parse_args(argv).local_rank)

# %% local-rank-fix-checks tags=["remove-cell"]
assert [parser.parse_args(a).local_rank
        for a in (["--local-rank=1"], ["--local_rank=1"], [])] == [1, 1, 0]
assert "LOCAL_RANK" not in os.environ  # unset here: the default is 0
# with LOCAL_RANK set, as torchrun sets it, the default follows it
os.environ["LOCAL_RANK"] = "3"
try:
    parser = argparse.ArgumentParser(prog="train.py")
    parser.add_argument("--local-rank", "--local_rank", type=int,
                        default=int(os.environ.get("LOCAL_RANK", 0)))
    assert parser.parse_args([]).local_rank == 3
finally:
    del os.environ["LOCAL_RANK"]

# %% launchers
import socket
import subprocess
import sys

with open("show_args.py", "w") as f:
    f.write(
        "import os, sys\n"
        "names = ['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'MASTER_ADDR',"
        " 'MASTER_PORT']\n"
        "print('  arguments:', sys.argv[1:])\n"
        "print('  environment:', [n for n in names if n in os.environ])\n"
    )


def launch(module, script="show_args.py"):
    with socket.socket() as s:  # a free port for the launcher's store
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return subprocess.run(
        [sys.executable, "-m", module, "--nproc_per_node=1",
         f"--master_port={port}", script],
        capture_output=True, text=True, timeout=120,
    )


results = {}
# torchrun is python -m torch.distributed.run
for module in ("torch.distributed.launch", "torch.distributed.run"):
    results[module] = launch(module)
    print(f"{module}:\n{results[module].stdout}", end="")

# %% launchers-checks tags=["remove-cell"]
import importlib.metadata

names = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]
old, new = results["torch.distributed.launch"], results["torch.distributed.run"]
assert old.returncode == 0 and new.returncode == 0
assert old.stdout.splitlines()[0].split(":", 1)[1].strip() \
    == "['--local-rank=0']"
assert new.stdout.splitlines()[0].split(":", 1)[1].strip() == "[]"
for result in (old, new):
    assert result.stdout.splitlines()[1].split(":", 1)[1].strip() \
        == str(names)
# the launcher is deprecated, and says so
assert "torch.distributed.launch is deprecated" in old.stderr
assert "will be removed in future. Use torchrun." in " ".join(old.stderr.split())
assert "torch.distributed.launch is deprecated" not in new.stderr
# the console script torchrun runs torch.distributed.run
(torchrun,) = [e for e in importlib.metadata.entry_points(
    group="console_scripts") if e.name == "torchrun"]
assert torchrun.value == "torch.distributed.run:main"
# the error of this section, for real: a script with --local_rank only
with open("old_train.py", "w") as f:
    f.write("import argparse\n"
            "parser = argparse.ArgumentParser()\n"
            "parser.add_argument('--local_rank', type=int, default=0)\n"
            "parser.parse_args()\n")
failed = launch("torch.distributed.launch", "old_train.py")
assert failed.returncode != 0
assert "old_train.py: error: unrecognized arguments: --local-rank=0" \
    in failed.stderr
assert launch("torch.distributed.run", "old_train.py").returncode == 0

# %% spawn-env
def show(rank, world_size):  # called as fn(rank, *args)
    names = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]
    found = [n for n in names if n in os.environ]
    with open(f"env{rank}.txt", "w") as f:
        f.write(f"rank {rank} of {world_size}, environment: {found}\n")


mp.start_processes(show, args=(2,), nprocs=2, start_method="fork")
for rank in range(2):
    with open(f"env{rank}.txt") as f:
        print(f.read(), end="")

# %% spawn-env-checks tags=["remove-cell"]
import inspect

for rank in range(2):
    with open(f"env{rank}.txt") as f:
        assert f.read() == f"rank {rank} of 2, environment: []\n"
# mp.spawn is start_processes with the "spawn" start method
spawn = inspect.signature(mp.spawn).parameters
assert spawn["start_method"].default == "spawn"
assert list(spawn)[:3] == ["fn", "args", "nprocs"]

# %% map-location
# every storage in the file carries the device it was saved from
tags = []


def where(storage, location):
    tags.append(location)
    return None  # None: put it back where it was saved from


state = torch.load("model.pt", map_location=where)
print(tags, state["weight"].device)

local_rank = 0  # int(os.environ["LOCAL_RANK"]) under torchrun
if torch.cuda.is_available():
    device = torch.device("cuda", local_rank)
else:
    device = torch.device("cpu")
state = torch.load("model.pt", map_location=device)  # onto this rank's device
print(state["weight"].device)

# %% map-location-checks tags=["remove-cell"]
assert tags == ["cpu", "cpu"]  # weight and bias, saved from the CPU
assert state["weight"].device == device
# without map_location, storages go back to the device they were saved from;
# CUDA ones are tagged cuda:N
load_doc = " ".join(torch.load.__doc__.split())
assert "then moved to the device they were saved from" in load_doc
assert "``'cuda:device_id'`` (e.g. ``'cuda:2'``) for CUDA tensors" in load_doc
assert "those tensors will be loaded to GPU by default" in load_doc
# a dict maps the tags of the file to other devices
remapped = torch.load("model.pt", map_location={"cpu": "meta"})
assert remapped["weight"].device == torch.device("meta")
# a callable that returns None leaves the default: the CPU here
assert torch.load("model.pt", map_location=where)["bias"].device.type == "cpu"

# %% reentrant-setup
from torch.utils.checkpoint import checkpoint


class Tower(nn.Module):
    def __init__(self, use_reentrant):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.block = nn.Linear(4, 4)  # called twice, checkpointed each time
        self.head = nn.Linear(4, 1)
        self.use_reentrant = use_reentrant

    def forward(self, x):
        x = self.stem(x)
        for _ in range(2):
            x = checkpoint(self.block, x, use_reentrant=self.use_reentrant)
        return self.head(x)


dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-reentrant')}",
    rank=0, world_size=1,
)
g = torch.Generator().manual_seed(0)
x, y = torch.randn(8, 4, generator=g), torch.randn(8, 1, generator=g)

# %% reentrant-error raises="RuntimeError: Expected to mark a variable ready only once"
torch.manual_seed(0)
model = DDP(Tower(use_reentrant=True))
loss = nn.functional.mse_loss(model(x), y)
loss.backward()  # each recomputation of block marks its parameters ready

# %% reentrant-error-checks tags=["remove-cell"]
try:
    torch.manual_seed(0)
    train_steps(DDP(Tower(use_reentrant=True)), 1)
except RuntimeError as error:
    message = " ".join(str(error).split())
else:
    raise AssertionError("DDP ran a block checkpointed twice, reentrant")
for words in (
    "Expected to mark a variable ready only once",
    "Reused parameters in multiple reentrant backward passes",
    "Parameter at index 3",
    "has been marked as ready twice",
):
    assert words in message, words
names = [name for name, _ in Tower(True).named_parameters()]
assert names[3] == "block.bias"


# the other cause: a reentrant checkpoint with find_unused_parameters=True,
# even for a block called once
class Once(Tower):
    def forward(self, x):
        x = checkpoint(self.block, self.stem(x),
                       use_reentrant=self.use_reentrant)
        return self.head(x)


assert len(train_steps(DDP(Once(use_reentrant=True)), 2)) == 2
try:
    train_steps(DDP(Once(use_reentrant=True), find_unused_parameters=True), 1)
except RuntimeError as error:
    assert "Expected to mark a variable ready only once" in str(error)
else:
    raise AssertionError("reentrant checkpoint with find_unused_parameters")
# a weight used twice without checkpointing is fine: one gradient per step
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Linear(4, 4)

    def forward(self, x):
        return self.block(self.block(x)).sum(1, keepdim=True)


assert len(train_steps(DDP(Tied()), 2)) == 2

# %% reentrant-fixes
results = {}
torch.manual_seed(0)
model = DDP(Tower(use_reentrant=False))
results["use_reentrant=False"] = train_steps(model, 3)
torch.manual_seed(0)
static = DDP(Tower(use_reentrant=True), static_graph=True)
results["static_graph=True"] = train_steps(static, 3)
for fix, losses in results.items():
    print(f"{fix:20} {losses}")

# %% reentrant-fixes-checks tags=["remove-cell"]
# the same training as the model without DDP and without checkpointing
torch.manual_seed(0)
plain = Tower(use_reentrant=False)
plain.forward = lambda x: plain.head(plain.block(plain.block(plain.stem(x))))
expected = train_steps(plain, 3)
assert all(losses == expected for losses in results.values())
# use_reentrant=False also mends the find_unused_parameters case, and DDP
# then says on stderr that it found no unused parameter
import tempfile

stderr = os.dup(2)
with tempfile.TemporaryFile(dir=".") as captured:
    os.dup2(captured.fileno(), 2)
    try:
        found = DDP(Once(use_reentrant=False), find_unused_parameters=True)
        assert len(train_steps(found, 2)) == 2
    finally:
        os.dup2(stderr, 2)
        os.close(stderr)
ddp_doc = " ".join(DDP.__doc__.split())
assert "Activation checkpointing multiple times" in ddp_doc
assert "Activation checkpointing when model has unused parameters" in ddp_doc
checkpoint_doc = " ".join(checkpoint.__doc__.split())
assert "It is recommended that you use ``use_reentrant=False``" in checkpoint_doc

# %% reentrant-end tags=["remove-cell"]
del model, static, found  # DDP holds the group: free the models first
dist.destroy_process_group()

# %% loss-worker
def log_losses(rank, world_size, store):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size
    )
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(16, 4, generator=g), torch.randn(16, 1, generator=g)
    dataset = TensorDataset(x, y)
    sampler = DistributedSampler(dataset, shuffle=False)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    local = []
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        local.append(loss.item())  # this rank's batch only
        mean = loss.detach().clone()
        dist.all_reduce(mean, op=dist.ReduceOp.SUM)  # every rank gets the sum
        mean /= world_size
        if rank == 0:  # one line per step, not one per process
            print(f"step {step}: loss {mean.item():.4f}", flush=True)
    torch.save(local, f"local{rank}.pt")
    dist.barrier()
    del model, optimizer
    dist.destroy_process_group()


# %% loss-launch
mp.start_processes(
    log_losses, args=(2, os.path.abspath("store-loss")), nprocs=2,
    start_method="fork",
)

# %% loss-local
local = [torch.load(f"local{rank}.pt") for rank in range(2)]
for rank in range(2):
    print(f"rank {rank} alone:", [round(v, 4) for v in local[rank]])
print("their mean:  ", [round((a + b) / 2, 4) for a, b in zip(*local)])

# %% loss-local-checks tags=["remove-cell"]
assert len(local[0]) == len(local[1]) == 2
assert all(abs(a - b) > 1e-3 for a, b in zip(*local))  # the ranks differ
# the mean of the two ranks' losses is the loss of the global batch of 8,
# which is what one process with both batches would log (same weights)
torch.manual_seed(0)
net = nn.Linear(4, 1)
g = torch.Generator().manual_seed(0)
xs, ys = torch.randn(16, 4, generator=g), torch.randn(16, 1, generator=g)
parts = [list(DistributedSampler(TensorDataset(xs), num_replicas=2, rank=r,
                                 shuffle=False)) for r in range(2)]
sgd = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(2):
    rows = parts[0][4 * step:4 * step + 4] + parts[1][4 * step:4 * step + 4]
    sgd.zero_grad()
    whole = nn.functional.mse_loss(net(xs[rows]), ys[rows])
    whole.backward()
    sgd.step()
    assert abs(whole.item() - (local[0][step] + local[1][step]) / 2) < 1e-5

# %% avg-gloo-checks tags=["remove-cell"] holds=">=2.8" claim="`gloo` accepts `ReduceOp.AVG` in `all_reduce`"
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-avg')}",
    rank=0, world_size=1,
)
try:
    total = torch.tensor([3.0])
    dist.all_reduce(total, op=dist.ReduceOp.AVG)
    assert torch.equal(total, torch.tensor([3.0]))
finally:
    dist.destroy_process_group()

# %% omp-warning
def torchrun(script, nproc, **env):
    with socket.socket() as s:  # a free port for the launcher's store
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    environ = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run",
         f"--nproc_per_node={nproc}", f"--master_port={port}", script],
        capture_output=True, text=True, timeout=120, env={**environ, **env},
    )


with open("threads.py", "w") as f:
    f.write("import os\n"
            "rank, n = os.environ['RANK'], os.environ['OMP_NUM_THREADS']\n"
            "line = f'rank {rank}: OMP_NUM_THREADS={n}\\n'\n"
            "os.write(1, line.encode())  # one write: lines never mix\n")
runs = {"not set": torchrun("threads.py", 2),
        "set to 4": torchrun("threads.py", 2, OMP_NUM_THREADS="4")}
for name, run in runs.items():
    warned = "Setting OMP_NUM_THREADS environment variable" in run.stderr
    print(f"{name}: the warning {'printed' if warned else 'not printed'}")
    for line in sorted(run.stdout.splitlines()):  # the ranks print in any order
        print("  ", line)

# %% omp-warning-checks tags=["remove-cell"]
import re

unset, four = runs["not set"], runs["set to 4"]
assert unset.returncode == four.returncode == 0
for run, n in ((unset, 1), (four, 4)):
    assert sorted(re.findall(r"rank \d: OMP_NUM_THREADS=\d+", run.stdout)) == [
        f"rank {r}: OMP_NUM_THREADS={n}" for r in (0, 1)]
warning = " ".join(unset.stderr.split())
assert ("Setting OMP_NUM_THREADS environment variable for each process to be 1"
        " in default, to avoid your system being overloaded") in warning
assert "Setting OMP_NUM_THREADS" not in four.stderr
# one process per node: no warning, and the variable is left unset
one = torchrun("threads.py", 1)
assert one.returncode != 0 and "KeyError: 'OMP_NUM_THREADS'" in one.stderr
assert "Setting OMP_NUM_THREADS" not in one.stderr

# %% sigkill
import signal

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
os.kill(child.pid, signal.SIGKILL)  # what the out-of-memory killer sends
print("exit status:", child.wait(), signal.Signals(-child.returncode).name)

# %% sigkill-checks tags=["remove-cell"]
assert child.returncode == -signal.SIGKILL == -9

# %% child-failed
import re

with open("killed.py", "w") as f:
    f.write("import os, signal\n"
            "os.kill(os.getpid(), signal.SIGKILL)  # as the kernel would\n")
failed = torchrun("killed.py", 1)
print("torchrun's exit status:", failed.returncode)
for line in failed.stderr.splitlines():
    if re.match(r"\s*(rank|exitcode|traceback)\s*:", line):
        print(re.sub(r"(?i)(pid:? )\d+", r"\1N", line))  # no process ids

# %% child-failed-checks tags=["remove-cell"]
assert failed.returncode == 1
assert "torch.distributed.elastic.multiprocessing.errors.ChildFailedError" \
    in failed.stderr
assert re.search(r"exitcode\s*: -9 ", failed.stderr)
assert "Signal 9 (SIGKILL) received by PID" in failed.stderr
assert "killed.py FAILED" in failed.stderr
# torch.load(..., mmap=True) maps the file instead of reading it into memory
assert "mmap" in inspect.signature(torch.load).parameters and "mmap" in load_doc

# %% gather-worker
def evaluate(rank, world_size, store):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size
    )
    torch.manual_seed(0)
    model = nn.Linear(4, 3)  # the same weights in every process
    x = torch.randn(7, 4, generator=torch.Generator().manual_seed(0))
    sampler = DistributedSampler(TensorDataset(x), shuffle=False)
    indices = torch.tensor(list(sampler))  # 4 each: one sample is repeated
    with torch.no_grad():
        preds = model(x[indices]).argmax(dim=1)
    real = rank + torch.arange(len(indices)) * world_size < len(x)
    indices, preds = indices[real], preds[real]  # the repeats left out

    # (a) any picklable object: a list of (index, prediction) pairs
    objects = [None] * world_size
    dist.all_gather_object(objects, list(zip(indices.tolist(), preds.tolist())))

    # (b) tensors: all_gather needs the same size everywhere, so gather the
    # sizes first, pad to the largest, gather, then cut each part to its size
    size = torch.tensor([len(preds)])
    sizes = [torch.zeros_like(size) for _ in range(world_size)]
    dist.all_gather(sizes, size)
    largest = max(s.item() for s in sizes)
    padded = torch.full((largest, 2), -1, dtype=torch.long)
    padded[: len(preds)] = torch.stack([indices, preds], dim=1)
    parts = [torch.empty_like(padded) for _ in range(world_size)]
    dist.all_gather(parts, padded)
    gathered = torch.cat([p[: s.item()] for p, s in zip(parts, sizes)])

    # (c) only a metric: sum the counts, no predictions sent
    y = torch.tensor([0, 1, 2, 0, 1, 2, 0])  # labels
    counts = torch.tensor([(preds == y[indices]).sum().item(), len(preds)])
    dist.all_reduce(counts)  # [correct, seen] summed over the processes
    if rank == 0:
        torch.save({"objects": objects, "sizes": sizes, "gathered": gathered,
                    "counts": counts}, "gathered.pt")
    dist.barrier()
    dist.destroy_process_group()


# %% gather-launch
mp.start_processes(
    evaluate, args=(2, os.path.abspath("store-eval")), nprocs=2,
    start_method="fork",
)
result = torch.load("gathered.pt")
print("all_gather_object:", result["objects"])
print("sizes:", [s.item() for s in result["sizes"]])
order = result["gathered"][:, 0].argsort()
print("indices:", result["gathered"][order, 0].tolist())
print("predictions:", result["gathered"][order, 1].tolist())
correct, seen = result["counts"].tolist()
print(f"accuracy: {correct}/{seen}")

# %% gather-launch-checks tags=["remove-cell"]
torch.manual_seed(0)
whole = nn.Linear(4, 3)
x_all = torch.randn(7, 4, generator=torch.Generator().manual_seed(0))
with torch.no_grad():
    expected = whole(x_all).argmax(dim=1)
# every sample once, in one piece, as one process predicts the whole set
assert result["gathered"][order, 0].tolist() == list(range(7))
assert torch.equal(result["gathered"][order, 1], expected)
assert [s.item() for s in result["sizes"]] == [4, 3]  # uneven after the cut
pairs = sorted(p for part in result["objects"] for p in part)
assert pairs == list(enumerate(expected.tolist()))
assert [len(part) for part in result["objects"]] == [4, 3]
labels = torch.tensor([0, 1, 2, 0, 1, 2, 0])
assert (correct, seen) == ((expected == labels).sum().item(), 7)

# %% layout-group tags=["remove-cell"]
# a group of one process for the two cells below (the warning is the same with
# more); the warning is printed once per process, so the right order runs first
import warnings

dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-layout')}",
    rank=0, world_size=1,
)
x = torch.randn(2, 3, 8, 8)

# %% layout-fix
conv = nn.Conv2d(3, 8, 3).to(memory_format=torch.channels_last)  # first...
model = DDP(conv)  # ...then wrap
with warnings.catch_warnings(record=True) as fixed:
    warnings.simplefilter("always")
    model(x).sum().backward()
print("warnings:", len(fixed))
print("grad strides:", conv.weight.grad.stride())

# %% layout-fix-checks tags=["remove-cell"]
assert fixed == []
assert conv.weight.grad.stride() == conv.weight.stride() == (27, 1, 9, 3)
# a parameter that is not contiguous when DDP is built does not warn either
odd = nn.Linear(3, 4)
odd.weight = nn.Parameter(torch.randn(3, 4).t())
assert not odd.weight.is_contiguous()
odd_model = DDP(odd)
with warnings.catch_warnings(record=True) as odd_warnings:
    warnings.simplefilter("always")
    odd_model(torch.randn(2, 3)).sum().backward()
assert odd_warnings == []
del odd_model
# a 1x1 convolution: the strides differ only where the size is 1, same memory
one = nn.Conv2d(256, 256, 1).weight.detach()
last = one.to(memory_format=torch.channels_last)
assert one.stride() == (256, 1, 1, 1) and last.stride() == (256, 1, 256, 256)
assert torch.equal(torch.as_strided(last, (256 * 256,), (1,)), one.flatten())

# %% layout-warning
conv = nn.Conv2d(3, 8, 3)
model = DDP(conv)  # wrapped first...
conv.to(memory_format=torch.channels_last)  # ...then converted: too late
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(x).sum().backward()
for w in caught:
    message = str(w.message).split(" (Triggered internally")[0]
    print(f"{w.category.__name__}: {message}")

# %% layout-warning-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
text = str(caught[0].message)
assert text.startswith("Grad strides do not match bucket view strides.")
assert "This is not an error, but may impair performance." in text
assert "strides() = [27, 1, 9, 3]" in text and "strides() = [27, 9, 3, 1]" in text

# %% layout-steps
reference = nn.Conv2d(3, 8, 3)  # the same weights, without DDP
reference.load_state_dict(conv.state_dict())
right = []
for step in (1, 2):
    if step == 2:
        model.zero_grad()
        reference.zero_grad()
        model(x).sum().backward()
    reference(x).sum().backward()
    right.append(torch.allclose(conv.weight.grad, reference.weight.grad))
    print(f"step {step}: the gradient is right: {right[-1]}")

# %% layout-steps-checks tags=["remove-cell"]
assert right == [False, True]
del model
dist.destroy_process_group()

# %% rdzv-error
with socket.socket() as s:  # a port where nothing listens: node 0 is not up
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
with open("hello.py", "w") as f:
    f.write("print('hello')\n")
# node 1 of 2; is_host=false: this node never hosts the store itself
joined = subprocess.run(
    [sys.executable, "-m", "torch.distributed.run", "--nnodes=2",
     "--nproc-per-node=1", "--node-rank=1", "--rdzv-backend=c10d",
     f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=job42",
     "--rdzv-conf=is_host=false,read_timeout=2", "hello.py"],
    capture_output=True, text=True, timeout=60,
)
print("torchrun's exit status:", joined.returncode)
for line in joined.stderr.splitlines():
    if line.startswith(("torch.distributed", "The above", "node_rank")):
        print(line.replace(str(port), "PORT"))

# %% rdzv-error-checks tags=["remove-cell"] holds=">=2.13" claim="`torchrun` logs that `--node-rank` is ignored with the c10d rendezvous"
assert joined.returncode == 1 and "hello" not in joined.stdout
assert (f"torch.distributed.DistNetworkError: The client socket has timed out"
        f" after 2000ms while trying to connect to (127.0.0.1, {port})."
        ) in joined.stderr
assert ("The above exception was the direct cause of the following exception"
        in joined.stderr)
assert ("torch.distributed.elastic.rendezvous.api.RendezvousConnectionError:"
        " The connection to the C10d store has failed.") in joined.stderr
# --node-rank is ignored with the c10d rendezvous
assert ("node_rank is only used for static rdzv_backend. It will be ignored"
        " for rdzv_backend=c10d.") in joined.stderr

# %% nccl-check tags=["environment"]
import shutil

shm = shutil.disk_usage("/dev/shm")  # what NCCL uses within one machine
print(f"/dev/shm: {shm.total / 2**20:.0f} MiB, {shm.free / 2**20:.0f} MiB free")

# %% nccl-check-checks tags=["remove-cell"]
assert shm.free <= shm.total

# %% ranks
# 2 machines (nodes) with 4 GPUs each: what torchrun gives each process
nnodes, nproc_per_node = 2, 4
world_size = nnodes * nproc_per_node  # WORLD_SIZE: every process of the job
table = []
print("node  LOCAL_RANK  RANK  WORLD_SIZE")
for node_rank in range(nnodes):
    for local_rank in range(nproc_per_node):  # the GPU to use on this node
        rank = node_rank * nproc_per_node + local_rank  # unique in the job
        table.append((node_rank, local_rank, rank))
        print(f"{node_rank:>4}  {local_rank:>10}  {rank:>4}  {world_size:>10}")

# %% ranks-checks tags=["remove-cell"]
assert sorted(r for _, _, r in table) == list(range(8))
assert {lr for _, lr, _ in table} == {0, 1, 2, 3}
assert world_size == 8
# the variables torchrun's agent sets for each process
import inspect

from torch.distributed.elastic.agent.server import local_elastic_agent

agent_source = inspect.getsource(local_elastic_agent)
for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK"):
    assert f'"{name}"' in agent_source
# init_process_group can take the process's device
assert "device_id" in inspect.signature(dist.init_process_group).parameters

# %% batch-worker
def per_rank(rank, world_size, store):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size
    )
    dataset = TensorDataset(torch.arange(11))  # 11 samples
    sampler = DistributedSampler(dataset, shuffle=False)
    # per process
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    sizes = [len(x) for (x,) in loader]
    with open(f"batches{rank}.txt", "w") as f:
        f.write(f"rank {dist.get_rank()} of {dist.get_world_size()}, "
                f"LOCAL_RANK {os.environ.get('LOCAL_RANK')}: "
                f"{len(loader)} batches, sizes {sizes}\n")
    dist.destroy_process_group()


mp.start_processes(
    per_rank, args=(2, os.path.abspath("store-batch")), nprocs=2,
    start_method="fork",
)
for rank in range(2):
    with open(f"batches{rank}.txt") as f:
        print(f.read(), end="")

# %% batch-worker-checks tags=["remove-cell"]
lines = []
for rank in range(2):
    with open(f"batches{rank}.txt") as f:
        lines.append(f.read())
assert lines == [
    f"rank {r} of 2, LOCAL_RANK None: 2 batches, sizes [4, 2]\n" for r in range(2)
]
# 12 samples seen in all: the 11, and one repeated by the sampler's padding
assert 2 * (4 + 2) == 12 == -(-11 // 2) * 2

# %% uneven-worker
import contextlib
import datetime
import time

from torch.distributed.algorithms.join import Join


def uneven(rank, world_size, store, join):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size,
        timeout=datetime.timedelta(seconds=2),  # short: fail, do not hang
    )
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(rank)
    batches = torch.randn(2 + rank, 8, 4, generator=g)  # rank 1: one more
    done, error = 0, None
    try:
        with Join([model]) if join else contextlib.nullcontext():
            for x in batches:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
                done += 1
    except RuntimeError as e:
        error = str(e).split("] ", 1)[-1]  # without gloo's source path
    weight = model.module.weight.detach().clone()
    torch.save({"done": done, "error": error, "weight": weight},
               f"uneven{int(join)}-{rank}.pt")
    if join:
        dist.barrier()
        del model, optimizer
        dist.destroy_process_group()
    else:  # rank 0 stays until rank 1 gives up, as in a real job
        while not os.path.exists("uneven0-1.pt"):
            time.sleep(0.1)

# %% uneven-hang
mp.start_processes(
    uneven, args=(2, os.path.abspath("store-uneven0"), False), nprocs=2,
    start_method="fork",
)
hung = [torch.load(f"uneven0-{rank}.pt") for rank in range(2)]
for rank, record in enumerate(hung):
    print(f"rank {rank}: {record['done']} steps, error: {record['error']}")

# %% uneven-hang-checks tags=["remove-cell"]
assert [r["done"] for r in hung] == [2, 2] and hung[0]["error"] is None
assert hung[1]["error"].startswith("Timed out waiting 2000ms for recv")


# if the other rank has exited instead of waiting: Connection closed (or reset) by peer
def gone(rank, world_size, store):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size,
        timeout=datetime.timedelta(seconds=5),
    )
    dist.barrier()
    if rank == 0:
        return  # leaves without another collective
    try:
        dist.all_reduce(torch.ones(1))
    except RuntimeError as e:
        torch.save(str(e), "gone.pt")


mp.start_processes(gone, args=(2, os.path.abspath("store-gone")), nprocs=2,
                   start_method="fork")
# which of the two depends on when rank 0's socket closes
message = torch.load("gone.pt")
assert ("Connection closed by peer" in message
        or "Connection reset by peer" in message)

# %% uneven-join
mp.start_processes(
    uneven, args=(2, os.path.abspath("store-uneven1"), True), nprocs=2,
    start_method="fork",
)
joined = [torch.load(f"uneven1-{rank}.pt") for rank in range(2)]
for rank, record in enumerate(joined):
    print(f"rank {rank}: {record['done']} steps, error: {record['error']}")
print("same weights:", torch.equal(joined[0]["weight"], joined[1]["weight"]))

# %% uneven-join-checks tags=["remove-cell"]
assert [r["done"] for r in joined] == [2, 3]
assert all(r["error"] is None for r in joined)
assert torch.equal(joined[0]["weight"], joined[1]["weight"])
# the third step, shadowed by rank 0, changed the weights
assert not torch.equal(joined[0]["weight"], hung[0]["weight"])


# agreeing on a step count: all_reduce with MIN gives every rank the smallest
def agree(rank, world_size, store):
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size
    )
    n = torch.tensor([2 + rank])  # rank 0 has 2 batches, rank 1 has 3
    dist.all_reduce(n, op=dist.ReduceOp.MIN)
    torch.save(n, f"agreed{rank}.pt")
    dist.destroy_process_group()


mp.start_processes(agree, args=(2, os.path.abspath("store-agree")), nprocs=2,
                   start_method="fork")
assert [torch.load(f"agreed{r}.pt").item() for r in range(2)] == [2, 2]

# %% frozen-error raises="RuntimeError: DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient."
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-frozen')}",
    rank=0, world_size=1,
)
torch.manual_seed(0)
teacher = nn.Linear(4, 2).requires_grad_(False)  # frozen: nothing to train
model = DDP(teacher)

# %% frozen-fix
teacher.eval()  # not wrapped: it only runs forward passes
student = DDP(nn.Linear(4, 2))  # only the trained model is wrapped
x = torch.randn(8, 4, generator=torch.Generator().manual_seed(0))
with torch.no_grad():
    target = teacher(x)
loss = nn.functional.mse_loss(student(x), target)
loss.backward()
print("student has gradients:", student.module.weight.grad is not None)
print("teacher has gradients:", teacher.weight.grad is not None)

# %% frozen-fix-checks tags=["remove-cell"]
assert student.module.weight.grad is not None and teacher.weight.grad is None
# one trainable parameter is enough for DDP
partly = nn.Sequential(nn.Linear(4, 4).requires_grad_(False), nn.Linear(4, 2))
del student
DDP(partly)
dist.destroy_process_group()

# %% fsdp-worker
def shard(rank, world_size, store):
    from torch.distributed.fsdp import fully_shard  # FSDP2

    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size
    )
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer)  # each layer: its own all-gather
    fully_shard(model)  # then the root
    weight = model[0].weight
    record = {
        "type": type(weight).__name__,
        "global": tuple(weight.shape),
        "local": tuple(weight.to_local().shape),  # this rank's part
        "params": sum(p.numel() for p in model.parameters()),
        "local params": sum(p.to_local().numel() for p in model.parameters()),
    }
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(rank))
    model(x).sum().backward()  # gathers, computes, frees, reduce-scatters
    optimizer.step()  # each rank updates its own shard
    record["grad"] = type(model[0].weight.grad).__name__
    torch.save(record, f"fsdp{rank}.pt")
    dist.barrier()
    dist.destroy_process_group()

# %% fsdp-launch holds=">=2.7" claim="`fully_shard` (FSDP2) is importable from `torch.distributed.fsdp`"
mp.start_processes(
    shard, args=(2, os.path.abspath("store-fsdp")), nprocs=2,
    start_method="fork",
)
sharded = [torch.load(f"fsdp{rank}.pt") for rank in range(2)]
for rank, record in enumerate(sharded):
    print(f"rank {rank}: {record}")

# %% fsdp-launch-checks tags=["remove-cell"] holds=">=2.7" claim="With `fully_shard` on 2 processes each rank stores half of every parameter, as a `DTensor`"
for record in sharded:
    assert record["type"] == "DTensor" and record["grad"] == "DTensor"
    assert record["global"] == (16, 8) and record["local"] == (8, 8)
    assert record["params"] == 212 and record["local params"] == 106
assert sum(p.numel() for p in nn.Sequential(
    nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).parameters()) == 212

# %% layout-options-checks tags=["remove-cell"]
# how long the gradient stays wrong after converting a wrapped model depends on
# whether DDP rebuilds its buckets: never with find_unused_parameters=True
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store-layout-options')}",
    rank=0, world_size=1,
)


def layout_steps(steps, **options):
    x = torch.randn(2, 3, 8, 8)
    conv = nn.Conv2d(3, 8, 3)
    model = DDP(conv, **options)
    conv.to(memory_format=torch.channels_last)
    reference = nn.Conv2d(3, 8, 3)
    reference.load_state_dict(conv.state_dict())
    right = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            model.zero_grad()
            reference.zero_grad()
            model(x).sum().backward()
            reference(x).sum().backward()
            right.append(torch.allclose(conv.weight.grad, reference.weight.grad))
    return right


assert layout_steps(4) == [False, True, True, True]
assert layout_steps(4, find_unused_parameters=True) == [False] * 4
assert layout_steps(4, static_graph=True) == [False, False, True, True]
dist.destroy_process_group()

# %% env-rank raises="ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set"
for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"):
    os.environ.pop(name, None)  # as in a plain `python train.py`
dist.init_process_group("gloo")  # reads the four variables

# %% env-rank-checks tags=["remove-cell"]
try:  # with rank= given, the next variable is missing
    dist.init_process_group("gloo", rank=0)
except ValueError as error:
    message = str(error)
else:
    raise AssertionError("env:// without WORLD_SIZE should fail")
assert message == (
    "Error initializing torch.distributed using env:// rendezvous: "
    "environment variable WORLD_SIZE expected, but not set"
)
assert not dist.is_initialized()

# %% env-fix
import socket

with socket.socket() as s:  # a free port on this machine
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(  # what torchrun sets, for one process
    RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)
)
dist.init_process_group("gloo")
print(dist.get_rank(), dist.get_world_size())
dist.destroy_process_group()
for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
    del os.environ[name]

# %% env-fix-checks tags=["remove-cell"]
assert not dist.is_initialized() and "RANK" not in os.environ
# without the variables: rank, world_size and a tcp:// address
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
dist.init_process_group(
    "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1
)
assert dist.get_world_size() == 1
dist.destroy_process_group()
