# %% [markdown]
# PyTorch records a graph during the forward pass and walks it backwards in
# backward(); the graph is rebuilt on every run and freed after backward

# %% [markdown] lang="zh"
# PyTorch 在前向传播时记录计算图，在 `backward()` 中沿图反向遍历；
# 计算图每次运行都会重新构建，并在反向传播之后释放

# %% forward-backward
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
y = a * b  # forward: computes y and records how
y.backward()  # backward: dy/da = b, dy/db = a
print(a.grad, b.grad)
assert a.grad == b and b.grad == a

# %% walk-graph
y = a * b + a
print(a.is_leaf, a.grad_fn)
print(y.is_leaf, y.grad_fn.name())
# one (node, output number) pair per input
add_inputs = y.grad_fn.next_functions
print([(type(node).__name__, n) for node, n in add_inputs])
mul_inputs = add_inputs[0][0].next_functions
print([(type(node).__name__, n) for node, n in mul_inputs])
# the leaves they accumulate into
print([node.variable for node, _ in mul_inputs])

# %% walk-graph-checks tags=["remove-cell"]
# AddBackward0 <- (MulBackward0 of a * b, a);
# MulBackward0 <- (a, b); one node per leaf
assert y.grad_fn.name() == "AddBackward0" and a.grad_fn is None
assert [type(node).__name__ for node, _ in add_inputs] == [
    "MulBackward0", "AccumulateGrad"
]
assert [type(node).__name__ for node, _ in mul_inputs] == [
    "AccumulateGrad", "AccumulateGrad"
]
assert mul_inputs[0][0].variable is a and mul_inputs[1][0].variable is b
# the same AccumulateGrad node of a, reached twice
assert add_inputs[1][0] is mul_inputs[0][0]

# %% paths-summed
a.grad = None  # forget the gradient of the first example
y.backward()  # a reaches y along two paths: through a * b and directly
print(a.grad)
assert a.grad == b + 1

# %% dynamic-loop
def double_until(x, limit):
    y = x
    while y < limit:  # a plain Python loop that depends on the data
        y = y * 2
    return y


for start in (3.0, 0.5):
    x = torch.tensor(start, requires_grad=True)
    y = double_until(x, 10)
    y.backward()
    print(f"x={start}: y={y.item()}, dy/dx={x.grad.item()}")

# %% graph-shape
def count_nodes(grad_fn):
    # walk the graph from the output back to the leaves
    if grad_fn is None:
        return 0
    return 1 + sum(count_nodes(fn) for fn, _ in grad_fn.next_functions)


for start in (3.0, 0.5):
    x = torch.tensor(start, requires_grad=True)
    print(f"x={start}: {count_nodes(double_until(x, 10).grad_fn)} nodes")

# %% rebuilt-each-run
x = torch.tensor(1.0, requires_grad=True)
y1 = x * 2
y2 = x * 2  # the same line of code run again
print(y1.grad_fn.name(), y2.grad_fn.name())
print(y1.grad_fn is y2.grad_fn)

# %% backward-twice tags=["raises-exception"]
y = a * b
y.backward()
y.backward()

# %% retain-graph
a.grad = None
y = a * b
y.backward(retain_graph=True)  # keep the saved tensors for another pass
print(a.grad)
y.backward()  # the last pass may free them
print(a.grad)

# %% two-losses
x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)
h = x * w  # shared by both losses
loss1 = h.sum()
loss2 = (h**2).sum()
loss1.backward(retain_graph=True)  # h's part of the graph is still needed
print("after loss1:", w.grad)
grad1 = w.grad.clone()
loss2.backward()
print("after loss2:", w.grad)

# %% one-backward
w.grad = None
h = x * w
(h.sum() + (h**2).sum()).backward()  # one pass, no retain_graph needed
print(w.grad)

# %% non-leaf-grad
a = torch.tensor(2.0, requires_grad=True)
h = a * 3  # not a leaf: made by an operation
y = h**2
y.backward()
print(a.grad, h.grad)

# %% retain-grad
h = a * 3
h.retain_grad()  # before backward
y = h**2
y.backward()
print(h.grad)

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
import warnings

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
assert a.is_leaf and a.grad_fn is None
y = a * b + a
assert not y.is_leaf and type(y.grad_fn).__name__ == "AddBackward0"
mul, acc_a = (fn for fn, _ in y.grad_fn.next_functions)
assert type(mul).__name__ == "MulBackward0"
assert type(acc_a).__name__ == "AccumulateGrad" and acc_a.variable is a
assert [fn.variable for fn, _ in mul.next_functions] == [a, b]
y.backward()
assert a.grad == b + 1 and b.grad == a  # two paths to a are summed

# the loop runs a data-dependent number of times, and the graph follows it
x = torch.tensor(3.0, requires_grad=True)
double_until(x, 10).backward()
assert x.grad == 4  # two doublings
x = torch.tensor(0.5, requires_grad=True)
double_until(x, 10).backward()
assert x.grad == 32  # five doublings
def node_names(grad_fn):
    if grad_fn is None:
        return []
    return [type(grad_fn).__name__] + [
        name for fn, _ in grad_fn.next_functions for name in node_names(fn)
    ]


for start, doublings in ((3.0, 2), (0.5, 5)):
    x = torch.tensor(start, requires_grad=True)
    grad_fn = double_until(x, 10).grad_fn
    assert count_nodes(grad_fn) == doublings + 1
    # one MulBackward0 per pass of the loop, then the leaf's AccumulateGrad
    assert node_names(grad_fn) \
        == ["MulBackward0"] * doublings + ["AccumulateGrad"]

x = torch.tensor(1.0, requires_grad=True)
assert (x * 2).grad_fn is not (x * 2).grad_fn  # a new graph on every run

y = a * b
# saved for backward
assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
y.backward()
try:
    y.grad_fn._saved_self  # freed by backward
except RuntimeError as error:
    assert "after they have already been freed" in str(error)
else:
    raise AssertionError("saved tensors should be freed after backward")
try:
    y.backward()
except RuntimeError as error:
    assert "Trying to backward through the graph a second time" in str(error)
    assert "retain_graph=True" in str(error)
else:
    raise AssertionError("a second backward through a freed graph should fail")

a.grad = None
y = a * b
y.backward(retain_graph=True)
y.backward()
assert a.grad == 2 * b  # the two passes add up

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)
h = x * w
h.sum().backward()  # without retain_graph, the shared part is freed ...
try:
    (h**2).sum().backward()  # ... and the second loss cannot go through it
except RuntimeError as error:
    assert "Trying to backward through the graph a second time" in str(error)
else:
    raise AssertionError("the second loss needs the graph the first one freed")
w.grad = None
h = x * w
h.sum().backward(retain_graph=True)
g1 = w.grad.clone()
assert torch.equal(g1, x)
(h**2).sum().backward()
g2 = 2 * h.detach() * x
assert torch.allclose(w.grad, g1 + g2)  # .grad holds the sum of both passes
w2 = w.detach().clone().requires_grad_()
h2 = x * w2
(h2.sum() + (h2**2).sum()).backward()
assert torch.allclose(w2.grad, w.grad)  # same as one backward of the sum

a = torch.tensor(2.0, requires_grad=True)
h = a * 3
(h**2).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert h.grad is None
assert len(caught) == 1 and caught[0].category is UserWarning
assert "not a leaf Tensor is being accessed" in str(caught[0].message)
assert "retain_grad()" in str(caught[0].message)
assert a.grad == 2 * 6 * 3
h = a * 3
h.retain_grad()
(h**2).backward()
assert h.grad == 12 and not h.is_leaf
