# %% [markdown]
# Autograd errors: backward twice, no graph, non-scalar
# outputs, in-place changes, non-leaf tensors (and the
# warning when reading their .grad)

# %% [markdown] lang="zh"
# autograd 的报错：`backward` 调用两次、没有计算图、输出不是标量、原地修改、
# 非叶子节点（以及读取其 `.grad` 时的警告）

# %% setup
import torch
from torch import nn

# %% backward-twice tags=["raises-exception"]
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()  # mul saves w for its backward pass
loss.backward()
loss.backward()  # that saved w was freed by the first backward

# %% backward-twice-fix
w.grad = None
loss = (w * w).sum()
loss.backward(retain_graph=True)  # keep the saved tensors for a second pass
loss.backward()
print(w.grad)  # 2 * w, twice

# %% backward-twice-fix-checks tags=["remove-cell"]
assert torch.equal(w.grad, 2 * (2 * w.detach()))

# %% hidden-state tags=["raises-exception"]
rnn = nn.RNN(input_size=3, hidden_size=4)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
hidden = torch.zeros(1, 1, 4)
for step in range(2):  # two steps of training on a long sequence, in pieces
    x = torch.randn(5, 1, 3)
    out, hidden = rnn(x, hidden)  # hidden is carried over: its graph too
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # step 1 goes back into step 0's graph, already freed
    optimizer.step()

# %% hidden-state-retain tags=["raises-exception"]
hidden = torch.zeros(1, 1, 4)
for step in range(2):
    x = torch.randn(5, 1, 3)
    out, hidden = rnn(x, hidden)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # the wrong fix: keeps step 0's graph
    optimizer.step()  # and changes the weights that graph saved

# %% hidden-state-fix
hidden = torch.zeros(1, 1, 4)
losses = []
for step in range(3):
    # keep the values, cut the graph at the piece's border
    hidden = hidden.detach()
    x = torch.randn(5, 1, 3)
    out, hidden = rnn(x, hidden)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(round(loss.item(), 4))
print(losses)

# %% hidden-state-fix-checks tags=["remove-cell"]
# this piece's graph only
assert len(losses) == 3 and hidden.grad_fn is not None
assert hidden.detach().grad_fn is None and not hidden.detach().requires_grad


def graph_size(tensor):
    """The number of autograd nodes a backward() from `tensor` goes through"""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return len(seen)


for detach in (False, True):  # carried over, the graph grows with every piece
    hidden, sizes = torch.zeros(1, 1, 4), []
    for step in range(3):
        hidden = hidden.detach() if detach else hidden
        out, hidden = rnn(torch.randn(5, 1, 3), hidden)
        sizes.append(graph_size(out.pow(2).mean()))
    assert sizes[0] == sizes[1] == sizes[2] if detach \
        else sizes[0] < sizes[1] < sizes[2]

# %% no-grad-fn tags=["raises-exception"]
model = nn.Linear(2, 1)
with torch.no_grad():  # e.g. an evaluation block around the training step
    loss = model(torch.ones(1, 2)).sum()
loss.backward()

# %% no-grad-fn-fix
loss = model(torch.ones(1, 2)).sum()  # computed with gradient tracking on
loss.backward()
print(loss.grad_fn is not None, model.weight.grad)

# %% no-grad-fn-fix-checks tags=["remove-cell"]
assert torch.equal(model.weight.grad, torch.ones(1, 2))

# %% scalar-outputs tags=["raises-exception"]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2  # three outputs
y.backward()

# %% scalar-outputs-fix
y.sum().backward()  # one number to differentiate
print(x.grad)

# %% scalar-outputs-fix-checks tags=["remove-cell"]
assert torch.equal(x.grad, 2 * x.detach())
x.grad = None
# the same, with the weights of each output given
(x ** 2).backward(gradient=torch.ones(3))
assert torch.equal(x.grad, 2 * x.detach())

# %% inplace-saved tags=["raises-exception"]
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()  # sigmoid saves its output for backward
b.mul_(2)  # and this changes it in place
b.sum().backward()

# %% inplace-saved-fix
b = a.sigmoid()
c = b * 2  # a new tensor: the saved one is untouched
c.sum().backward()
print(a.grad)

# %% inplace-saved-fix-checks tags=["remove-cell"]
s = torch.sigmoid(torch.tensor([1.0, 2.0]))
assert torch.allclose(a.grad, 2 * s * (1 - s))
b = a.sigmoid()
b.mul_(2)
try:
    b.sum().backward()
except RuntimeError as error:
    assert "output 0 of Sigmoid" in str(error) \
        and "is at version 1; expected version 0" in str(error)
else:
    raise AssertionError("backward went through a changed saved tensor")

# %% relu-inplace tags=["raises-exception"]
model = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid(), nn.ReLU(inplace=True))
model(torch.ones(3, 2)).sum().backward()  # ReLU overwrote what Sigmoid saved

# %% relu-inplace-fix
model = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid(), nn.ReLU())  # inplace=False
model(torch.ones(3, 2)).sum().backward()
print(model[0].weight.grad.shape)

# %% relu-inplace-fix-checks tags=["remove-cell"]
assert model[0].weight.grad is not None and not model[2].inplace
# each saves its output
for saves_output in (nn.Sigmoid(), nn.Tanh(), torch.exp):
    x = torch.ones(2, requires_grad=True)
    try:
        nn.ReLU(inplace=True)(saves_output(x)).sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError(
            f"ReLU(inplace=True) after {saves_output} went through"
        )

# %% gan-step tags=["raises-exception"]
generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
optimizer_g = torch.optim.SGD(generator.parameters(), lr=0.1)
optimizer_c = torch.optim.SGD(critic.parameters(), lr=0.1)
fake = generator(torch.randn(4, 2))
loss_c = critic(fake).mean()  # the critic's loss on the fake batch
# the generator's loss: the graph goes through the critic
loss_g = -critic(fake).mean()
optimizer_c.zero_grad()
loss_c.backward(retain_graph=True)
# changes the critic's weights in place, which loss_g's graph saved
optimizer_c.step()
optimizer_g.zero_grad()
loss_g.backward()

# %% gan-step-fix
fake = generator(torch.randn(4, 2))
loss_c = critic(fake.detach()).mean()  # no graph into the generator
optimizer_c.zero_grad()
loss_c.backward()
optimizer_c.step()
# computed after the critic's step, with its new weights
loss_g = -critic(fake).mean()
optimizer_g.zero_grad()
loss_g.backward()
optimizer_g.step()
print(generator.weight.grad.abs().sum().item() > 0)

# %% gan-step-fix-checks tags=["remove-cell"]
assert generator.weight.grad.abs().sum() > 0 and fake.grad_fn is not None
fake = generator(torch.randn(4, 2))
loss_g = -critic(fake).mean()
optimizer_c.step()  # a step between building the graph and using it
try:
    loss_g.backward()
# the saved transposed weight of the critic, [2, 1]
except RuntimeError as error:
    assert "[torch.FloatTensor [2, 1]], which is output 0 of AsStrided" \
        in str(error)
    assert critic.weight.shape == (1, 2)
else:
    raise AssertionError("backward went through weights changed by step()")

# %% leaf-inplace tags=["raises-exception"]
weight = torch.ones(2, requires_grad=True)
weight -= 0.1 * torch.ones(2)  # an update outside torch.no_grad()

# %% leaf-inplace-fix
with torch.no_grad():
    weight -= 0.1 * torch.ones(2)
print(weight, weight.is_leaf)

# %% leaf-inplace-fix-checks tags=["remove-cell"]
assert weight.is_leaf and weight.requires_grad and torch.allclose(
    weight, torch.full((2,), 0.9)
)

# %% leaf-view tags=["raises-exception"]
layer = nn.Linear(3, 2)
layer.weight[:, 0] = 0.0  # a slice of a parameter is a view of a leaf

# %% leaf-view-fix
with torch.no_grad():  # changes that autograd should not record
    layer.weight[:, 0] = 0.0
print(layer.weight[:, 0].tolist(), layer.weight.is_leaf)

# %% leaf-view-fix-checks tags=["remove-cell"]
assert torch.equal(layer.weight[:, 0], torch.zeros(2)) and layer.weight.is_leaf
assert layer.weight.grad_fn is None

# %% non-leaf tags=["raises-exception"]
# the conversion makes a non-leaf
weight = torch.randn(3, requires_grad=True).double()
torch.optim.SGD([weight], lr=0.1)

# %% non-leaf-fix
# create it as it should be
weight = torch.randn(3, dtype=torch.float64, requires_grad=True)
optimizer = torch.optim.SGD([weight], lr=0.1)
print(weight.is_leaf)

# %% non-leaf-fix-checks tags=["remove-cell"]
assert weight.is_leaf \
    and torch.randn(3, requires_grad=True).double().grad_fn is not None

# %% nonleaf-grad
w = torch.ones(3, requires_grad=True)  # a leaf: created by you
y = w * 2  # made by an operation: not a leaf
y.sum().backward()
print(y.grad)  # None, and a warning

# %% nonleaf-grad-error tags=["raises-exception"]
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("error")  # warnings as errors, as `python -W error`
    y.grad

# %% nonleaf-grad-checks tags=["remove-cell"]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert y.grad is None and not y.is_leaf and w.is_leaf
assert caught[0].category is UserWarning
assert str(caught[0].message).startswith(
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
)

# %% nonleaf-grad-fix
w = torch.ones(3, requires_grad=True)
y = w * 2
y.retain_grad()  # keep this non-leaf's gradient
y.sum().backward()
print(w.grad, y.grad)  # the leaf's gradient, and the kept one

# %% nonleaf-grad-fix-checks tags=["remove-cell"]
assert torch.equal(w.grad, torch.full((3,), 2.0))
assert torch.equal(y.grad, torch.ones(3)) and y.retains_grad

# %% gan-leak raises="RuntimeError: Trying to backward through the graph a second time"
torch.manual_seed(0)
generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
optimizer_c = torch.optim.SGD(critic.parameters(), lr=0.1)
fake = generator(torch.randn(4, 2))
loss_c = critic(fake).mean()  # no detach: the graph reaches the generator
optimizer_c.zero_grad()
loss_c.backward()  # also fills the generator's .grad, and frees its graph
print(generator.weight.grad is None)  # the critic's loss reached the generator
optimizer_c.step()
loss_g = -critic(fake).mean()  # the generator's loss, through the same fake
loss_g.backward()

# %% gan-leak-checks tags=["remove-cell"]
assert generator.weight.grad is not None and generator.weight.grad.abs().sum() > 0

# %% gan-leak-fix
generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
optimizer_g = torch.optim.SGD(generator.parameters(), lr=0.1)
optimizer_c = torch.optim.SGD(critic.parameters(), lr=0.1)
fake = generator(torch.randn(4, 2))
loss_c = critic(fake.detach()).mean()
optimizer_c.zero_grad()
loss_c.backward()
# the critic's step left the generator alone
print(generator.weight.grad is None)
optimizer_c.step()
loss_g = -critic(fake).mean()
optimizer_g.zero_grad()
loss_g.backward()
print(generator.weight.grad.abs().sum().item() > 0)

# %% gan-leak-fix-checks tags=["remove-cell"]
assert critic.weight.grad is not None
# the alternative: keep the graph and zero the generator's wrong gradients
generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
fake = generator(torch.randn(4, 2))
critic(fake).mean().backward(retain_graph=True)
assert generator.weight.grad is not None
generator.zero_grad()
(-critic(fake).mean()).backward()  # works, through the retained graph
assert generator.weight.grad.abs().sum() > 0

# %% target-grad
import torch.nn.functional as F

x = torch.randn(4, 3, requires_grad=True)  # the student's output
teacher = nn.Linear(3, 3)
target = teacher(torch.randn(4, 3))  # a target from another network
loss = F.mse_loss(x, target)
loss.backward()
# the teacher got gradients
print(target.requires_grad, teacher.weight.grad is None)

# %% target-grad-checks tags=["remove-cell"]
assert teacher.weight.grad is not None and teacher.weight.grad.abs().sum() > 0


def target_grad(loss_fn, make_x, make_t):
    x, t = make_x().requires_grad_(), make_t().requires_grad_()
    loss_fn(x, t).backward()
    return t.grad


p = lambda: torch.rand(4, 3) * 0.8 + 0.1  # probabilities
r = lambda: torch.randn(4, 3)
for loss_fn, make_x, make_t in [
    (nn.MSELoss(), r, r), (nn.L1Loss(), r, r), (nn.SmoothL1Loss(), r, r),
    (nn.HuberLoss(), r, r), (nn.BCELoss(), p, p), (nn.BCEWithLogitsLoss(), r, p),
    (nn.KLDivLoss(reduction="batchmean"), lambda: p().log(), p),
    (F.cross_entropy, r, lambda: p().softmax(1)),  # soft targets
    (F.poisson_nll_loss, r, lambda: torch.rand(4, 3)),
]:
    assert target_grad(loss_fn, make_x, make_t) is not None, loss_fn

# %% target-grad-soft-margin raises="RuntimeError: The function 'soft_margin_loss' is not differentiable with respect to argument 'target'"
target = torch.tensor([1.0, -1.0, 1.0], requires_grad=True)
F.soft_margin_loss(torch.randn(3), target)

# %% target-grad-fix
teacher.zero_grad()
# values only: no graph into the teacher
target = teacher(torch.randn(4, 3)).detach()
loss = F.mse_loss(x, target)
loss.backward()
print(target.requires_grad, teacher.weight.grad is None)

# %% target-grad-fix-checks tags=["remove-cell"]
assert not target.requires_grad and teacher.weight.grad is None
assert F.soft_margin_loss(torch.randn(3), torch.tensor([1.0, -1.0, 1.0])).ndim == 0

# %% unused-input raises="RuntimeError: … appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
x = torch.ones(3, requires_grad=True)
y = torch.ones(3, requires_grad=True)
loss = (x * 2).sum()  # y takes no part in the loss
torch.autograd.grad(loss, [x, y])

# %% unused-input-checks tags=["remove-cell"] holds=">=2.13" claim="The message says the index of the unused tensor (`at index 1`)"
try:
    torch.autograd.grad((x * 2).sum(), [x, y])
except RuntimeError as error:
    assert "The differentiated Tensor at index 1 appears" in str(error), error
else:
    raise AssertionError("no error")

# %% unused-input-fix
loss = (x * 2).sum()
# None: no path from y
print(torch.autograd.grad(loss, [x, y], allow_unused=True))
loss = (x * 2).sum()
print(torch.autograd.grad(loss, [x, y], allow_unused=True,
                          materialize_grads=True))

# %% unused-input-fix-checks tags=["remove-cell"]
gx, gy = torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
assert torch.equal(gx, torch.full((3,), 2.0)) and gy is None
gx, gy = torch.autograd.grad(
    (x * 2).sum(), [x, y], allow_unused=True, materialize_grads=True
)
assert torch.equal(gy, torch.zeros(3))

# %% unused-branch
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.head_a = nn.Linear(4, 1)
        self.head_b = nn.Linear(4, 1)

    def forward(self, x, task):
        h = self.body(x)
        # one head per call
        return self.head_a(h) if task == "a" else self.head_b(h)


model = TwoHeads()
loss = model(torch.randn(2, 3), task="a").sum()
names = [name for name, _ in model.named_parameters()]
grads = torch.autograd.grad(loss, list(model.parameters()), allow_unused=True)
for name, g in zip(names, grads):
    print(name, None if g is None else tuple(g.shape))

# %% unused-branch-checks tags=["remove-cell"]
assert [g is None for g in grads] == [False] * 4 + [True] * 2
assert names.index("head_b.weight") == 4
try:
    loss = model(torch.randn(2, 3), task="a").sum()
    torch.autograd.grad(loss, list(model.parameters()))
except RuntimeError as error:
    assert "appears to not have been used in the graph" in str(error)
else:
    raise AssertionError("no error")
# backward() does not complain: the unused head's .grad stays None
model(torch.randn(2, 3), task="a").sum().backward()
assert model.head_b.weight.grad is None and model.head_a.weight.grad is not None

# %% volatile
from torch.autograd import Variable

x = torch.ones(2)
v = Variable(x, volatile=True)  # code written for PyTorch 0.3
print(type(v), v.requires_grad)  # an ordinary tensor, and a warning

# %% volatile-error raises="UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
with warnings.catch_warnings():
    warnings.simplefilter("error")  # warnings as errors, as `python -W error`
    Variable(x, volatile=True)

# %% volatile-checks tags=["remove-cell"]
assert type(v) is torch.Tensor and not v.requires_grad
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    Variable(x, volatile=True)
assert caught[0].category is UserWarning
assert "volatile was removed and now has no effect" in str(caught[0].message)
# Variable(t) is a plain tensor with the same storage
assert type(Variable(x)) is torch.Tensor and Variable(x).data_ptr() == x.data_ptr()
assert Variable(x, requires_grad=True).requires_grad
# volatile no longer spreads: a parameter in the computation makes it tracked
assert (v * nn.Parameter(torch.ones(2))).requires_grad

# %% volatile-fix
x = torch.ones(2)
# was: Variable(torch.ones(2), requires_grad=True)
w = torch.ones(2).requires_grad_()
with torch.no_grad():  # was: volatile=True
    y = x * w
print(y.requires_grad)
loss = (x * w).sum()
print(loss.item())  # was: loss.data[0]

# %% volatile-fix-checks tags=["remove-cell"]
assert not y.requires_grad and loss.item() == 2.0
with torch.inference_mode():
    assert not (x * w).requires_grad
