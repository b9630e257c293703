# %% [markdown]
# Errors of the training loop: checkpoints, data loading, modules, targets and devices

# %% setup
import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

# %% module-prefix tags=["raises-exception"]
model = nn.Linear(2, 1)
wrapped = nn.DataParallel(model)  # also DistributedDataParallel, torch.compile
torch.save(wrapped.state_dict(), "checkpoint.pt")
nn.Linear(2, 1).load_state_dict(torch.load("checkpoint.pt"))

# %% module-prefix-fix
state = torch.load("checkpoint.pt")
print(list(state))
fresh = nn.Linear(2, 1)
fresh.load_state_dict({key.removeprefix("module."): value for key, value in state.items()})
torch.save(wrapped.module.state_dict(), "checkpoint.pt")  # better: save the inner model
print(list(torch.load("checkpoint.pt")))

# %% module-prefix-fix-checks tags=["remove-cell"]
# on a GPU machine DataParallel moves `model` to cuda:0, and the checkpoint holds CUDA tensors
assert torch.equal(fresh.weight, model.weight.cpu()) and list(torch.load("checkpoint.pt")) == ["weight", "bias"]

# %% size-mismatch tags=["raises-exception"]
torch.save(nn.Linear(2, 4).state_dict(), "checkpoint.pt")  # trained with 4 outputs
nn.Linear(2, 3).load_state_dict(torch.load("checkpoint.pt"))  # rebuilt with 3

# %% size-mismatch-fix
state = torch.load("checkpoint.pt")
print({key: tuple(value.shape) for key, value in state.items()})  # the shapes it was trained with
model = nn.Linear(2, state["weight"].shape[0])
model.load_state_dict(state)

# %% size-mismatch-fix-checks tags=["remove-cell"]
assert model.out_features == 4

# %% weights-only tags=["raises-exception"]
class Config:
    def __init__(self, hidden):
        self.hidden = hidden


torch.save({"config": Config(hidden=8), "state": model.state_dict()}, "checkpoint.pt")
torch.load("checkpoint.pt")  # weights_only=True by default since torch 2.6

# %% weights-only-fix
torch.serialization.add_safe_globals([Config])  # trust this one class
checkpoint = torch.load("checkpoint.pt")
print(checkpoint["config"].hidden)
# torch.load("checkpoint.pt", weights_only=False)  # loads anything: only files you trust

# %% weights-only-fix-checks tags=["remove-cell"]
assert isinstance(checkpoint["config"], Config) and torch.load("checkpoint.pt", weights_only=False)["config"].hidden == 8

# %% stack-sizes tags=["raises-exception"]
sentences = [torch.tensor([1, 2, 3]), torch.tensor([4, 5])]
next(iter(DataLoader(sentences, batch_size=2)))

# %% stack-sizes-fix
from torch.nn.utils.rnn import pad_sequence


def pad(batch):
    return pad_sequence(batch, batch_first=True), torch.tensor([len(s) for s in batch])


padded, lengths = next(iter(DataLoader(sentences, batch_size=2, collate_fn=pad)))
print(padded, lengths)

# %% stack-sizes-fix-checks tags=["remove-cell"]
assert torch.equal(padded, torch.tensor([[1, 2, 3], [4, 5, 0]])) and lengths.tolist() == [3, 2]

# %% collate-type tags=["raises-exception"]
class Sample:  # e.g. a PIL image or a custom record
    def __init__(self, value):
        self.value = value


next(iter(DataLoader([Sample(1), Sample(2)], batch_size=2)))

# %% collate-type-fix
batch = next(iter(DataLoader([Sample(1), Sample(2)], batch_size=2, collate_fn=lambda b: torch.tensor([s.value for s in b]))))
print(batch)

# %% collate-type-fix-checks tags=["remove-cell"]
assert batch.tolist() == [1, 2]

# %% batchnorm-one tags=["raises-exception"]
bn = nn.BatchNorm1d(4)
bn(torch.randn(1, 4))  # training mode, a batch of one sample

# %% batchnorm-one-fix
loader = DataLoader(torch.randn(9, 4), batch_size=4, drop_last=True)  # 4 + 4, the ninth dropped
print([batch.shape[0] for batch in loader])
bn.eval()
print(bn(torch.randn(1, 4)).shape)  # in eval mode one sample is fine

# %% batchnorm-one-fix-checks tags=["remove-cell"]
assert [b.shape[0] for b in loader] == [4, 4]

# %% empty-params tags=["raises-exception"]
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(2, 2), nn.Linear(2, 1)]  # a plain list: not registered


torch.optim.SGD(Net().parameters(), lr=0.1)

# %% empty-params-fix
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 1)])


print(sum(p.numel() for p in Net().parameters()))

# %% empty-params-fix-checks tags=["remove-cell"]
assert len(list(Net().parameters())) == 4 and sum(p.numel() for p in Net().parameters()) == 9

# %% missing-forward tags=["raises-exception"]
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def foward(self, x):  # a typo: nn.Module looks for `forward`
        return self.linear(x)


Model()(torch.ones(1, 2))

# %% missing-forward-fix
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def forward(self, x):
        return self.linear(x)


print(Model()(torch.ones(1, 2)).shape)

# %% missing-forward-fix-checks tags=["remove-cell"]
assert Model()(torch.ones(1, 2)).shape == (1, 1)

# %% target-bounds tags=["raises-exception"]
logits = torch.randn(2, 3)  # 3 classes: 0, 1, 2
F.cross_entropy(logits, torch.tensor([0, 3]))  # labels counted from 1 somewhere

# %% target-bounds-fix
labels = torch.tensor([1, 3])  # 1-based labels from a file
print(F.cross_entropy(logits, labels - 1))

# %% target-bounds-fix-checks tags=["remove-cell"]
assert (labels - 1).max() < logits.shape[1]

# %% embedding-range tags=["raises-exception"]
embedding = nn.Embedding(num_embeddings=10, embedding_dim=3)  # token ids 0 to 9
embedding(torch.tensor([3, 10]))

# %% embedding-range-fix
vocabulary_size = 11  # the largest id + 1
embedding = nn.Embedding(vocabulary_size, 3)
print(embedding(torch.tensor([3, 10])).shape)

# %% embedding-range-fix-checks tags=["remove-cell"]
assert embedding(torch.tensor([3, 10])).shape == (2, 3)

# %% device-mismatch tags=["requires-cuda", "raises-exception"]
model = nn.Linear(2, 1).to("cuda")
model(torch.ones(1, 2))  # the input is still on the CPU

# %% device-mismatch-fix
device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(2, 1).to(device)
x = torch.ones(1, 2, device=device)  # one `device` for the model and all of its inputs
print(model(x).device.type == device)

# %% device-mismatch-fix-checks tags=["remove-cell"]
assert model.weight.device == x.device

# %% oom tags=["requires-cuda", "raises-exception"]
torch.empty(1024**4, device="cuda")  # 4 TiB of float32

# %% oom-checks tags=["requires-cuda"]
try:
    torch.empty(1024**4, device="cuda")
except torch.OutOfMemoryError as error:  # a subclass of RuntimeError
    print(type(error).__name__, isinstance(error, RuntimeError))
    assert "CUDA out of memory" in str(error)

# %% fork-cuda tags=["requires-cuda", "raises-exception"]
import multiprocessing as mp

torch.ones(1, device="cuda")  # CUDA is now initialised in this process


def use_cuda(queue):
    try:
        torch.ones(1, device="cuda")
    except RuntimeError as error:
        queue.put(str(error))
    else:
        queue.put("no error")


queue = mp.get_context("fork").Queue()
child = mp.get_context("fork").Process(target=use_cuda, args=(queue,))
child.start()
child.join()
raise RuntimeError(queue.get())  # what the forked process got

# %% fork-cuda-fix
device = "cuda" if torch.cuda.is_available() else "cpu"
loader = DataLoader(torch.arange(8.0), batch_size=4, num_workers=2)  # workers see CPU tensors only
for batch in loader:
    batch = batch.to(device)  # to the GPU in the main process, where CUDA lives
print(batch.device.type == device)

# %% fork-cuda-fix-checks tags=["remove-cell"]
assert batch.device.type == device and loader.multiprocessing_context is None  # fork, Linux's default
