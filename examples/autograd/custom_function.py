# %% [markdown]
# A custom autograd Function: forward and backward as static methods,
# ctx.save_for_backward, one gradient per input, gradcheck in double
# precision, and once_differentiable

# %% [markdown] lang="zh"
# 自定义 autograd `Function`：`forward` 和 `backward` 写成静态方法，
# 用 `ctx.save_for_backward` 保存张量，每个输入返回一个梯度，
# 用 `gradcheck` 在双精度下检查，以及 `once_differentiable`

# %% exp
import torch
from torch.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)  # exp is its own derivative
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = Exp.apply(x)  # apply, not Exp() or Exp.forward
y.sum().backward()
print(y)
print(x.grad)

# %% exp-checks tags=["remove-cell"]
assert torch.equal(x.grad, x.detach().exp())
assert type(y.grad_fn).__name__ == "ExpBackward"  # the class name + Backward
x.grad = None
x.exp().sum().backward()
assert torch.allclose(x.grad, y.detach())  # the built-in exp agrees

# %% gradcheck
from torch.autograd import gradcheck

x = torch.randn(4, dtype=torch.double, requires_grad=True)
print(gradcheck(Exp.apply, (x,)))

# %% gradcheck-checks tags=["remove-cell"]
assert gradcheck(Exp.apply, (x,)) is True

# %% wrong tags=["raises-exception"]
class WrongExp(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x  # bug: should be x.exp()


gradcheck(WrongExp.apply, (x,))

# %% wrong-checks tags=["remove-cell"]
from torch.autograd.gradcheck import GradcheckError

try:
    gradcheck(WrongExp.apply, (x,))
except GradcheckError as error:
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(
        error
    )
    assert isinstance(error, RuntimeError)
else:
    raise AssertionError("gradcheck should catch the wrong backward")
# raise_exception=False returns False instead
assert gradcheck(WrongExp.apply, (x,), raise_exception=False) is False

# %% float32
import warnings

x32 = torch.randn(4, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ok = gradcheck(Exp.apply, (x32,), raise_exception=False)
print(ok)
print(str(caught[0].message).split(". ")[0])

# %% float32-checks tags=["remove-cell"]
# the same correct Function fails in float32: the finite differences
# with eps=1e-6 are too coarse for its 7 significant digits
assert ok is False
assert gradcheck(Exp.apply, (x32.double(),)) is True
import inspect

assert inspect.signature(gradcheck).parameters["eps"].default == 1e-6
assert "not a double precision" in str(caught[0].message)

# %% two-inputs tags=["raises-exception"]
class ClampMin(Function):
    @staticmethod
    def forward(ctx, x, low):
        ctx.save_for_backward(x)
        ctx.low = low  # a float, not a tensor: store it on ctx
        return x.clamp(min=low)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x >= ctx.low)  # one gradient for two inputs


x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
ClampMin.apply(x, 0.0).sum().backward()

# %% two-inputs-checks tags=["remove-cell"]
try:
    ClampMin.apply(x, 0.0).sum().backward()
except RuntimeError as error:
    assert "returned an incorrect number of gradients (expected 2, got 1)" \
        in str(error)
else:
    raise AssertionError("one gradient for two inputs should raise")

# %% two-inputs-fixed
class ClampMin(Function):
    @staticmethod
    def forward(ctx, x, low):
        ctx.save_for_backward(x)
        ctx.low = low
        return x.clamp(min=low)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (x >= ctx.low)
        return grad_x, None  # None: no gradient for low


ClampMin.apply(x, 0.0).sum().backward()
print(x.grad)

# %% two-inputs-fixed-checks tags=["remove-cell"]
assert torch.equal(x.grad, torch.tensor([0.0, 1.0, 1.0]))
xd = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.double, requires_grad=True)
assert gradcheck(lambda t: ClampMin.apply(t, 0.0), (xd,))
needs = []


class Record(Function):
    @staticmethod
    def forward(ctx, x, low):
        return x.clamp(min=low)

    @staticmethod
    def backward(ctx, grad_output):
        needs.append(ctx.needs_input_grad)
        return grad_output, None


Record.apply(x, 0.0).sum().backward()
assert needs == [(True, False)]

# %% save-float raises="TypeError: save_for_backward can only save variables, but argument 1 is of type float"
class Scale(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.save_for_backward(x, factor)  # factor is a float
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        x, factor = ctx.saved_tensors
        return grad_output * factor, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
Scale.apply(x, 3.0)

# %% save-float-fixed
class Scale(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor  # a number: an attribute of ctx
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor, None  # None: factor is no tensor


Scale.apply(x, 3.0).sum().backward()
print(x.grad)

# %% save-float-fixed-checks tags=["remove-cell"]
assert torch.equal(x.grad, torch.tensor([3.0, 3.0]))
xd = torch.randn(3, dtype=torch.double, requires_grad=True)
assert gradcheck(lambda t: Scale.apply(t, 3.0), (xd,))


# an int is refused the same way, naming its type
class ScaleSaved(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x, k)
        return x * k

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


try:
    ScaleSaved.apply(x, 3)
except TypeError as error:
    assert "argument 1 is of type int" in str(error), error
else:
    raise AssertionError("save_for_backward should refuse an int")


# a gradient instead of None for the number is an error too
class ScaleGrad(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor, torch.ones(())


try:
    ScaleGrad.apply(x, 3.0).sum().backward()
except RuntimeError as error:
    assert "returned a gradient different than None at position 2" in str(error)
else:
    raise AssertionError("a gradient for a float input should raise")


# a factor that is a tensor is saved like x and gets its own gradient
class ScaleTensor(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.save_for_backward(x, factor)
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        x, factor = ctx.saved_tensors
        return grad_output * factor, (grad_output * x).sum()


factor = torch.tensor(3.0, requires_grad=True)
x.grad = None
ScaleTensor.apply(x, factor).sum().backward()
assert torch.equal(x.grad, torch.tensor([3.0, 3.0])) and factor.grad == 3.0

# %% saved
class ExpOnCtx(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.y = y  # bypasses save_for_backward's check
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.y


x = torch.tensor([0.0, 1.0], requires_grad=True)
y = ExpOnCtx.apply(x)
y.mul_(2)  # an in-place change after forward
y.sum().backward()
print(x.grad)
print(2 * x.detach().exp())  # the true gradient of sum(2 * exp(x))

# %% saved-checks tags=["remove-cell"]
assert torch.allclose(x.grad, 4 * x.detach().exp())  # silently twice too big
x.grad = None
y = Exp.apply(x)
y.mul_(2)
try:
    y.sum().backward()
except RuntimeError as error:
    assert "modified by an inplace operation" in str(error)
    assert "output 0 of ExpBackward" in str(error) or "of Exp" in str(error)
else:
    raise AssertionError("save_for_backward should catch the change")

# %% saved-error tags=["raises-exception"]
y = Exp.apply(x)
y.mul_(2)
y.sum().backward()

# %% double
from torch.autograd import gradgradcheck

x = torch.randn(4, dtype=torch.double, requires_grad=True)
(grad,) = torch.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(grad.sum(), x)
print(torch.allclose(second, x.exp()))
print(gradgradcheck(Exp.apply, (x,)))

# %% double-checks tags=["remove-cell"]
assert torch.allclose(second, x.detach().exp())  # exp'' = exp
assert gradgradcheck(Exp.apply, (x,)) is True

# %% once
from torch.autograd.function import once_differentiable


class ExpOnce(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        grad = grad_output.numpy() * y.numpy()  # not recorded by autograd
        return torch.from_numpy(grad)


loss = ExpOnce.apply(x).pow(2).sum()
(grad,) = torch.autograd.grad(loss, x, create_graph=True)
print(torch.allclose(grad, 2 * x.exp() ** 2))

# %% once-checks tags=["remove-cell"]
assert torch.allclose(grad, 2 * x.detach().exp() ** 2)
assert gradcheck(ExpOnce.apply, (x,))
assert grad.requires_grad  # it still has a grad_fn, one that raises
modes = []


class Mode(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        modes.append(torch.is_grad_enabled())
        return grad_output * 2


torch.autograd.grad(Mode.apply(x).pow(2).sum(), x, create_graph=True)
assert modes == [False]  # backward ran without recording a graph
try:
    grad.sum().backward()
except RuntimeError as error:
    assert "marked with @once_differentiable" in str(error)
else:
    raise AssertionError("once_differentiable should refuse")

# %% once-error tags=["raises-exception"]
grad.sum().backward()

# %% setup-context
class ExpFunc(Function):
    @staticmethod
    def forward(x):  # no ctx: forward only computes
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):  # saves what backward needs
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


x = torch.tensor([0.0, 1.0, 2.0])
print(torch.func.grad(lambda t: ExpFunc.apply(t).sum())(x))

# %% setup-context-checks tags=["remove-cell"]
assert torch.allclose(
    torch.func.grad(lambda t: ExpFunc.apply(t).sum())(x), x.exp()
)
x64 = x.double().requires_grad_()
assert gradcheck(ExpFunc.apply, (x64,))
try:
    torch.func.grad(lambda t: Exp.apply(t).sum())(x)
except RuntimeError as error:
    assert "it must override the setup_context staticmethod" in str(error)
else:
    raise AssertionError("torch.func should refuse a forward that takes ctx")

try:  # vmap needs a batching rule
    torch.func.vmap(ExpFunc.apply)(torch.randn(2, 3))
except RuntimeError as error:
    assert "generate_vmap_rule=True" in str(error)
else:
    raise AssertionError("vmap should ask for a batching rule")

# %% setup-context-error tags=["raises-exception"]
torch.func.grad(lambda t: Exp.apply(t).sum())(x)

# %% wrong-shape raises="RuntimeError: Function MyLinearBackward returned an invalid gradient at index 0 - got [1, 3] but expected shape compatible with [1, 4]"
class MyLinear(Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x @ weight.t()  # (1, 4) @ (4, 3): shape (1, 3)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output, grad_output.t() @ x  # bug: the output's shape


x = torch.randn(1, 4, requires_grad=True)
weight = torch.randn(3, 4, requires_grad=True)
MyLinear.apply(x, weight).sum().backward()

# %% wrong-shape-fixed
class MyLinear(Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x @ weight.t()

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grad_x = grad_output @ weight  # (1, 3) @ (3, 4): x's shape
        grad_weight = grad_output.t() @ x  # (3, 1) @ (1, 4): weight's shape
        return grad_x, grad_weight


MyLinear.apply(x, weight).sum().backward()
print(x.grad.shape, weight.grad.shape)

# %% wrong-shape-fixed-checks tags=["remove-cell"]
assert x.grad.shape == x.shape and weight.grad.shape == weight.shape
# the same gradients as the built-in F.linear
import torch.nn.functional as F

x2, w2 = x.detach().requires_grad_(), weight.detach().requires_grad_()
F.linear(x2, w2).sum().backward()
assert torch.allclose(x.grad, x2.grad) and torch.allclose(weight.grad, w2.grad)
xd = torch.randn(2, 4, dtype=torch.double, requires_grad=True)
wd = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
assert gradcheck(MyLinear.apply, (xd, wd))
# "compatible": a gradient the input broadcasts to is summed down to the
# input's shape, without an error; any other shape raises
class Broadcast(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return 2 * grad_output.expand(5, 4)  # (5, 4) for an input of shape (4,)


x = torch.ones(4, requires_grad=True)
Broadcast.apply(x).sum().backward()
assert torch.equal(x.grad, torch.full((4,), 10.0))  # five copies summed


class Flat(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return (2 * grad_output).reshape(2, 2)  # same numel, another shape


try:
    Flat.apply(torch.ones(4, requires_grad=True)).sum().backward()
except RuntimeError as error:
    assert "FlatBackward returned an invalid gradient at index 0" in str(error)
    assert "got [2, 2] but expected shape compatible with [4]" in str(error)
else:
    raise AssertionError("a (2, 2) gradient for a (4,) input should raise")


class WrongWeight(Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x @ weight.t()

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, x.t() @ grad_output  # (4, 3), not (3, 4)


try:  # the index counts forward's inputs: a wrong weight gradient is index 1
    WrongWeight.apply(x2, w2).sum().backward()
except RuntimeError as error:
    assert "returned an invalid gradient at index 1 - got [4, 3]" in str(error)
else:
    raise AssertionError("a transposed weight gradient should raise")

# %% gradient-reversal
class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd  # a number, not a tensor: it may go on ctx
        return x.view_as(x)  # identity: a new tensor on x's data

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lambd * grad_output, None  # None: no gradient for lambd


class GradientReversal(torch.nn.Module):
    def __init__(self, lambd=1.0):
        super().__init__()
        self.lambd = lambd  # may be changed during training

    def forward(self, x):
        return GradReverse.apply(x, self.lambd)


torch.manual_seed(0)
features = torch.nn.Linear(4, 3)
domain_head = torch.nn.Linear(3, 1)
x = torch.randn(8, 4)
domain = torch.randint(0, 2, (8, 1)).float()  # which domain each sample is from


def grads(reverse):
    features.zero_grad()
    domain_head.zero_grad()
    h = features(x)
    if reverse is not None:
        h = reverse(h)
    logits = domain_head(h)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, domain)
    loss.backward()
    return logits, features.weight.grad.clone(), domain_head.weight.grad.clone()


logits, features_grad, head_grad = grads(None)
logits_r, features_grad_r, head_grad_r = grads(GradientReversal(0.5))
print(torch.equal(logits, logits_r))  # forward: unchanged
print(torch.equal(head_grad, head_grad_r))  # the domain head: unchanged
print((features_grad_r / features_grad).unique())  # the features: times -0.5

# %% gradient-reversal-checks tags=["remove-cell"]
# the forward is an identity that shares x's data
t = torch.randn(3, requires_grad=True)
out = GradReverse.apply(t, 1.0)
assert torch.equal(out, t) and out.data_ptr() == t.data_ptr()
assert out is not t and out.grad_fn is not None
# the gradient is -lambd times the incoming one, for several lambd
for lambd in (1.0, 0.5, 2.0):
    t.grad = None
    (GradientReversal(lambd)(t) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert torch.equal(t.grad, -lambd * torch.tensor([1.0, 2.0, 3.0]))
assert torch.equal(logits, logits_r) and torch.equal(head_grad, head_grad_r)
assert torch.allclose(features_grad_r, -0.5 * features_grad)
assert torch.equal(
    (features_grad_r / features_grad).unique(), torch.tensor([-0.5])
)
# on purpose the backward is not the forward's derivative: gradcheck fails
td = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
assert gradcheck(
    lambda a: GradReverse.apply(a, 0.7), (td,), raise_exception=False
) is False

# %% round-no-grad
w = torch.tensor([0.2, 0.7, 1.4, -0.6], requires_grad=True)
w.round().sum().backward()
print(w.grad)  # round is flat between its steps: zero everywhere

# %% round-no-grad-checks tags=["remove-cell"]
assert torch.equal(w.grad, torch.zeros(4))
for op in (torch.floor, torch.ceil, torch.sign, torch.trunc):
    t = torch.tensor([0.2, 0.7, 1.4, -0.6], requires_grad=True)
    op(t).sum().backward()
    assert torch.equal(t.grad, torch.zeros(4)), op

# %% ste-detach
w.grad = None
w_q = w + (w.round() - w).detach()  # the value of round(w), the gradient of w
print(w_q)
(w_q * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(w.grad)  # passed straight through

# %% ste-detach-checks tags=["remove-cell"]
assert torch.equal(w_q, w.detach().round())
assert torch.equal(w.grad, torch.tensor([1.0, 2.0, 3.0, 4.0]))

# %% ste-function
class RoundSTE(Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high  # numbers: on ctx
        return x.round().clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inside = (x >= ctx.low) & (x <= ctx.high)  # zero outside the range
        return grad_output * inside, None, None


w.grad = None
w_q = RoundSTE.apply(w, -1, 1)  # integers from -1 to 1
print(w_q)
(w_q * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(w.grad)

# %% ste-function-checks tags=["remove-cell"]
assert torch.equal(w_q, torch.tensor([0.0, 1.0, 1.0, -1.0]))
# 1.4 is clipped to 1: its gradient is cut, the others pass unchanged
assert torch.equal(w.grad, torch.tensor([1.0, 2.0, 0.0, 4.0]))
# without clipping (a range that holds every value) it is the detach trick
t = torch.tensor([0.2, 0.7, 1.4, -0.6], requires_grad=True)
RoundSTE.apply(t, -10, 10).sum().backward()
t2 = t.detach().clone().requires_grad_()
(t2 + (t2.round() - t2).detach()).sum().backward()
assert torch.equal(t.grad, t2.grad)
