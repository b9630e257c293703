# %% [markdown]
# Gradient clipping: clip_grad_norm_ returns the norm
# before clipping, clip_grad_value_ clamps each element;
# clip after unscaling with AMP; find where a NaN starts

# %% [markdown] lang="zh"
# 梯度裁剪：`clip_grad_norm_` 返回裁剪前的范数，`clip_grad_value_` 逐元素截断；
# 用 AMP 时先 unscale 再裁剪；找出 NaN 最早出现在哪里

# %% setup
import torch
from torch import nn

model = nn.Linear(3, 1)
x = torch.randn(8, 3) * 100  # large inputs, large gradients
y = torch.randn(8, 1)
loss = nn.functional.mse_loss(model(x), y)
loss.backward()
grads = [p.grad.clone() for p in model.parameters()]
print([g.norm().item() for g in grads])

# %% clip-norm
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total)  # the norm of all gradients together, before clipping
param_norms = torch.stack([p.grad.norm() for p in model.parameters()])
after = torch.linalg.vector_norm(param_norms)
print(after)

# %% clip-norm-checks tags=["remove-cell"] holds=">=2.6" claim="`nn.utils.get_total_norm` gives the norm of all gradients together, without clipping them"
before = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))
# the returned norm is the one before clipping
assert torch.allclose(total, before)
assert total > 1.0
assert torch.allclose(after, torch.tensor(1.0), atol=1e-5)
# every gradient scaled by one factor
for g, p in zip(grads, model.parameters()):
    assert torch.allclose(p.grad, g * (1.0 / (total + 1e-6)))
# the norm without clipping, and how the page spells it for torch < 2.6
assert torch.equal(nn.utils.get_total_norm(grads), total)
norms = torch.stack([torch.linalg.vector_norm(g) for g in grads])
assert torch.equal(torch.linalg.vector_norm(norms), total)

# %% clip-norm-small
model.weight.grad = torch.tensor([[0.3, 0.0, -0.4]])
model.bias.grad = torch.tensor([0.0])
print(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
print(model.weight.grad)

# %% clip-norm-small-checks tags=["remove-cell"]
# untouched
assert torch.equal(model.weight.grad, torch.tensor([[0.3, 0.0, -0.4]]))

# %% clip-value
model.weight.grad = torch.tensor([[3.0, 0.05, -0.4]])
model.bias.grad = torch.tensor([-2.0])
print(nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1))
print(model.weight.grad, model.bias.grad)

# %% clip-value-checks tags=["remove-cell"]
assert nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1) is None
assert torch.equal(model.weight.grad, torch.tensor([[0.1, 0.05, -0.1]]))
assert torch.equal(model.bias.grad, torch.tensor([-0.1]))

# %% exploding holds=">=2.6" claim="`nn.utils.get_total_norm` logs the norm of the unclipped run, whose loss overflows to `inf`"
torch.manual_seed(0)
x = torch.randn(32, 3) * 10
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])


def train(max_norm, steps=30):
    torch.manual_seed(1)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses, norms = [], []
    for step in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        # after backward, before step
        if max_norm is None:  # measure only: the gradients stay as they are
            grads = [p.grad for p in model.parameters()]
            norm = nn.utils.get_total_norm(grads)
        else:
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        losses.append(loss.item())
        norms.append(norm.item())
    return losses, norms


for max_norm in [None, 1.0]:
    losses, norms = train(max_norm)
    print("not clipped" if max_norm is None else f"max_norm={max_norm}")
    print("  loss:", [f"{v:.3g}" for v in losses[::6]])
    print("  norm:", [f"{v:.3g}" for v in norms[::6]])

# %% exploding-checks tags=["remove-cell"] holds=">=2.6" claim="The norm logged with `nn.utils.get_total_norm` explodes steps before the unclipped loss overflows, while the clipped loss falls"
import math

unclipped, unclipped_norms = train(None)
clipped, clipped_norms = train(1.0)
assert unclipped[1] > unclipped[0]  # grows from the first step
assert all(b > a for a, b in zip(unclipped[:16], unclipped[1:16]))
assert unclipped[-1] == math.inf  # and overflows to inf, not nan
assert all(map(math.isfinite, clipped)) and clipped[-1] < clipped[0]
assert all(b < a for a, b in zip(clipped, clipped[1:]))  # falls at every step
# the norm before clipping, logged
assert clipped_norms[0] == unclipped_norms[0] > 1.0
# clipped at every step: SGD steps of lr * 1.0
assert all(n > 1.0 for n in clipped_norms)
first_inf = next(i for i, v in enumerate(unclipped) if v == math.inf)
assert next(i for i, n in enumerate(unclipped_norms) if n > 1e6) < first_inf

# %% max-norm-inf holds=">=2.6" claim="`nn.utils.get_total_norm` of gradients whose squares overflow is `inf`"
torch.manual_seed(1)  # the unclipped run above, up to its step 16
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(17):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    if step < 16:
        optimizer.step()
grads = [p.grad for p in model.parameters()]
largest = max(g.abs().max().item() for g in grads)
print(f"largest gradient: {largest:.3g}")
print("all finite:", all(g.isfinite().all().item() for g in grads))
print("total norm:", nn.utils.get_total_norm(grads))  # the squares overflow
nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf"))
print(model.weight.grad, model.bias.grad)  # each times inf / inf = nan

# %% max-norm-inf-checks tags=["remove-cell"] holds=">=2.6" claim="`max_norm=inf` turns finite gradients into `nan` where `nn.utils.get_total_norm` measures `inf`"
assert torch.isnan(model.weight.grad).all() and torch.isnan(model.bias.grad)
# a float32 number whose square is past float32's largest, 3.4e38
big = torch.tensor([2e19, 1.0])
assert big.isfinite().all() and (big * big)[0].isinf()
assert nn.utils.get_total_norm([big]).isinf()
# the factor clip_grad_norm_ multiplies by, whatever the norm
inf = torch.tensor(math.inf)
assert torch.clamp(inf / (inf + 1e-6), max=1.0).isnan()
assert torch.clamp(inf / (torch.tensor(276.0) + 1e-6), max=1.0) == 1.0
# in the run itself: max_norm=inf turns finite gradients into nan at step
# 16, and the run's loss is nan from step 17, where measuring keeps inf
torch.manual_seed(1)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
turned_nan = []
for step in range(18):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    finite = all(p.grad.isfinite().all() for p in model.parameters())
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf"))
    nan = all(p.grad.isnan().all() for p in model.parameters())
    if finite and nan:
        turned_nan.append(step)
    optimizer.step()
assert turned_nan == [16], turned_nan
assert math.isnan(loss.item()) and unclipped[17] == math.inf
# get_total_norm and clip_grad_norm_ return the same norm
assert unclipped_norms[:16] == train(float("inf"))[1][:16]

# %% adam
def adam_steps(gradients, max_norm):
    w = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.Adam([w], lr=0.1)
    steps = []
    for gradient in gradients:
        w.grad = gradient.clone()
        if max_norm is not None:
            nn.utils.clip_grad_norm_([w], max_norm)
        before = w.detach().clone()
        optimizer.step()
        steps.append(round((w.detach() - before)[0].item(), 4))
    return steps, optimizer.state[w]["exp_avg_sq"]


small = torch.tensor([0.5, -0.5])
spike = torch.tensor([100.0, 100.0])  # one huge gradient, at step 4
gradients = [small] * 3 + [spike] + [small] * 3
for max_norm in [None, 1.0]:
    steps, exp_avg_sq = adam_steps(gradients, max_norm)
    label = "not clipped" if max_norm is None else f"max_norm={max_norm}"
    print(f"{label}: steps of w[0] {steps}")
    print(f"    exp_avg_sq after: {exp_avg_sq[0].item():.3g}")

# %% adam-checks tags=["remove-cell"]
unclipped, unclipped_sq = adam_steps(gradients, None)
clipped, clipped_sq = adam_steps(gradients, 1.0)
# before the spike: steps of lr, whatever the gradient (0.5 here)
assert unclipped[:3] == clipped[:3] == [-0.1] * 3
# no step much longer than lr, clipped or not: Adam bounds it by itself
assert all(abs(v) <= 0.1 * 1.01 for v in unclipped + clipped)
# a gradient 100 times larger makes no longer first step
assert adam_steps([spike], None)[0] == adam_steps([small], 1.0)[0] \
    == [-0.1]
# clipped, Adam's step does not change: the update is normalised
assert adam_steps([spike], 1.0)[0] == adam_steps([spike], None)[0]
# what clipping changes: the spike's weight in the running averages
assert unclipped_sq[0] > 1000 * clipped_sq[0]
# so the unclipped run's steps shrink after the spike
assert all(abs(u) < 0.6 * abs(c) for u, c in zip(unclipped[4:], clipped[4:]))
assert all(abs(b) < abs(a) for a, b in zip(unclipped[3:], unclipped[4:]))
assert all(abs(c) > 0.095 for c in clipped)  # near lr
assert 4000 < unclipped_sq[0] / clipped_sq[0] < 6000  # about 5000 times
# the default betas, with which the spike still outweighs a small
# gradient's square (0.25) a thousand steps later
assert torch.optim.Adam([torch.zeros(1)]).defaults["betas"] == (0.9, 0.999)
assert unclipped_sq[0] * 0.999**1000 > 10 * 0.25

# %% nonfinite
model = nn.Linear(3, 1)
model.weight.grad = torch.tensor([[float("inf"), 0.5, -0.4]])
model.bias.grad = torch.tensor([0.1])
print(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
print(model.weight.grad, model.bias.grad)

# %% nonfinite-checks tags=["remove-cell"]
assert torch.isnan(model.weight.grad[0, 0])  # inf * 0
assert torch.equal(model.weight.grad[0, 1:].abs(), torch.zeros(2))
# the finite ones are wiped out
assert torch.equal(model.bias.grad, torch.zeros(1))

# %% nonfinite-error raises="RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped"
model.weight.grad = torch.tensor([[float("inf"), 0.5, -0.4]])
params = model.parameters()
nn.utils.clip_grad_norm_(params, max_norm=1.0, error_if_nonfinite=True)

# %% nonfinite-error-checks tags=["remove-cell"]
try:
    nn.utils.clip_grad_norm_(
        model.parameters(), max_norm=1.0, error_if_nonfinite=True
    )
except RuntimeError as error:
    assert "is non-finite, so it cannot be clipped" in str(error)
    # untouched
    assert torch.equal(model.weight.grad[0, 1:], torch.tensor([0.5, -0.4]))
else:
    raise AssertionError(
        "error_if_nonfinite=True should raise on an inf gradient"
    )
# a nan gradient makes a nan norm: the same error
model.weight.grad = torch.tensor([[float("nan"), 0.5, -0.4]])
try:
    nn.utils.clip_grad_norm_(
        model.parameters(), max_norm=1.0, error_if_nonfinite=True
    )
except RuntimeError as error:
    assert "is non-finite, so it cannot be clipped" in str(error)
else:
    raise AssertionError(
        "error_if_nonfinite=True should raise on a nan gradient"
    )
# without it, a nan gradient turns every gradient into nan
nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
assert torch.isnan(model.weight.grad).all() and torch.isnan(model.bias.grad).all()

# %% amp-wrong holds=">=2.6" claim="Before `unscale_`, `nn.utils.get_total_norm` shows the gradients still multiplied by the scale"
torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(8, 3), torch.randn(8, 1)

with torch.autocast("cpu", dtype=torch.float16):
    loss = nn.functional.mse_loss(model(x), y)
scaler.scale(loss).backward()
print(scaler.get_scale())
# the gradients are still multiplied by the scale
scaled = nn.utils.get_total_norm([p.grad for p in model.parameters()])
print(scaled)

# %% amp-right
scaler.unscale_(optimizer)  # divides the gradients by the scale, in place
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total)
scaler.step(optimizer)  # knows they are unscaled: does not divide again
scaler.update()

# %% amp-checks tags=["remove-cell"] holds=">=2.6" claim="After `unscale_`, `clip_grad_norm_` clips the true norm, the one `nn.utils.get_total_norm` measures in float32" about="amp-wrong"
assert scaler.get_scale() == 65536.0 == 2.0**16  # the default init_scale, kept
tiny = torch.tensor(1e-8)
assert tiny.half() == 0 and (tiny * 65536).half() != 0  # why the loss is scaled
assert torch.allclose(scaled / 65536.0, total)  # unscale_ divided by the scale
torch.manual_seed(0)
reference = nn.Linear(3, 1)
nn.functional.mse_loss(reference(x), y).backward()  # float32, no scaler
fp32_norm = nn.utils.get_total_norm([p.grad for p in reference.parameters()])
# the true norm, up to float16
assert torch.allclose(total, fp32_norm, rtol=1e-2)
assert total > 1.0  # so this step was clipped
after = torch.linalg.vector_norm(
    torch.stack([p.grad.norm() for p in model.parameters()])
)
assert torch.allclose(after, torch.tensor(1.0), atol=1e-5)
# the mistake: clipping the scaled gradients to
# 1.0 leaves a 65536th of that once unscaled
torch.manual_seed(0)
wrong = nn.Linear(3, 1)
wrong_optimizer = torch.optim.SGD(wrong.parameters(), lr=0.1)
wrong_scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    wrong_scaler.scale(nn.functional.mse_loss(wrong(x), y)).backward()
nn.utils.clip_grad_norm_(wrong.parameters(), max_norm=1.0)
wrong_scaler.unscale_(wrong_optimizer)
unscaled = nn.utils.get_total_norm([p.grad for p in wrong.parameters()])
assert torch.allclose(unscaled, torch.tensor(1.0 / 65536.0))

# %% anomaly-silent
w = torch.zeros(2, requires_grad=True)
loss = (w**2).sum().sqrt()  # the length of w: 0 here
loss.backward()
print(loss, w.grad)

# %% anomaly-silent-checks tags=["remove-cell"]
assert loss.item() == 0.0 and torch.isfinite(loss)  # nothing shows in the loss
assert torch.isnan(w.grad).all()  # 2 * w * inf = 0 * inf

# %% anomaly tags=["raises-exception"]
import warnings

w = torch.zeros(2, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:  # kept for the next cell
    with torch.autograd.detect_anomaly():
        loss = (w**2).sum().sqrt()
        loss.backward()

# %% anomaly-warning
messages = [str(item.message) for item in caught]
lines = next(m for m in messages if m.startswith("Error detected")).splitlines()
print(lines[0])
# then every frame of the program, down to the forward line of our own code
at = next(i for i, line in enumerate(lines) if "(w**2).sum().sqrt()" in line)
print(lines[at].strip())

# %% anomaly-checks tags=["remove-cell"]
assert lines[0].startswith("Error detected in PowBackward0.")
# our own frame: this file's, or a notebook cell's as IPython names it
frame = lines[at - 1]
assert "gradient_clipping" in frame or "ipykernel_" in frame \
    or "ipython-input" in frame
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():
            w = torch.zeros(2, requires_grad=True)
            (w**2).sum().sqrt().backward()
    except RuntimeError as error:
        assert "Function 'PowBackward0' returned nan values in its 0th output" \
            in str(error)
    else:
        raise AssertionError("anomaly mode should raise on a NaN gradient")
messages = [str(warning.message) for warning in caught]
assert any(
    "Error detected in PowBackward0" in m and "Traceback of forward call" in m
    for m in messages
), messages
# and it says it is slow
assert any("increase the runtime" in m for m in messages)
assert not torch.is_anomaly_enabled()  # only inside the block
torch.autograd.set_detect_anomaly(True)  # for the whole program
assert torch.is_anomaly_enabled()
torch.autograd.set_detect_anomaly(False)

# %% no-underscore
import warnings

torch.manual_seed(0)
model = nn.Linear(3, 1)
x, y = torch.randn(8, 3) * 100, torch.randn(8, 1)
nn.functional.mse_loss(model(x), y).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    total = nn.utils.clip_grad_norm(model.parameters(), max_norm=1.0)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print(total)

# %% no-underscore-checks tags=["remove-cell"]
assert [w.category for w in caught] == [FutureWarning]
assert "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of " \
    "`torch.nn.utils.clip_grad_norm_`" in str(caught[0].message)
# it clipped the gradients in place, as clip_grad_norm_ does
assert total > 1.0
after = torch.linalg.vector_norm(
    torch.stack([p.grad.norm() for p in model.parameters()])
)
assert torch.allclose(after, torch.tensor(1.0), atol=1e-5)
# the same norm as clip_grad_norm_, and no warning from that one
torch.manual_seed(0)
twin = nn.Linear(3, 1)
nn.functional.mse_loss(twin(x), y).backward()
with warnings.catch_warnings(record=True) as quiet:
    warnings.simplefilter("always")
    assert torch.equal(nn.utils.clip_grad_norm_(twin.parameters(), 1.0), total)
assert quiet == []

# %% foreach
def clip(foreach):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    nn.functional.mse_loss(model(x), y).backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=foreach)
    return total, [p.grad for p in model.parameters()]


results = {foreach: clip(foreach) for foreach in (None, False, True)}
for foreach, (total, grads) in results.items():
    print(f"foreach={foreach}: norm {total.item():.4f}, "
          f"first gradient {grads[0][0, 0].item():.6f}")

# %% foreach-checks tags=["remove-cell"]
default, plain, fused = results[None], results[False], results[True]
for total, grads in (plain, fused):
    assert torch.allclose(total, default[0], rtol=1e-6)
    assert all(torch.allclose(a, b, rtol=1e-6, atol=1e-9)
               for a, b in zip(grads, default[1]))
# foreach=True on a device without foreach kernels raises; None falls back
weight = torch.zeros(3, device="meta", requires_grad=True)
weight.grad = torch.zeros(3, device="meta")
try:
    nn.utils.clip_grad_norm_([weight], 1.0, foreach=True)
except RuntimeError as error:
    assert str(error) == ("foreach=True was passed, but can't use the "
                          "foreach API on meta tensors")
else:
    raise AssertionError("foreach=True should raise on the meta device")
assert nn.utils.clip_grad_norm_([weight], 1.0).device.type == "meta"
# what the page quotes of the documentation; clip_grad_value_ takes foreach too
import inspect

doc = " ".join(nn.utils.clip_grad_norm_.__doc__.split())
assert "the faster foreach-based implementation" in doc
assert "use the foreach implementation for CUDA and CPU native tensors" in doc
assert "foreach" in inspect.signature(nn.utils.clip_grad_value_).parameters
