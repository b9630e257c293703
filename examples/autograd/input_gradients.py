# %% [markdown]
# The gradient of a model's output with respect to its input:
# requires_grad_() on the input, backward() of one class's score,
# torch.autograd.grad, and a whole batch at once

# %% [markdown] lang="zh"
# 模型输出对输入的梯度：对输入调用 `requires_grad_()`，对某个类别的分数
# 调用 `backward()`，`torch.autograd.grad`，以及一次算整个 batch

# %% saliency
import torch
import torch.nn.functional as F
from torch import nn

model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
    nn.Flatten(), nn.Linear(8 * 6 * 6, 5),
)
model.eval()
image = torch.rand(1, 3, 6, 6)  # one image, 5 classes

x = image.clone().requires_grad_()  # a leaf that records the graph
scores = model(x)  # shape (1, 5)
label = scores.argmax(dim=1).item()  # the predicted class
scores[0, label].backward()  # a scalar: one class's score
print(x.grad.shape)
saliency = x.grad.abs().amax(dim=1)  # the largest over the channels
print(saliency.shape)

# %% saliency-checks tags=["remove-cell"]
assert x.is_leaf and x.grad.shape == x.shape
assert saliency.shape == (1, 6, 6) and (saliency >= 0).all()
# the gradient is the derivative of that score: a small step along it
# raises the score by about the step times the squared norm
step = 1e-3
with torch.no_grad():
    raised = model(x + step * x.grad)[0, label] - scores[0, label]
assert torch.isclose(raised, step * x.grad.pow(2).sum(), rtol=0.05)
# the image itself is untouched: x is a copy
assert image.grad is None and not image.requires_grad
# backward() of all the scores at once needs a gradient argument
try:
    model(image.clone().requires_grad_()).backward()
except RuntimeError as error:
    assert "implicitly created only for scalar outputs" in str(error), error
else:
    raise AssertionError("backward() of a (1, 5) tensor ran")

# %% parameters-too
print(model.training)  # eval mode
print(model[0].weight.grad.shape)  # filled by the same backward()

# %% parameters-too-checks tags=["remove-cell"]
assert model[0].weight.grad is not None and model[4].weight.grad is not None
assert not model.training
first = model[0].weight.grad.clone()
scores_again = model(x)
scores_again[0, label].backward()
# a second backward adds to them: they accumulate until zero_grad()
assert torch.allclose(model[0].weight.grad, 2 * first)
model.zero_grad()

# %% autograd-grad
x = image.clone().requires_grad_()
scores = model(x)
(grad,) = torch.autograd.grad(scores[0, label], x)
print(grad.shape, x.grad, model[0].weight.grad)

# %% autograd-grad-checks tags=["remove-cell"]
assert x.grad is None and model[0].weight.grad is None
assert all(p.grad is None for p in model.parameters())
# the same gradient as backward() gave
x2 = image.clone().requires_grad_()
model(x2)[0, label].backward()
assert torch.allclose(grad, x2.grad)
model.zero_grad()

# %% frozen
model.requires_grad_(False)  # freeze: no parameter gradients at all
x = image.clone().requires_grad_()
model(x)[0, label].backward()
print(x.grad.shape, model[0].weight.grad)

# %% frozen-checks tags=["remove-cell"]
assert x.grad is not None and torch.allclose(x.grad, grad)
assert all(p.grad is None for p in model.parameters())

# %% batch
images = torch.rand(4, 3, 6, 6)
labels = torch.tensor([0, 3, 1, 4])
x = images.clone().requires_grad_()
scores = model(x)  # shape (4, 5)
picked = scores[torch.arange(4), labels]  # each image's own class
picked.sum().backward()
print(x.grad.shape)

# %% batch-checks tags=["remove-cell"]
# in eval mode each image only depends on itself: the sum's gradient
# is each image's gradient of its own score
one_by_one = []
for i in range(4):
    xi = images[i : i + 1].clone().requires_grad_()
    model(xi)[0, labels[i]].backward()
    one_by_one.append(xi.grad)
assert torch.allclose(x.grad, torch.cat(one_by_one), atol=1e-6)
# in train mode BatchNorm mixes the batch: image 0's score depends on
# the other images too, and the sum trick does not give it alone
model.train()
x_train = images.clone().requires_grad_()
(grad_train,) = torch.autograd.grad(model(x_train)[0, labels[0]], x_train)
assert grad_train[1:].abs().sum() > 0
model.eval()

# %% adversarial
x = image.clone().requires_grad_()
loss = F.cross_entropy(model(x), torch.tensor([label]))
loss.backward()
x_adv = (x + 0.05 * x.grad.sign()).detach()  # a step that raises the loss
with torch.no_grad():
    loss_adv = F.cross_entropy(model(x_adv), torch.tensor([label]))
print(loss_adv.item() > loss.item())

# %% adversarial-checks tags=["remove-cell"]
assert loss_adv > loss
assert (x_adv - image).abs().max() <= 0.05 + 1e-6
# the non-leaf pitfall: a tensor computed from x has no .grad of its own
import warnings

x = image.clone().requires_grad_()
normalised = (x - 0.5) / 0.5
model(normalised)[0, label].backward()
assert x.grad is not None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert normalised.grad is None
assert any("not a leaf" in str(w.message) for w in caught)

# %% second-derivative
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**3
(dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)  # 3x², with a graph
(d2y,) = torch.autograd.grad(dy.sum(), x)  # 6x: the derivative of dy
print(dy.detach(), dy.requires_grad)
print(d2y)

# %% second-derivative-checks tags=["remove-cell"]
assert torch.equal(dy, 3 * x.detach() ** 2) and dy.grad_fn is not None
assert torch.equal(d2y, 6 * x.detach())
assert not d2y.requires_grad and x.grad is None  # grad() writes no .grad
# y is elementwise: the gradient of y.sum() is each element's own derivative
(each,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
assert torch.equal(each, dy.detach())

# %% no-create-graph raises="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
(dy,) = torch.autograd.grad((x**3).sum(), x)  # no create_graph
torch.autograd.grad(dy.sum(), x)

# %% no-create-graph-checks tags=["remove-cell"]
# without create_graph the first derivative is a plain tensor, right but final
assert torch.equal(dy, 3 * x.detach() ** 2)
assert not dy.requires_grad and dy.grad_fn is None

# %% gradient-penalty
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.randn(4, 2, requires_grad=True)
(grad,) = torch.autograd.grad(model(x).sum(), x, create_graph=True)
penalty = ((grad.norm(dim=1) - 1) ** 2).mean()  # each gradient's norm near 1
penalty.backward()  # reaches the weights through grad
print(penalty.requires_grad, model[0].weight.grad.shape)

# %% gradient-penalty-checks tags=["remove-cell"]
assert penalty.requires_grad and model[0].weight.grad.abs().sum() > 0
# the samples do not interact: row i of grad is sample i's own input gradient
for i in range(4):
    xi = x[i : i + 1].detach().requires_grad_()
    (gi,) = torch.autograd.grad(model(xi).sum(), xi)
    assert torch.allclose(gi, grad[i : i + 1], atol=1e-6)
# the penalty's gradient for one weight, by finite differences in float64
import copy

model64 = copy.deepcopy(model).double()
w = model[0].weight[0, 0].item()


def penalty_at(value):
    with torch.no_grad():
        model64[0].weight[0, 0] = value
    xi = x.detach().double().requires_grad_()
    (g,) = torch.autograd.grad(model64(xi).sum(), xi)
    return ((g.norm(dim=1) - 1) ** 2).mean().item()


slope = (penalty_at(w + 1e-6) - penalty_at(w - 1e-6)) / 2e-6
assert abs(slope - model[0].weight.grad[0, 0].item()) < 1e-4, slope
# without create_graph the penalty is a constant: added to a loss it
# changes no weight's gradient, and no error says so
model.zero_grad()
(grad_plain,) = torch.autograd.grad(model(x).sum(), x)
penalty_plain = ((grad_plain.norm(dim=1) - 1) ** 2).mean()
assert not penalty_plain.requires_grad and torch.isclose(penalty_plain, penalty)
loss = model(x).mean()
(loss + penalty_plain).backward()
with_constant = model[0].weight.grad.clone()
model.zero_grad()
model(x).mean().backward()
assert torch.equal(with_constant, model[0].weight.grad)

# %% hessian
from torch.autograd.functional import hessian


def f(x):
    return x[0] ** 2 * x[1] + x[1] ** 3


x = torch.tensor([1.0, 2.0])
print(hessian(f, x))  # analytic: [[2*x[1], 2*x[0]], [2*x[0], 6*x[1]]]

# %% hessian-checks tags=["remove-cell"]
analytic = torch.tensor([[2 * x[1], 2 * x[0]], [2 * x[0], 6 * x[1]]])
assert torch.equal(hessian(f, x), analytic)
# for y = x**3 summed, the Hessian is diagonal: 6x, as twice grad() gave
points = torch.tensor([1.0, 2.0, 3.0])
assert torch.equal(hessian(lambda t: (t**3).sum(), points), torch.diag(6 * points))
# the input needs no requires_grad: hessian() sets that up itself
assert not x.requires_grad
# row by row, twice grad() with create_graph=True gives the same matrix
xg = x.clone().requires_grad_()
(first,) = torch.autograd.grad(f(xg), xg, create_graph=True)
rows = [torch.autograd.grad(first[i], xg, retain_graph=True)[0] for i in range(2)]
assert torch.equal(torch.stack(rows), analytic)

# %% jacobian
from torch.autograd.functional import jacobian
from torch.func import functional_call, grad, jacfwd, jacrev, vmap

net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
x = torch.randn(3)  # one sample
J = jacobian(net, x)  # d output / d input: (2 outputs, 3 inputs)
print(J.shape)
print(torch.allclose(jacrev(net)(x), J), torch.allclose(jacfwd(net)(x), J))

# %% jacobian-checks tags=["remove-cell"]
assert J.shape == (2, 3)
assert torch.allclose(jacrev(net)(x), J, atol=1e-6)
assert torch.allclose(jacfwd(net)(x), J, atol=1e-6)
# row i of the Jacobian is the gradient of output i
xr = x.clone().requires_grad_()
rows = [torch.autograd.grad(net(xr)[i], xr)[0] for i in range(2)]
assert torch.allclose(torch.stack(rows), J, atol=1e-6)

# %% jacobian-batch
xb = torch.randn(4, 3)  # a batch of 4
print(jacobian(net, xb).shape)  # every output against every input of the batch
print(vmap(jacrev(net))(xb).shape)  # one (2, 3) Jacobian per sample

# %% jacobian-batch-checks tags=["remove-cell"]
full = jacobian(net, xb)
per_sample = vmap(jacrev(net))(xb)
assert full.shape == (4, 2, 4, 3) and per_sample.shape == (4, 2, 3)
for i in range(4):
    assert torch.allclose(full[i, :, i], per_sample[i], atol=1e-6)
    for j in range(4):
        if j != i:  # blocks between two samples are zero
            assert torch.equal(full[i, :, j], torch.zeros(2, 3))

# %% per-sample-grads
params = {k: v.detach() for k, v in net.named_parameters()}


def loss_fn(params, x, y):
    # a batch of one
    out = functional_call(net, params, (x.unsqueeze(0),))
    return F.mse_loss(out, y.unsqueeze(0))


yb = torch.randn(4, 2)
# params shared (None), x and y split along dim 0
grads = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, xb, yb)
for name, g in grads.items():
    print(name, tuple(g.shape))  # one gradient per sample

# %% per-sample-grads-checks tags=["remove-cell"]
for i in range(4):
    net.zero_grad()
    F.mse_loss(net(xb[i : i + 1]), yb[i : i + 1]).backward()
    for name, p in net.named_parameters():
        assert torch.allclose(grads[name][i], p.grad, atol=1e-6), name
assert grads["0.weight"].shape == (4, 5, 3) and grads["2.bias"].shape == (4, 2)
# the mean of the per-sample gradients is the batch gradient
net.zero_grad()
F.mse_loss(net(xb), yb).backward()
assert torch.allclose(grads["0.weight"].mean(0), net[0].weight.grad, atol=1e-6)
# BatchNorm in train mode mixes the samples: vmap refuses it
bn_net = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.Linear(5, 2))
bn_params = {k: v.detach() for k, v in bn_net.named_parameters()}


def bn_loss(params, x, y):
    out = functional_call(bn_net, params, (x.unsqueeze(0),))
    return F.mse_loss(out, y.unsqueeze(0))


try:
    vmap(grad(bn_loss), in_dims=(None, 0, 0))(bn_params, xb, yb)
except Exception as error:
    bn_error = error
else:
    raise AssertionError("vmap over BatchNorm in train mode should fail")
bn_net.eval()
bn_grads = vmap(grad(bn_loss), in_dims=(None, 0, 0))(bn_params, xb, yb)
assert bn_grads["0.weight"].shape == (4, 5, 3)
assert isinstance(bn_error, RuntimeError)

# %% param-hessian
from torch.func import hessian as func_hessian

torch.manual_seed(0)
model = nn.Linear(2, 1)  # 3 parameters: weight (1, 2) and bias (1,)
x, y = torch.randn(5, 2), torch.randn(5, 1)
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_fn(params):  # the loss as a function of the parameters
    return F.mse_loss(functional_call(model, params, (x,)), y)


H = func_hessian(loss_fn)(params)  # a dict of dicts: one block per pair
for a in H:
    for b in H[a]:
        print(a, b, tuple(H[a][b].shape))

# %% param-hessian-checks tags=["remove-cell"]
assert set(H) == {"weight", "bias"} and set(H["weight"]) == {"weight", "bias"}
assert H["weight"]["weight"].shape == (1, 2, 1, 2)  # weight's shape twice
assert H["weight"]["bias"].shape == (1, 2, 1)
# jacrev twice gives the same blocks
H2 = jacrev(jacrev(loss_fn))(params)
for a in H:
    for b in H[a]:
        assert torch.allclose(H[a][b], H2[a][b], atol=1e-6), (a, b)

# %% param-hessian-matrix
sizes = {k: v.numel() for k, v in params.items()}
H_matrix = torch.cat([
    torch.cat([H[a][b].reshape(sizes[a], sizes[b]) for b in params], dim=1)
    for a in params
])  # (P, P), rows and columns in the order of named_parameters()
print(H_matrix)
A = torch.cat([x, torch.ones(5, 1)], dim=1)  # inputs, and a 1 for the bias
print(2 / 5 * A.T @ A)  # by hand: the Hessian of a mean squared error

# %% param-hessian-matrix-checks tags=["remove-cell"]
assert H_matrix.shape == (3, 3)
assert torch.allclose(H_matrix, 2 / 5 * A.T @ A, atol=1e-6)
assert torch.allclose(H_matrix, H_matrix.T)
# the order of the rows is that of the flattened parameters
flat = torch.cat([p.reshape(-1) for p in params.values()])
assert torch.equal(flat, torch.cat([model.weight[0], model.bias]).detach())

# %% hessian-size
mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
P = sum(p.numel() for p in mlp.parameters())
print(P, "parameters")
print(f"{P**2 * 4 / 2**30:.0f} GiB for their Hessian in float32")

# %% hessian-size-checks tags=["remove-cell"]
assert P == 784 * 256 + 256 + 256 * 10 + 10
assert 150 < P**2 * 4 / 2**30 < 160

# %% hvp-double-backward
v = [torch.randn_like(p) for p in model.parameters()]  # any direction
loss = F.mse_loss(model(x), y)
g = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
dot = sum((gi * vi).sum() for gi, vi in zip(g, v))  # a scalar: g · v
hv = torch.autograd.grad(dot, list(model.parameters()))  # H @ v, per tensor
print(torch.cat([t.reshape(-1) for t in hv]))
print(H_matrix @ torch.cat([t.reshape(-1) for t in v]))

# %% hvp-double-backward-checks tags=["remove-cell"]
v_flat = torch.cat([t.reshape(-1) for t in v])
hv_flat = torch.cat([t.reshape(-1) for t in hv])
assert torch.allclose(hv_flat, H_matrix @ v_flat, atol=1e-5)
assert [t.shape for t in hv] == [p.shape for p in model.parameters()]
assert all(p.grad is None for p in model.parameters())

# %% hvp-jvp-mse raises="RuntimeError: ZeroTensors are immutable"
from torch.func import jvp, vjp

v_dict = dict(zip(params, v))
jvp(grad(loss_fn), (params,), (v_dict,))  # forward-over-reverse

# %% hvp-func
_, vjp_fn = vjp(grad(loss_fn), params)  # reverse-over-reverse
(hv_dict,) = vjp_fn(v_dict)
print(hv_dict)


def loss_by_hand(params):  # the same loss without F.mse_loss
    out = functional_call(model, params, (x,))
    return ((out - y) ** 2).mean()


_, hv_jvp = jvp(grad(loss_by_hand), (params,), (v_dict,))
print(hv_jvp)

# %% hvp-func-checks tags=["remove-cell"]
for k, t in zip(params, hv):
    assert torch.allclose(hv_dict[k], t, atol=1e-5), k
    assert torch.allclose(hv_jvp[k], t, atol=1e-5), k
assert torch.allclose(loss_by_hand(params), loss_fn(params))
