# %% [markdown]
# nn.Embedding looks up rows of its weight: the same as one-hot vectors times
# the matrix. Integer ids, the output's shape, ids out of range, padding_idx,
# pretrained vectors with from_pretrained or copy_, freezing, max_norm,
# nn.EmbeddingBag, and weight tying with the output layer of a language model

# %% [markdown] lang="zh"
# `nn.Embedding` 按 id 取出 `weight` 的行，等价于 one-hot 向量乘以权重矩阵。
# 输入必须是整数 id；输出形状；id 越界；`padding_idx`；用 `from_pretrained` 或
# `copy_` 加载预训练词向量；冻结；`max_norm`；`nn.EmbeddingBag`；以及语言模型里
# 输出层与 `nn.Embedding` 的权重共享（weight tying）

# %% lookup
import torch
import torch.nn.functional as F
from torch import nn

embedding = nn.Embedding(num_embeddings=10, embedding_dim=4)  # ids 0 to 9
print(embedding.weight.shape)
ids = torch.tensor([[1, 2, 4], [4, 3, 9]])  # 2 sequences of 3 token ids
out = embedding(ids)
print(out.shape)
print(torch.equal(out, embedding.weight[ids]))  # row 1, row 2, row 4, ...

# %% lookup-checks tags=["remove-cell"]
assert embedding.weight.shape == (10, 4) and out.shape == (2, 3, 4)
assert torch.equal(out, embedding.weight[ids])
assert torch.equal(out[0, 2], embedding.weight[4]) and torch.equal(out[0, 2], out[1, 0])
assert embedding.weight.requires_grad and out.dtype == torch.float32

# %% one-hot
one_hot = F.one_hot(ids, num_classes=10).float()  # (2, 3, 10)
print(torch.allclose(one_hot @ embedding.weight, out))
out.sum().backward()
print(embedding.weight.grad[:, 0])  # how often each id was looked up

# %% one-hot-checks tags=["remove-cell"]
assert one_hot.shape == (2, 3, 10)
assert torch.allclose(one_hot @ embedding.weight, out)
counts = torch.bincount(ids.flatten(), minlength=10).float()
assert torch.equal(embedding.weight.grad, counts[:, None].expand(10, 4))
assert embedding.weight.grad[[0, 5, 6, 7, 8]].abs().sum() == 0  # rows not looked up
assert embedding.weight.grad[4, 0] == 2  # id 4 twice: its gradients add up
# a bias-free Linear fed with one-hot vectors, its weight the transpose
linear = nn.Linear(10, 4, bias=False)
with torch.no_grad():
    linear.weight.copy_(embedding.weight.T)
assert torch.allclose(linear(one_hot), out)

# %% shapes
for shape in [(), (5,), (2, 3), (2, 3, 5)]:
    ids = torch.zeros(shape, dtype=torch.long)
    print(tuple(ids.shape), "->", tuple(embedding(ids).shape))

# %% shapes-checks tags=["remove-cell"]
for shape in [(), (5,), (2, 3), (2, 3, 5), (1, 1, 1, 1)]:
    ids = torch.zeros(shape, dtype=torch.long)
    assert embedding(ids).shape == (*shape, 4)

# %% float-ids raises="RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"
ids = torch.tensor([[1.0, 2.0, 4.0]])  # ids read into a float tensor
embedding(ids)

# %% float-ids-fix
print(embedding(ids.long()).shape)  # int64, or int32 with .int()

# %% float-ids-fix-checks tags=["remove-cell"]
assert torch.equal(embedding(ids.long()), embedding(ids.int()))
assert torch.equal(embedding(ids.long())[0], embedding.weight[[1, 2, 4]])
try:  # uint8 is refused too
    embedding(ids.to(torch.uint8))
except RuntimeError as error:
    assert "but got torch.ByteTensor instead" in str(error)
else:
    raise AssertionError("an embedding took uint8 ids")

# %% too-large raises="IndexError: index out of range in self"
embedding = nn.Embedding(10, 4)  # rows 0 to 9
embedding(torch.tensor([3, 10]))

# %% negative raises="IndexError: index out of range in self"
print(embedding.weight[-1].equal(embedding.weight[9]))  # counts from the end
embedding(torch.tensor([3, -1]))  # the layer does not

# %% negative-checks tags=["remove-cell"]
assert torch.equal(embedding.weight[-1], embedding.weight[9])
for bad in ([10], [-1], [-10], [100]):
    try:
        embedding(torch.tensor(bad))
    except IndexError as error:
        assert "index out of range in self" in str(error)
    else:
        raise AssertionError(f"the embedding took the id {bad}")

# %% vocabulary
vocab = {"<pad>": 0, "<unk>": 1}  # the special tokens first
for word in "the cat sat on the mat".split():
    vocab.setdefault(word, len(vocab))
print(vocab)
embedding = nn.Embedding(len(vocab), 4)  # ids 0 to len(vocab) - 1
ids = torch.tensor([vocab.get(word, vocab["<unk>"])
                    for word in "the dog sat".split()])
print(ids, embedding(ids).shape)

# %% vocabulary-checks tags=["remove-cell"]
assert len(vocab) == 7 and max(vocab.values()) == len(vocab) - 1
assert ids.tolist() == [2, 1, 4]  # dog is not in the vocabulary: <unk>
assert embedding.num_embeddings == max(vocab.values()) + 1

# %% padding
embedding = nn.Embedding(len(vocab), 4, padding_idx=vocab["<pad>"])
print(embedding.weight[0].detach())  # the padding row starts at zero
batch = torch.tensor([[2, 3, 4], [5, 6, 0]])  # the 2nd sentence padded with 0
optimizer = torch.optim.SGD(embedding.parameters(), lr=0.1)
embedding(batch).pow(2).sum().backward()
print(embedding.weight.grad[0])  # no gradient for the padding row
optimizer.step()
print(embedding.weight[0].detach())  # still zero after the step

# %% padding-checks tags=["remove-cell"]
assert embedding.padding_idx == 0
assert torch.equal(embedding.weight[0], torch.zeros(4))
assert torch.equal(embedding.weight.grad[0], torch.zeros(4))
assert embedding.weight.grad[[2, 3, 4, 5, 6]].abs().sum(dim=1).gt(0).all()
assert torch.equal(embedding(batch)[1, 2], torch.zeros(4))  # the pad's output
# a negative padding_idx counts from the end
assert nn.Embedding(7, 4, padding_idx=-1).padding_idx == 6

# %% padding-init
nn.init.xavier_uniform_(embedding.weight)  # an init of your own
print(embedding.weight[0].detach())  # the padding row is not zero any more
embedding.reset_parameters()  # the layer's own init zeroes it again
print(embedding.weight[0].detach())

# %% padding-init-checks tags=["remove-cell"]
xavier = nn.Embedding(len(vocab), 4, padding_idx=0)
nn.init.xavier_uniform_(xavier.weight)
assert xavier.weight[0].abs().sum() > 0
xavier(torch.tensor([0, 2])).sum().backward()
assert torch.equal(xavier.weight.grad[0], torch.zeros(4))  # still no gradient
assert torch.equal(embedding.weight[0], torch.zeros(4))
with torch.no_grad():
    xavier.weight[xavier.padding_idx].zero_()  # or zero it by hand
assert torch.equal(xavier.weight[0], torch.zeros(4))

# %% from-pretrained
import io

# a GloVe or word2vec text file: a word, then its numbers
glove = io.StringIO("the 0.418 0.250 -0.412\n"
                    "cat 0.453 -0.501 -0.537\n"
                    "mat 0.957 0.813 0.602\n")
vectors = {}
for line in glove:
    word, *numbers = line.split()
    vectors[word] = torch.tensor([float(n) for n in numbers])
weights = torch.zeros(len(vocab), 3)  # words without a vector stay zero
for word, i in vocab.items():
    if word in vectors:
        weights[i] = vectors[word]
embedding = nn.Embedding.from_pretrained(weights, padding_idx=vocab["<pad>"])
print(embedding)
print(embedding.weight.requires_grad)  # freeze=True by default
print(embedding(torch.tensor([vocab["cat"]])))

# %% from-pretrained-checks tags=["remove-cell"]
assert torch.equal(embedding.weight, weights)
assert torch.equal(embedding(torch.tensor([3]))[0], vectors["cat"])
assert not embedding.weight.requires_grad and embedding.embedding_dim == 3
assert embedding.weight.data_ptr() == weights.data_ptr()  # no copy: the same memory
assert nn.Embedding.from_pretrained(weights, freeze=False).weight.requires_grad
# with freeze=False, training changes the tensor passed in
passed = weights.clone()
trained = nn.Embedding.from_pretrained(passed, freeze=False)
trained(torch.tensor([2])).sum().backward()
torch.optim.SGD(trained.parameters(), lr=0.1).step()
assert not torch.equal(passed, weights)
# from_pretrained leaves the padding row as the matrix has it
other = torch.ones(len(vocab), 3)
assert torch.equal(nn.Embedding.from_pretrained(other, padding_idx=0).weight[0],
                   torch.ones(3))

# %% copy-into raises="RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
layer = nn.Embedding(len(vocab), 3, padding_idx=vocab["<pad>"])  # in a model
layer.weight.copy_(weights)

# %% copy-no-grad
with torch.no_grad():
    layer.weight.copy_(weights)  # copy the numbers into the layer's weight
print(torch.equal(layer.weight, weights), layer.weight.requires_grad)
other = nn.Embedding(len(vocab), 3)
other.weight.data.copy_(weights)  # the same numbers, hidden from autograd
print(torch.equal(other.weight, weights))

# %% copy-no-grad-checks tags=["remove-cell"]
assert torch.equal(layer.weight, weights) and layer.weight.requires_grad
assert layer.weight.data_ptr() != weights.data_ptr()  # a copy: its own memory
assert torch.equal(other.weight, weights) and other.weight.requires_grad
# the same Parameter, written in place: an optimizer holding it still has it
kept = nn.Embedding(len(vocab), 3)
parameter, address = kept.weight, kept.weight.data_ptr()
with torch.no_grad():
    kept.weight.copy_(weights)
assert kept.weight is parameter and kept.weight.data_ptr() == address
kept.weight.data.copy_(weights * 2)  # .data writes into the same memory too
assert kept.weight is parameter and kept.weight.data_ptr() == address
try:  # the width must be embedding_dim
    with torch.no_grad():
        kept.weight.copy_(torch.zeros(len(vocab), 5))
except RuntimeError as error:
    assert "must match the size of tensor" in str(error)
else:
    raise AssertionError("copy_ took a matrix of another width")


def tied_backward(copy):
    """A graph that uses the weight, a copy into it, then backward"""
    tied = nn.Embedding(len(vocab), 3)
    loss = (tied(torch.tensor([2, 3])) @ tied.weight.T).sum()  # weight saved
    copy(tied)
    loss.backward()


def copy_no_grad(tied):
    with torch.no_grad():
        tied.weight.copy_(weights)


try:  # no_grad: autograd sees the change and refuses the stale graph
    tied_backward(copy_no_grad)
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
else:
    raise AssertionError("backward ran through a weight changed under no_grad")
tied_backward(lambda tied: tied.weight.data.copy_(weights))  # .data: no error

# %% max-norm
glove_vectors = weights.clone()
print(glove_vectors.norm(dim=1))
embedding = nn.Embedding.from_pretrained(glove_vectors, max_norm=1.0)
with torch.no_grad():
    embedding(torch.tensor([vocab["mat"]]))  # a lookup, no training
print(glove_vectors.norm(dim=1))  # the row of "mat" was rescaled in place

# %% max-norm-checks tags=["remove-cell"]
assert weights[6].norm() > 1 and torch.isclose(glove_vectors[6].norm(), torch.tensor(1.0))
assert not torch.equal(glove_vectors[6], weights[6])
assert torch.allclose(glove_vectors[6], weights[6] / weights[6].norm(), atol=1e-6)
assert torch.equal(glove_vectors[:6], weights[:6])  # rows not looked up are untouched
assert not embedding.weight.requires_grad  # frozen, and changed all the same
loaded = weights.clone()
safe = nn.Embedding.from_pretrained(loaded.clone(), max_norm=1.0)
safe(torch.tensor([6]))
assert torch.equal(loaded, weights)  # a clone keeps the original


def weight_used_before_forward(clone):
    """PyTorch's documented case: the weight in a product, then a lookup"""
    table = nn.Embedding(3, 5, max_norm=1.0)
    with torch.no_grad():
        table.weight.mul_(10)  # every row above max_norm
    w = torch.randn(7, 5, requires_grad=True)
    a = (table.weight.clone() if clone else table.weight) @ w.T
    b = table(torch.tensor([1, 2])) @ w.T  # rescales rows 1 and 2 in place
    (a.unsqueeze(0) + b.unsqueeze(1)).sigmoid().prod().backward()


weight_used_before_forward(clone=True)
try:
    weight_used_before_forward(clone=False)
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
else:
    raise AssertionError("backward ran through the weight max_norm rescaled")

# %% unfreeze
model = nn.Sequential(nn.Embedding.from_pretrained(weights), nn.Linear(3, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # the frozen one too
x, y = torch.tensor([2, 3, 6]), torch.tensor([0, 1, 1])


def train_step():
    before = model[0].weight.tolist()
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    return model[0].weight.tolist() != before


print("embedding trained:", train_step())
model[0].weight.requires_grad_(True)  # unfreeze, after a few epochs
print("embedding trained:", train_step())

# %% unfreeze-checks tags=["remove-cell"]
assert model[0].weight.requires_grad and model[0].weight.grad is not None
for word in ["the", "cat", "mat"]:  # the ids of x: trained
    assert not torch.equal(model[0].weight[vocab[word]], vectors[word])
assert torch.equal(model[0].weight[[0, 1, 4, 5]], torch.zeros(4, 3))  # rows not in x
assert model[0].weight.data_ptr() == weights.data_ptr()  # weights was trained too

# %% bag
bag = nn.EmbeddingBag(len(vocab), 3, mode="mean", padding_idx=vocab["<pad>"])
flat = torch.tensor([2, 3, 4, 5, 6])  # two sentences, one after the other
offsets = torch.tensor([0, 3])  # where each sentence starts
print(bag(flat, offsets))
padded = torch.tensor([[2, 3, 4], [5, 6, 0]])  # the same, padded
print(torch.allclose(bag(padded), bag(flat, offsets)))  # <pad> left out

# %% bag-checks tags=["remove-cell"]
means = bag(flat, offsets)
assert means.shape == (2, 3) and nn.EmbeddingBag(3, 2).mode == "mean"
assert torch.allclose(means[0], bag.weight[[2, 3, 4]].mean(dim=0))
assert torch.allclose(means[1], bag.weight[[5, 6]].mean(dim=0))
assert torch.allclose(bag(padded), means)
pretrained_bag = nn.EmbeddingBag.from_pretrained(weights, mode="sum")
scaled = pretrained_bag(torch.tensor([[2, 3]]),
                        per_sample_weights=torch.tensor([[2.0, 0.5]]))
assert torch.allclose(scaled[0], 2 * weights[2] + 0.5 * weights[3])

# %% bag-vs-mean
embedding = nn.Embedding(len(vocab), 3, padding_idx=vocab["<pad>"])
with torch.no_grad():
    embedding.weight.copy_(bag.weight)  # the same vectors as the bag's
print(embedding(padded).mean(dim=1))  # the padding counts: divided by 3
mask = (padded != vocab["<pad>"]).unsqueeze(-1)  # (2, 3, 1)
print((embedding(padded) * mask).sum(dim=1) / mask.sum(dim=1))

# %% bag-vs-mean-checks tags=["remove-cell"]
naive = embedding(padded).mean(dim=1)
masked = (embedding(padded) * mask).sum(dim=1) / mask.sum(dim=1)
assert torch.allclose(naive[0], means[0]) and not torch.allclose(naive[1], means[1])
assert torch.allclose(naive[1], means[1] * 2 / 3)
assert torch.allclose(masked, means)

# %% tying
torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab_size=10, dim=4, tie=True):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)  # weight (10, 4)
        self.head = nn.Linear(dim, vocab_size, bias=False)  # weight (10, 4) too
        if tie:
            self.head.weight = self.embedding.weight  # one Parameter, two names

    def forward(self, ids):
        return self.head(self.embedding(ids))  # logits: (*, vocab_size)


model = TinyLM()
print(model.embedding.weight.shape, model.head.weight.shape)
print(model.head.weight is model.embedding.weight)

# %% tying-checks tags=["remove-cell"]
assert model.head.weight is model.embedding.weight
assert isinstance(model.head.weight, nn.Parameter)
assert nn.Embedding(10, 4).weight.shape == nn.Linear(4, 10).weight.shape == (10, 4)
assert model(torch.tensor([[1, 2, 3]])).shape == (1, 3, 10)
# the tied weight is the embedding's, with its init: the Linear's init is dropped
torch.manual_seed(0)
untied = TinyLM(tie=False)
assert torch.equal(model.embedding.weight, untied.embedding.weight)
assert not torch.equal(model.head.weight, untied.head.weight)

# %% tying-count
def count(model):
    return sum(p.numel() for p in model.parameters())


print(count(TinyLM(tie=False)), count(TinyLM()))  # 2 x 10 x 4, then 10 x 4
print([name for name, _ in model.named_parameters()])

# %% tying-count-checks tags=["remove-cell"]
assert count(TinyLM(tie=False)) == 80 and count(model) == 40
assert len(list(model.parameters())) == 1
assert [name for name, _ in model.named_parameters()] == ["embedding.weight"]
assert [name for name, _ in model.named_parameters(remove_duplicate=False)] \
    == ["embedding.weight", "head.weight"]
# an optimizer given model.parameters() holds the weight once
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
assert len(optimizer.param_groups[0]["params"]) == 1

# %% tying-step
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.tensor([[1, 2, 3]])  # token ids
y = torch.tensor([[2, 3, 4]])  # the next ids
before = model.embedding.weight.detach().clone()
loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
loss.backward()
optimizer.step()
print(model.head.weight is model.embedding.weight)  # still one tensor
print((model.embedding.weight != before).any(dim=1))  # the rows that changed

# %% tying-step-checks tags=["remove-cell"]
assert model.head.weight is model.embedding.weight
assert torch.equal(model.head.weight, model.embedding.weight)
assert (model.embedding.weight != before).any(dim=1).all()  # every row: the head's
# the gradient is the sum of both uses' gradients, computed once on the untied model
untied = TinyLM(tie=False)
with torch.no_grad():
    untied.embedding.weight.copy_(before)
    untied.head.weight.copy_(before)
F.cross_entropy(untied(x).flatten(0, 1), y.flatten()).backward()
total = untied.embedding.weight.grad + untied.head.weight.grad
assert torch.allclose(model.embedding.weight.grad, total)
assert torch.allclose(model.embedding.weight, before - 0.1 * total)
# the embedding's own gradient reaches only the rows of x
assert untied.embedding.weight.grad[[0, 4, 5, 6, 7, 8, 9]].abs().sum() == 0

# %% tying-state-dict
state = model.state_dict()
print(list(state))  # both names are saved
print(state["head.weight"].data_ptr() == state["embedding.weight"].data_ptr())

# %% tying-state-dict-checks tags=["remove-cell"]
assert list(state) == ["embedding.weight", "head.weight"]
assert state["head.weight"].data_ptr() == state["embedding.weight"].data_ptr()
assert state["head.weight"].data_ptr() == model.embedding.weight.data_ptr()
# torch.save writes the shared storage once; torch.load shares it again
tied_file, untied_file = io.BytesIO(), io.BytesIO()
torch.save(state, tied_file)
torch.save(TinyLM(tie=False).state_dict(), untied_file)
assert tied_file.tell() < untied_file.tell()
tied_file.seek(0)
loaded = torch.load(tied_file, weights_only=True)
assert loaded["head.weight"].data_ptr() == loaded["embedding.weight"].data_ptr()
# loading into a tied model fills the one Parameter; the tie stays
fresh = TinyLM()
fresh.load_state_dict(loaded)
assert fresh.head.weight is fresh.embedding.weight
assert torch.equal(fresh.embedding.weight, model.embedding.weight)
# copy.deepcopy keeps the tie too
import copy

twin = copy.deepcopy(model)
assert twin.head.weight is twin.embedding.weight
assert twin.head.weight is not model.head.weight
# a model without the tie loads it too, into two separate Parameters
apart = TinyLM(tie=False)
apart.load_state_dict(loaded)
assert torch.equal(apart.head.weight, apart.embedding.weight)
assert apart.head.weight.data_ptr() != apart.embedding.weight.data_ptr()
# an optimizer created before the tie holds the Linear's dropped weight
late = TinyLM(tie=False)
stale = torch.optim.SGD(late.parameters(), lr=0.1)
late.head.weight = late.embedding.weight
held = stale.param_groups[0]["params"]
assert len(held) == 2 and not any(p is held[1] for p in late.parameters())
