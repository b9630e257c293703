# %% [markdown]
# Tensor hooks see each parameter's gradient during backward; a closure in
# a loop must bind the loop variable, or every hook reports the last name

# %% [markdown] lang="zh"
# 张量钩子（hook）能在反向传播过程中看到每个参数的梯度；循环里定义的闭包
# 必须绑定循环变量，否则每个钩子报告的都是最后一个参数名

# %% setup
import functools

import torch
from torch import nn

model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
x = torch.randn(4, 3)

# %% named-parameters
for name, param in model.named_parameters():
    print(name, tuple(param.shape), param.requires_grad)
print(next(model.parameters()).shape)  # parameters() gives no names

# %% late-binding
reported = []


def hook(grad, param_name):
    reported.append(param_name)
    print(f"{param_name}: grad sum {grad.sum().item():.4f}")


handles = []
for name, param in model.named_parameters():
    if param.requires_grad:

        def b_h(grad):
            # looks up name when called, not when defined
            return hook(grad, name)

        handles.append(param.register_hook(b_h))

model(x).sum().backward()
print(reported)

# %% frozen tags=["raises-exception"]
frozen = torch.ones(3)  # requires_grad=False, like a frozen parameter
frozen.register_hook(print)

# %% remove
for handle in handles:
    handle.remove()
reported.clear()
model(x).sum().backward()  # no hook runs any more
print(reported)

# %% default-argument
handles = []
for name, param in model.named_parameters():
    if param.requires_grad:

        def b_h(grad, name=name):  # the default is evaluated now
            return hook(grad, name)

        handles.append(param.register_hook(b_h))

model(x).sum().backward()
print(reported)
for handle in handles:
    handle.remove()

# %% partial
reported.clear()
handles = [
    param.register_hook(functools.partial(hook, param_name=name))
    for name, param in model.named_parameters()
]
model(x).sum().backward()
print(reported)
for handle in handles:
    handle.remove()

# %% replace-grad
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# returns a new gradient
handle = w.register_hook(lambda grad: grad.clamp(max=1.0))
(w**2).sum().backward()
print(w.grad)
handle.remove()

# %% after-backward
model.zero_grad()
model(x).sum().backward()
for name, param in model.named_parameters():
    print(name, param.grad.norm())

# %% module-hook
def show_output_grad(module, grad_input, grad_output):
    print(type(module).__name__, "grad of output:", grad_output[0].shape)


handle = model[2].register_full_backward_hook(show_output_grad)
model(x).sum().backward()
handle.remove()

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import contextlib
import io

names = [name for name, _ in model.named_parameters()]
assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
assert all(isinstance(p, nn.Parameter) for p in model.parameters())


def record(make_hook):
    # one backward with a hook per parameter, made by make_hook(seen, name)
    seen = []
    hs = []
    for name, p in model.named_parameters():
        hs.append(p.register_hook(make_hook(seen, name)))
    model(x).sum().backward()
    for h in hs:
        h.remove()
    return seen


# the note's pattern: a closure in a loop looks up the loop variable when called
late_seen = []
hs = []
for name, p in model.named_parameters():
    hs.append(p.register_hook(lambda grad: late_seen.append(name)))
model(x).sum().backward()
# all report the last name
assert len(late_seen) == 4 and set(late_seen) == {"2.bias"}
model.zero_grad()
model(x).sum().backward()
# they differ
assert len({p.grad.sum().item() for p in model.parameters()}) == 4
for h in hs:
    h.remove()
late_seen.clear()
model(x).sum().backward()
assert late_seen == []  # removed hooks do not run

# the fixes: a default argument, or functools.partial
early = record(lambda seen, name: lambda grad, name=name: seen.append(name))
assert sorted(early) == sorted(names)
assert {*early[:2]} == {"2.weight", "2.bias"}  # last layer first
part = record(
    lambda seen, name: functools.partial(lambda grad, n: seen.append(n), n=name)
)
assert part == early

# the note's hooks (b_h returns what hook
# returns: None) leave the gradients alone
model.zero_grad()
model(x).sum().backward()
plain = {n: p.grad.clone() for n, p in model.named_parameters()}
model.zero_grad()
hs = []
for name, p in model.named_parameters():

    def b_h(grad, name=name):
        return hook(grad, name)

    hs.append(p.register_hook(b_h))
reported.clear()
# hook prints; keep this cell quiet
with contextlib.redirect_stdout(io.StringIO()):
    model(x).sum().backward()
    assert len(reported) == 4  # the hooks ran
    assert b_h(torch.ones(1)) is None  # and returned None
for h in hs:
    h.remove()
for n, p in model.named_parameters():
    assert torch.equal(p.grad, plain[n])

# no hook on a tensor that does not require grad
try:
    torch.ones(3).register_hook(print)
except RuntimeError as error:
    message = "cannot register a hook on a tensor that doesn't require gradient"
    assert message in str(error)
else:
    raise AssertionError(
        "register_hook should refuse a tensor without requires_grad"
    )
assert all(p.requires_grad for p in model.parameters())

# a hook returning a tensor replaces the gradient
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w**2).sum().backward()
assert torch.equal(w.grad, torch.tensor([2.0, 4.0, 6.0]))  # without a hook
w.grad = None
h = w.register_hook(lambda grad: grad.clamp(max=1.0))
(w**2).sum().backward()
# instead of [2, 4, 6]
assert torch.equal(w.grad, torch.tensor([1.0, 1.0, 1.0]))
h.remove()

# parameters are leaves: after backward their gradients are in .grad
model.zero_grad()
model(x).sum().backward()
assert all(p.is_leaf and p.grad is not None for p in model.parameters())

# the module hook sees the gradient of the module's output
shapes = []
h = model[2].register_full_backward_hook(
    lambda m, gi, go: shapes.append((gi[0].shape, go[0].shape))
)
model(x).sum().backward()
h.remove()
assert shapes == [((4, 2), (4, 1))]  # input (4, 2), output (4, 1)

# %% old-backward-hook
seen = {}


def keep_grad_input(module, grad_input, grad_output):
    seen["old"] = [tuple(g.shape) for g in grad_input if g is not None]


block = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
block.register_backward_hook(keep_grad_input)  # the old, non-full hook
x = torch.randn(2, 3, requires_grad=True)
block(x).sum().backward()  # warns
print(seen["old"], tuple(x.grad.shape))  # the ReLU's input, not x

# %% old-backward-hook-checks tags=["remove-cell"]
import warnings

assert seen["old"] == [(2, 4)] and x.grad.shape == (2, 3)
for module in (nn.Sequential(nn.Linear(3, 4), nn.ReLU()), nn.Linear(3, 4)):
    module.register_backward_hook(keep_grad_input)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module(torch.randn(2, 3, requires_grad=True)).sum().backward()
    assert [w.category for w in caught] == [FutureWarning], caught
    assert str(caught[0].message).startswith(
        "Using a non-full backward hook when the forward contains multiple autograd"
        " Nodes is deprecated and will be removed in future versions. This hook"
        " will be missing some grad_input. Please use register_full_backward_hook"
    )
# one module takes one kind, even after the old hook's handle is removed
linear = nn.Linear(3, 4)
linear.register_backward_hook(keep_grad_input).remove()
try:
    linear.register_full_backward_hook(keep_grad_input)
except RuntimeError as error:
    assert "Cannot use both regular backward hooks and full backward hooks" in str(error)
else:
    raise AssertionError("no error")

# %% full-backward-hook
def show_grads(module, grad_input, grad_output):
    # return nothing: a returned value replaces grad_input
    seen["full"] = grad_input


block = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
block.register_full_backward_hook(show_grads)
x = torch.randn(2, 3, requires_grad=True)
block(x).sum().backward()
print(seen["full"][0].shape, torch.equal(seen["full"][0], x.grad))

# %% full-backward-hook-checks tags=["remove-cell"]
assert torch.equal(seen["full"][0], x.grad)
# a hook that returns a tensor of another size
bad = nn.Linear(3, 2)
bad.register_full_backward_hook(lambda module, gin, gout: (torch.ones(5),))
try:
    bad(x).sum().backward()
except RuntimeError as error:
    assert "has changed the size of value" in str(error), error
else:
    raise AssertionError("no error")
# no in-place change of the module's output with a full hook
try:
    out = block(x)
    out.add_(1)
except RuntimeError as error:
    # BackwardHookFunctionBackward in older releases
    assert "Output 0 of BackwardHookFunction" in str(error), error
    assert "is a view and is being modified inplace" in str(error), error
else:
    raise AssertionError("no error")
out = block(x).clone()
out.add_(1)  # fine on a copy

# %% full-hook-no-input-grad
block(torch.randn(2, 3)).sum().backward()  # no input requires grad: a warning
print(seen["full"])

# %% full-hook-no-input-grad-checks tags=["remove-cell"] holds=">=2.8" claim="A full backward hook warns when no input of its module requires grad"
assert seen["full"] == (None,)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    block(torch.randn(2, 3)).sum().backward()
assert caught[0].category is UserWarning
assert str(caught[0].message).startswith(
    "Full backward hook is firing when gradients are computed with respect to module"
    " outputs since no inputs require gradients."
)

# %% no-grad-hooks
import warnings

calls = []
net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
net[0].register_forward_hook(lambda module, args, out: calls.append("forward"))
net[2].register_full_backward_hook(
    lambda module, grad_input, grad_output: calls.append("module backward")
)
net[0].weight.register_hook(lambda grad: calls.append("tensor"))
net.eval()
x = torch.randn(4, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.no_grad():
        out = net(x)  # no graph is recorded
print(calls, out.requires_grad, out.grad_fn, "warnings:", len(caught))

# %% no-grad-hooks-checks tags=["remove-cell"]
assert calls == ["forward"]
assert not out.requires_grad and out.grad_fn is None
assert not caught, [str(w.message) for w in caught]
# backward() has nothing to go through: the hooks never get a chance
try:
    out.sum().backward()
except RuntimeError as error:
    assert "does not require grad and does not have a grad_fn" in str(error)
else:
    raise AssertionError("backward() ran without a graph")
# a tensor made under no_grad takes no hook either
with torch.no_grad():
    hidden = net[0](x)
try:
    hidden.register_hook(print)
except RuntimeError as error:
    assert "doesn't require gradient" in str(error)
else:
    raise AssertionError("register_hook took a tensor made under no_grad")
# inference_mode: the same, forward hooks only
calls.clear()
with torch.inference_mode():
    net(x)
assert calls == ["forward"]
# a forward pre-hook runs under no_grad too
pre = net[2].register_forward_pre_hook(lambda module, args: calls.append("pre"))
calls.clear()
with torch.no_grad():
    net(x)
pre.remove()
assert calls == ["forward", "pre"]

# %% grad-hooks
calls.clear()
with torch.enable_grad():  # the default outside no_grad; eval() is no obstacle
    out = net(x)
    out.sum().backward()
print(calls, net.training)

# %% grad-hooks-checks tags=["remove-cell"]
assert calls == ["forward", "module backward", "tensor"]
assert not net.training and out.requires_grad
assert net[0].weight.grad is not None
