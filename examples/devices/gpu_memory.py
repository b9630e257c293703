# %% [markdown]
# What keeps GPU memory in use: live tensors, and graphs kept alive by tensors
# such as an accumulated loss. What empty_cache() does and does not release

# %% [markdown] lang="zh"
# 是什么在占用显存：仍然存活的张量，以及被某些张量（例如累加起来的 loss）
# 留住的计算图。`empty_cache()` 能释放什么、不能释放什么

# %% setup
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
criterion = nn.MSELoss()


def graph_size(loss):
    """Nodes of the graph behind `loss` and bytes of the tensors it saved \
for backward"""
    seen, saved, stack = set(), {}, [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
        for name in dir(node):
            if name.startswith("_saved_"):
                value = getattr(node, name)
                if isinstance(value, torch.Tensor):
                    saved[value.data_ptr()] = value.nbytes
    return len(seen), sum(saved.values())


# %% accumulate-tensor
total_loss = 0
sizes = []
for _ in range(3):
    x = torch.randn(64, 4, device=device)
    y = torch.randn(64, 1, device=device)
    loss = criterion(model(x), y)
    total_loss += loss  # wrong: keeps this step's graph alive
    sizes.append(graph_size(total_loss))
    print(type(total_loss).__name__, total_loss.grad_fn.name(), sizes[-1])
assert total_loss.grad_fn is not None

# %% accumulate-item
total_loss = 0.0
for _ in range(3):
    x = torch.randn(64, 4, device=device)
    y = torch.randn(64, 1, device=device)
    loss = criterion(model(x), y)
    total_loss += loss.item()  # right: a Python float, no graph
print(type(total_loss).__name__, total_loss)

# %% float-warns holds=">=2.8" claim="`float(loss)` on a tensor that requires grad warns you to call `tensor.detach()` first"
import warnings

total_loss = 0.0
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    total_loss += float(loss)  # a float too, but loss requires grad: a warning
print(type(total_loss).__name__)
print(caught[0].category.__name__, caught[0].message)

# %% inference-no-grad
with torch.no_grad():
    loss = criterion(model(x), y)
print(loss.grad_fn, loss.requires_grad)

# %% allocated tags=["requires-cuda"]
start = torch.cuda.memory_allocated()
block = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")  # 64 MiB
print(torch.cuda.memory_allocated() - start, block.nbytes)
assert torch.cuda.memory_allocated() - start == block.nbytes
assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()

# %% del-and-empty-cache tags=["requires-cuda"]
reserved = torch.cuda.memory_reserved()
del block  # back to PyTorch's cache: allocated drops, reserved does not
print(
    torch.cuda.memory_allocated() - start,
    torch.cuda.memory_reserved() - reserved
)
assert torch.cuda.memory_allocated() == start
assert torch.cuda.memory_reserved() == reserved
# reuses the cache
block = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")
assert torch.cuda.memory_reserved() == reserved
del block
torch.cuda.empty_cache()  # now the cached block goes back to the driver
print(reserved - torch.cuda.memory_reserved())
assert torch.cuda.memory_reserved() <= reserved - 64 * 2**20
free, total = torch.cuda.mem_get_info()  # the driver's count, for every process
assert 0 < free <= total

# %% second-reference tags=["requires-cuda"]
before = torch.cuda.memory_allocated()
z = torch.ones(2**20, device="cuda")
alias = z  # a second name for the same tensor
del z
# alias still holds it
assert torch.cuda.memory_allocated() == before + alias.nbytes
del alias
assert torch.cuda.memory_allocated() == before  # last reference gone: freed

# %% empty-cache-keeps-live tags=["requires-cuda"]
z = torch.ones(2**20, device="cuda")
allocated = torch.cuda.memory_allocated()
torch.cuda.empty_cache()  # does nothing to tensors that are still referenced
assert torch.cuda.memory_allocated() == allocated and z.sum().item() == 2**20
del z

# %% peak-and-summary tags=["requires-cuda"]
torch.cuda.reset_peak_memory_stats()
z = torch.empty(2**20, device="cuda")  # 4 MiB of float32
del z
print(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
assert torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated() \
    >= 4 * 2**20
print(torch.cuda.memory_summary(abbreviated=True))

# %% model-cpu tags=["requires-cuda"]
before = torch.cuda.memory_allocated()
gpu_model = nn.Linear(1024, 1024).to("cuda")
assert torch.cuda.memory_allocated() > before
# moves gpu_model itself: .cpu() is in place for modules
model_cpu = gpu_model.cpu()
assert model_cpu is gpu_model
assert all(p.device.type == "cpu" for p in gpu_model.parameters())
assert torch.cuda.memory_allocated() == before  # its GPU memory was freed

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
(nodes_1, bytes_1), (nodes_2, bytes_2), (nodes_3, bytes_3) = sizes
assert nodes_1 < nodes_2 < nodes_3 and nodes_3 - nodes_2 == nodes_2 - nodes_1
assert 0 < bytes_1 < bytes_2 < bytes_3 \
    and bytes_3 - bytes_2 == bytes_2 - bytes_1
assert loss.grad_fn is None and not loss.requires_grad  # under no_grad
x = torch.randn(64, 4, device=device)
y = torch.randn(64, 1, device=device)
loss = criterion(model(x), y)
assert loss.grad_fn is not None
assert isinstance(total_loss, float)  # float(loss) version
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert isinstance(loss.item(), float)
assert not caught  # .item() is silent
kept = 0
kept += loss.detach()  # a tensor without a graph
assert isinstance(kept, torch.Tensor) and kept.grad_fn is None
losses = [criterion(model(x), y) for _ in range(2)]
# a list keeps every graph
assert all(item.grad_fn is not None for item in losses)
assert all(isinstance(item.item(), float) for item in losses)
layer = nn.Linear(2, 2)
assert layer.cpu() is layer  # Module.cpu() is in place and returns the module

# %% leak-chain
total_loss = 0
for step in range(3):
    x = torch.randn(64, 4, device=device)
    y = torch.randn(64, 1, device=device)
    loss = criterion(model(x), y)
    total_loss += loss  # wrong: keeps this step's graph alive
print(total_loss.requires_grad, total_loss.grad_fn.name())
# walk back along the additions: each one holds the total before it
node = total_loss.grad_fn
while node is not None and node.name() == "AddBackward0":
    print(node.name(), "<-", [n.name() for n, _ in node.next_functions if n])
    node = node.next_functions[0][0]

# %% leak-chain-checks tags=["remove-cell"]
def count(grad_fn, name):
    # how many nodes of that name the graph behind grad_fn holds
    seen, stack = set(), [grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return sum(node.name() == name for node in seen)


# one addition and one whole loss graph per step, all reachable from total_loss
assert total_loss.requires_grad and total_loss.grad_fn.name() == "AddBackward0"
assert count(total_loss.grad_fn, "AddBackward0") == 3
assert count(total_loss.grad_fn, "MseLossBackward0") == 3
total_loss += criterion(model(x), y)
assert count(total_loss.grad_fn, "MseLossBackward0") == 4  # and one more per step

# %% leak-fixes
total_loss = 0.0
kept = torch.zeros((), device=device)
losses, outputs = [], []
for step in range(3):
    x = torch.randn(64, 4, device=device)
    y = torch.randn(64, 1, device=device)
    output = model(x)
    loss = criterion(output, y)
    total_loss += loss.item()  # a Python float
    kept += loss.detach()  # a tensor, without the graph
    losses.append(loss.item())  # a list of floats for logging
    outputs.append(output.detach())  # predictions kept for metrics
print(type(total_loss).__name__, round(total_loss, 4))
print(kept.requires_grad, kept.grad_fn, round(kept.item(), 4))
print(outputs[0].requires_grad, outputs[0].grad_fn)

# %% leak-fixes-checks tags=["remove-cell"]
assert isinstance(total_loss, float) and all(isinstance(v, float) for v in losses)
assert not kept.requires_grad and kept.grad_fn is None
assert abs(kept.item() - total_loss) < 1e-5 and abs(sum(losses) - total_loss) < 1e-9
assert all(o.grad_fn is None and not o.requires_grad for o in outputs)
# without detach(), each kept output holds its step's graph and activations
kept_outputs = [model(x) for _ in range(2)]
assert all(o.grad_fn is not None and graph_size(o)[1] > 0 for o in kept_outputs)
assert kept_outputs[0].grad_fn is not kept_outputs[1].grad_fn

# %% float-warns-checks tags=["remove-cell"] holds=">=2.8" claim="`float()` of a tensor that requires grad emits a `UserWarning` that names `requires_grad=True`"
import warnings

w = torch.ones(1, requires_grad=True)
torch.set_warn_always(True)  # torch warns once per process: the page's cell had its warning
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    float(w * 2)
torch.set_warn_always(False)
assert len(caught) == 1 and caught[0].category is UserWarning
assert "Converting a tensor with requires_grad=True to a scalar" in str(caught[0].message)

# %% memory-fraction-guard
def cap_gpu_memory(fraction):
    """Cap this process's CUDA caching allocator; False where there is no GPU"""
    if not torch.cuda.is_available():
        return False  # the call would raise without a GPU
    torch.cuda.set_per_process_memory_fraction(fraction)
    return True


print(device, cap_gpu_memory(0.5))

# %% memory-fraction-guard-checks tags=["remove-cell"]
import inspect

assert cap_gpu_memory(1.0) == torch.cuda.is_available()
# the docstring: it limits the caching allocator, as a share of the total
doc = inspect.getdoc(torch.cuda.set_per_process_memory_fraction)
assert "caching allocator" in doc and "total" in doc
assert "Range: 0~1" in doc and "fraction(float)" in doc
assert "device" in inspect.signature(torch.cuda.set_per_process_memory_fraction).parameters
assert "out of" in doc and "memory error" in doc  # past the cap: an OOM error
if not torch.cuda.is_available():
    try:
        torch.cuda.set_per_process_memory_fraction(0.5)
    except (AssertionError, RuntimeError):
        pass  # a CPU build, or no driver: it needs CUDA
    else:
        raise AssertionError("set_per_process_memory_fraction ran without a GPU")

# %% memory-fraction-oom tags=["requires-cuda"]
torch.cuda.empty_cache()
MiB = 2**20
reserved = torch.cuda.memory_reserved()
free, total = torch.cuda.mem_get_info()
# allow what the cache holds now, plus 256 MiB
torch.cuda.set_per_process_memory_fraction((reserved + 256 * MiB) / total)
assert torch.cuda.memory_reserved() == reserved  # setting it reserves nothing
small = torch.empty(128 * MiB, dtype=torch.uint8, device="cuda")  # fits
try:
    big = torch.empty(512 * MiB, dtype=torch.uint8, device="cuda")
except torch.cuda.OutOfMemoryError as error:
    print(type(error).__name__)
    refused = True
else:
    refused = False
print(refused, free > 512 * MiB)  # refused, though the GPU had room
assert refused and free > 512 * MiB
del small
torch.cuda.set_per_process_memory_fraction(1.0)  # back to no cap
