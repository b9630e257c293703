# %% [markdown]
# Mixed precision: autocast runs some ops in bfloat16 or float16 and others in
# float32, the weights stay float32, and GradScaler scales the loss for float16;
# why autocast may not be faster, float16 LayerNorm on the CPU, and TF32 through
# torch.set_float32_matmul_precision

# %% [markdown] lang="zh"
# 混合精度：`autocast` 让一部分运算以 bfloat16 或 float16 执行，
# 其余仍用 float32；权重始终是 float32；用 float16 时由 `GradScaler` 缩放损失；
# 另外说明 autocast 为什么可能不提速、CPU 上 float16 的 LayerNorm，以及用
# `torch.set_float32_matmul_precision` 打开 TF32

# %% setup
import math

import torch
from torch import nn
from torch.nn import functional as F

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
x = torch.randn(32, 8)
y = torch.randint(0, 4, (32,))

# %% autocast-cpu
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x)
    loss = F.cross_entropy(out, y)
loss.backward()  # outside the autocast block

print("output:", out.dtype)
print("loss:", loss.dtype)
print("weight:", model[0].weight.dtype)
print("gradient:", model[0].weight.grad.dtype)

# %% autocast-cpu-checks tags=["remove-cell"]
assert out.dtype == torch.bfloat16 and loss.dtype == torch.float32
assert model[0].weight.dtype == torch.float32 == model[0].weight.grad.dtype
# nothing converted
assert all(p.dtype == torch.float32 for p in model.parameters())

# %% which-ops
a, b = torch.randn(4, 4), torch.randn(4, 4)  # float32
low = a.bfloat16()
with torch.autocast("cpu", dtype=torch.bfloat16):
    dtypes = {
        # matrix products run in bfloat16, even from float32 inputs
        "a @ b": a @ b,
        "F.linear(a, b)": F.linear(a, b),
        # some ops run in float32, even from bfloat16 inputs
        "F.cross_entropy(low, y)": F.cross_entropy(low, y[:4]),
        "F.mse_loss(low, a)": F.mse_loss(low, a),
        # the others run in their inputs' type
        "torch.exp(a)": torch.exp(a),
        "torch.exp(low)": torch.exp(low),
        "low.softmax(-1)": low.softmax(-1),
        "low + a": low + a,
    }
for op, result in dtypes.items():
    print(f"{op:24} {result.dtype}")

# %% which-ops-checks tags=["remove-cell"]
d = {op: result.dtype for op, result in dtypes.items()}
assert d["a @ b"] == d["F.linear(a, b)"] == torch.bfloat16
assert d["F.cross_entropy(low, y)"] == d["F.mse_loss(low, a)"] == torch.float32
assert d["torch.exp(a)"] == torch.float32
assert d["torch.exp(low)"] == d["low.softmax(-1)"] == torch.bfloat16
assert d["low + a"] == torch.float32  # ordinary type promotion
assert (a @ b).dtype == torch.float32  # outside the block, nothing changes

# %% leaving-autocast tags=["raises-exception"]
head = nn.Linear(4, 2)  # float32, used after the autocast block
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x)
head(out)

# %% leaving-autocast-checks tags=["remove-cell"]
try:
    head(out)
except RuntimeError as error:
    assert "same dtype" in str(error)
else:
    raise AssertionError("a bfloat16 input to a float32 Linear should fail")
assert head(out.float()).dtype == torch.float32

# %% leaving-autocast-fix
print(head(out.float()).dtype)  # or run head inside the block too

# %% formats
for dtype in [torch.float16, torch.bfloat16, torch.float32]:
    info = torch.finfo(dtype)
    print(
        f"{str(dtype):15} max {info.max:.3g}"
        f"  smallest normal {info.tiny:.3g}  eps {info.eps:.3g}"
    )

# in turn: a small gradient, a large activation, precision near 1
print(torch.tensor(1e-8).half(), torch.tensor(1e-8).bfloat16())
print(torch.tensor(70000.0).half(), torch.tensor(70000.0).bfloat16())
print(torch.tensor(1.001).half(), torch.tensor(1.001).bfloat16())

# %% formats-checks tags=["remove-cell"]
assert torch.finfo(torch.float16).max == 65504
# same range
assert torch.finfo(torch.bfloat16).tiny == torch.finfo(torch.float32).tiny
assert torch.finfo(torch.bfloat16).eps == 2**-7 \
    and torch.finfo(torch.float16).eps == 2**-10
assert torch.tensor(1e-8).half() == 0 and torch.tensor(1e-8).bfloat16() != 0
assert torch.isinf(torch.tensor(70000.0).half())
assert torch.isfinite(torch.tensor(70000.0).bfloat16())
assert torch.tensor(1.001).bfloat16() == 1 and torch.tensor(1.001).half() != 1

# %% low-precision-weights
weight = torch.ones(3, dtype=torch.bfloat16)
update = torch.full((3,), 1e-3)  # lr * gradient
print(weight - update.bfloat16())  # the update is lost
print(torch.ones(3) - update)  # float32 keeps it
print(torch.ones(3) - 1e-8)  # but loses one below half its own gap, too

# %% low-precision-weights-checks tags=["remove-cell"]
assert torch.equal(weight - update.bfloat16(), weight)
assert not torch.equal(torch.ones(3) - update, torch.ones(3))
# the gaps between neighbouring values just above 1 (half that below 1)
bf16_gap = torch.finfo(torch.bfloat16).eps  # 2**-7, about 0.008
fp32_gap = torch.finfo(torch.float32).eps  # 2**-23, about 1.2e-7
assert bf16_gap == 2**-7 and fp32_gap == 2**-23
# an update lands when it is more than half the gap
one = torch.ones(1)
assert (one + 0.6 * fp32_gap) != one and (one + 0.4 * fp32_gap) == one
bf16_one = torch.ones(1, dtype=torch.bfloat16)
assert (bf16_one + torch.tensor(0.6 * bf16_gap).bfloat16()) != bf16_one
assert (bf16_one + torch.tensor(0.4 * bf16_gap).bfloat16()) == bf16_one
assert (one - 0.6 * fp32_gap / 2) != one and (one - 0.4 * fp32_gap / 2) == one
assert torch.equal(torch.ones(3) - 1e-8, torch.ones(3))  # 1e-8 < 2**-25

# %% scaler-underflow
torch.manual_seed(0)
model = nn.Linear(8, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def weight_gradient(scaler=None):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().sum() * 1e-8  # a tiny loss: tiny gradients
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()  # backward of loss * 65536
        scaler.unscale_(optimizer)  # then gradients / 65536, in float32
    return model.weight.grad.clone()


plain = weight_gradient()
scaled = weight_gradient(torch.amp.GradScaler("cpu"))
print("without scaler:", plain.abs().max().item())
print("with scaler:   ", scaled.abs().max().item())

# %% scaler-underflow-checks tags=["remove-cell"]
assert torch.equal(plain, torch.zeros_like(plain))  # underflowed to zero
assert (scaled != 0).all()
# the float32 gradient, without autocast
reference = nn.Linear(8, 4)
reference.load_state_dict(model.state_dict())
(reference(x).sum() * 1e-8).backward()
assert torch.allclose(scaled, reference.weight.grad, rtol=1e-2)
# the weights' gradients are float32: the zeros come from inside the
# float16 backward (the gradient of the output, 1e-8, is no float16)
assert plain.dtype == torch.float32
assert torch.tensor(1e-8).half() == 0 \
    and torch.tensor(1e-8 * 65536).half() != 0

# %% scaler-loop
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")  # torch.amp.GradScaler("cuda") on a GPU

for step in range(3):
    with torch.autocast("cpu", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()  # backward of loss * scale
    scaler.unscale_(optimizer)  # gradients / scale, in place; before clipping
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)  # skipped if a gradient is inf or nan
    scaler.update()  # the next step's scale
    print(f"step {step}: loss {loss.item():.4f}, scale {scaler.get_scale()}")

# %% scaler-loop-checks tags=["remove-cell"]
# no overflow: kept (it grows after 2000 steps)
assert scaler.get_scale() == 65536.0
assert scaler.get_growth_interval() == 2000 \
    and scaler.get_backoff_factor() == 0.5
scaled = scaler.scale(loss)
assert torch.equal(scaled, loss * 65536.0)
assert scaler.get_growth_factor() == 2.0
# step() unscales by itself when unscale_
# was not called: the same update either way
twins = []
for explicit in (True, False):
    torch.manual_seed(0)
    net = nn.Linear(8, 4)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sc = torch.amp.GradScaler("cpu")
    with torch.autocast("cpu", dtype=torch.float16):
        sc.scale(F.cross_entropy(net(x), y)).backward()
    if explicit:
        sc.unscale_(opt)
    sc.step(opt)
    twins.append(net.weight.detach().clone())
assert torch.equal(twins[0], twins[1])

# %% scaler-overflow
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**24)  # too large on purpose
history = []

# until two steps in a row are taken
while len(history) < 2 or not (history[-2][1] and history[-1][1]):
    before = model[0].weight.detach().clone()
    scale = scaler.get_scale()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    finite = all(p.grad.isfinite().all() for p in model.parameters())
    scaler.step(optimizer)
    scaler.update()
    stepped = not torch.equal(before, model[0].weight)
    history.append((scale, finite, stepped, scaler.get_scale()))
    print(f"scale 2**{int(math.log2(scale))}: "
          f"finite gradients {finite}, optimizer stepped {stepped}")

# %% scaler-overflow-checks tags=["remove-cell"]
assert any(not finite for _, finite, _, _ in history)  # overflowed at first
assert history[-1][1]  # and then found a scale that fits
for scale, finite, stepped, next_scale in history:
    assert stepped == finite  # a step with inf gradients is skipped
    assert next_scale == (scale if finite else scale / 2)  # backoff_factor=0.5

# %% activation-overflow
model = nn.Linear(8, 1)
nn.init.constant_(model.weight, 100.0)
big = torch.full((4, 8), 100.0)  # 8 * 100 * 100 = 80000 > 65504
target = torch.zeros(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
rows = []

for step in range(3):
    before = model.weight.detach().clone()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(big)  # the activation overflows, whatever the scale
        loss = F.mse_loss(out, target)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    stepped = not torch.equal(before, model.weight)
    rows.append((out, stepped, scaler.get_scale()))
    print(f"activation {out[0].item()}, loss {loss.item()}, "
          f"stepped {stepped}, next scale {scaler.get_scale()}")

with torch.autocast("cpu", dtype=torch.bfloat16):
    print("in bfloat16:", model(big)[0].item())

# %% activation-overflow-checks tags=["remove-cell"]
for out, stepped, _ in rows:
    assert out.dtype == torch.float16 and torch.isinf(out).all()
    assert not stepped  # every step skipped
assert [scale for _, _, scale in rows] == [2.0**15, 2.0**14, 2.0**13]
assert torch.equal(model.weight, torch.full((1, 8), 100.0))
with torch.autocast("cpu", dtype=torch.bfloat16):
    assert torch.isfinite(model(big)).all()
# the same overflow without any scaler: it is in the forward pass
with torch.autocast("cpu", dtype=torch.float16):
    assert torch.isinf(model(big)).all()
    with torch.autocast("cpu", enabled=False):  # a float32 island
        assert model(big).dtype == torch.float32
        assert torch.isfinite(model(big)).all()

# %% cuda-float16 tags=["requires-cuda"]
device = torch.device("cuda")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
x, y = x.to(device), y.to(device)

for step in range(3):
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(x)
        loss = F.cross_entropy(out, y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.4f}, scale {scaler.get_scale()}")

print("output:", out.dtype, "loss:", loss.dtype)
print("weight:", model[0].weight.dtype, "gradient:", model[0].weight.grad.dtype)
with torch.autocast("cuda", dtype=torch.float16):
    probabilities = out.softmax(-1)  # float32 on CUDA, unlike on the CPU
print("softmax:", probabilities.dtype)
print("bfloat16 supported:", torch.cuda.is_bf16_supported())
assert out.dtype == torch.float16 and loss.dtype == torch.float32
assert probabilities.dtype == torch.float32
assert model[0].weight.dtype == torch.float32 == model[0].weight.grad.dtype

# %% cuda-amp-deprecated
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cuda.amp.autocast()  # the spelling of older tutorials
    torch.cuda.amp.GradScaler()
for warning in caught:
    if warning.category is FutureWarning:
        print(warning.message)

with warnings.catch_warnings(record=True) as renamed:
    warnings.simplefilter("always")
    torch.amp.autocast("cuda", dtype=torch.float16)  # the same, renamed
    torch.amp.GradScaler("cuda")
print("FutureWarnings:", sum(w.category is FutureWarning for w in renamed))

# %% cuda-amp-deprecated-checks tags=["remove-cell"]
future = [str(w.message) for w in caught if w.category is FutureWarning]
assert len(future) == 2 and all("is deprecated" in m for m in future)
assert "torch.amp.autocast('cuda', args...)" in future[0]
assert "torch.amp.GradScaler('cuda', args...)" in future[1]
assert not [w for w in renamed if w.category is FutureWarning]
# the old names are the new classes with the device filled in
assert issubclass(torch.cuda.amp.autocast, torch.amp.autocast)
assert issubclass(torch.cuda.amp.GradScaler, torch.amp.GradScaler)
# without a GPU they also disable themselves, with a warning each; on a GPU
# the FutureWarnings are all there is
disabled = [w for w in caught if "CUDA is not available" in str(w.message)]
assert len(disabled) == (0 if torch.cuda.is_available() else 2)
assert len(caught) == len(future) + len(disabled)

# %% multiple-of-8
def not_multiple_of_8(model):
    found = []
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            for size in (module.in_features, module.out_features):
                if size % 8:
                    found.append((name, size))
    return found


vocab = 30522  # BERT's vocabulary
model = nn.Sequential(nn.Linear(64, 100), nn.ReLU(), nn.Linear(100, vocab))
print(not_multiple_of_8(model))
padded = -(-vocab // 8) * 8  # rounded up to a multiple of 8
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, padded))
print(not_multiple_of_8(model), padded)

# %% multiple-of-8-checks tags=["remove-cell"]
assert vocab % 8 == 2 and padded == 30528 and padded % 8 == 0
assert padded - vocab < 8  # the smallest multiple of 8 above
assert not_multiple_of_8(model) == []

# %% layernorm-half
x = torch.randn(4, 8).half()
norm = nn.LayerNorm(8).half()
try:
    print(norm(x).dtype)
except RuntimeError as error:  # where float16 LayerNorm has no CPU kernel
    print(error)

# %% layernorm-half-checks tags=["remove-cell"]
# float16 LayerNorm runs on the CPU: no "not implemented for 'Half'"
out = norm(x)
assert out.dtype == torch.float16 and out.device.type == "cpu"
reference = nn.LayerNorm(8)(x.float())
assert torch.allclose(out.float(), reference, atol=1e-2)
# and float16 autocast on the CPU hands LayerNorm a float16 input
model = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8))
with torch.autocast("cpu", dtype=torch.float16):
    assert model[0](x.float()).dtype == model(x.float()).dtype == torch.float16

# %% layernorm-fixes
model = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8))
x = torch.randn(4, 8)
# 1. autocast with bfloat16: the weights stay float32
with torch.autocast("cpu", dtype=torch.bfloat16):
    print(model(x).dtype)
# 2. LayerNorm kept in float32, the rest in float16
linear, norm = nn.Linear(8, 8).half(), nn.LayerNorm(8)
h = linear(x.half())
print(h.dtype, norm(h.float()).dtype)

# %% layernorm-fixes-checks tags=["remove-cell"]
assert torch.autocast("cpu").fast_dtype == torch.bfloat16  # the CPU's default
assert all(p.dtype == torch.float32 for p in model.parameters())
# on the CPU, autocast runs LayerNorm in its input's type
with torch.autocast("cpu", dtype=torch.bfloat16):
    assert model[0](x).dtype == model(x).dtype == torch.bfloat16
    assert model[1](x).dtype == torch.float32  # float32 in, float32 out
assert norm.weight.dtype == torch.float32

# %% matmul-precision
print("default:", torch.get_float32_matmul_precision(),
      "allow_tf32:", torch.backends.cuda.matmul.allow_tf32)
for precision in ["high", "medium", "highest"]:  # "highest" is the default
    torch.set_float32_matmul_precision(precision)
    print(f"{precision:8} allow_tf32: {torch.backends.cuda.matmul.allow_tf32}")

# %% matmul-precision-checks tags=["remove-cell"]
assert torch.get_float32_matmul_precision() == "highest"  # restored
assert not torch.backends.cuda.matmul.allow_tf32
for precision, tf32 in [("high", True), ("medium", True), ("highest", False)]:
    torch.set_float32_matmul_precision(precision)
    assert torch.backends.cuda.matmul.allow_tf32 is tf32
# the other way round: allow_tf32 = True reads back as "high"
torch.backends.cuda.matmul.allow_tf32 = True
assert torch.get_float32_matmul_precision() == "high"
torch.backends.cuda.matmul.allow_tf32 = False
assert torch.get_float32_matmul_precision() == "highest"
# convolutions have their own flag, on by default and left alone
assert torch.backends.cudnn.allow_tf32
# the output stays float32: only the GPU's internal computation changes
torch.set_float32_matmul_precision("high")
assert (torch.randn(4, 4) @ torch.randn(4, 4)).dtype == torch.float32
torch.set_float32_matmul_precision("highest")
assert torch.get_float32_matmul_precision() == "highest"

# %% two-optimizers
torch.manual_seed(0)
x = torch.randn(32, 8)
y_a, y_b = torch.randint(0, 4, (32,)), torch.randint(0, 2, (32,))
model_a, model_b = nn.Linear(8, 4), nn.Linear(8, 2)
optimizer_a = torch.optim.SGD(model_a.parameters(), lr=0.1)
optimizer_b = torch.optim.Adam(model_b.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu")  # one scaler for both
start_a = model_a.weight.detach().clone()
start_b = model_b.weight.detach().clone()

for step in range(3):
    with torch.autocast("cpu", dtype=torch.float16):
        loss_a = F.cross_entropy(model_a(x), y_a)
        loss_b = F.cross_entropy(model_b(x), y_b)
    optimizer_a.zero_grad()
    optimizer_b.zero_grad()
    scaler.scale(loss_a).backward()  # each loss scaled
    scaler.scale(loss_b).backward()
    scaler.unscale_(optimizer_a)  # before clipping model_a's gradients
    nn.utils.clip_grad_norm_(model_a.parameters(), max_norm=1.0)
    scaler.step(optimizer_a)  # a step for each optimizer
    scaler.step(optimizer_b)
    scaler.update()  # once, after every step
    print(f"step {step}: losses {loss_a.item():.4f} {loss_b.item():.4f}, "
          f"scale {scaler.get_scale()}")
print("model_a moved:", not torch.equal(start_a, model_a.weight))
print("model_b moved:", not torch.equal(start_b, model_b.weight))

# %% two-optimizers-checks tags=["remove-cell"]
assert scaler.get_scale() == 65536.0  # no overflow: kept
assert not torch.equal(start_a, model_a.weight)
assert not torch.equal(start_b, model_b.weight)
# unscale_ once per optimizer and iteration: a second call raises
with torch.autocast("cpu", dtype=torch.float16):
    loss_a = F.cross_entropy(model_a(x), y_a)
optimizer_a.zero_grad()
scaler.scale(loss_a).backward()
scaler.unscale_(optimizer_a)
try:
    scaler.unscale_(optimizer_a)
except RuntimeError as error:
    assert "unscale_() has already been called on this optimizer since the " \
        "last update()" in str(error)
else:
    raise AssertionError("a second unscale_ went through")
scaler.step(optimizer_a)
scaler.update()
# each step() looks at its own optimizer's gradients: an inf in model_b's
# skips optimizer_b alone, and update() halves the scale once
before_a = model_a.weight.detach().clone()
before_b = model_b.weight.detach().clone()
with torch.autocast("cpu", dtype=torch.float16):
    loss_a = F.cross_entropy(model_a(x), y_a)
    loss_b = F.cross_entropy(model_b(x), y_b)
optimizer_a.zero_grad()
optimizer_b.zero_grad()
scaler.scale(loss_a).backward()
scaler.scale(loss_b).backward()
model_b.weight.grad[0, 0] = float("inf")  # as an overflow would leave it
scaler.step(optimizer_a)
scaler.step(optimizer_b)
scaler.update()
assert not torch.equal(before_a, model_a.weight)
assert torch.equal(before_b, model_b.weight)
assert scaler.get_scale() == 32768.0

# %% update-between
def change_of_b(update_between):
    torch.manual_seed(0)
    model_a, model_b = nn.Linear(8, 4), nn.Linear(8, 2)
    optimizer_a = torch.optim.SGD(model_a.parameters(), lr=0.1)
    optimizer_b = torch.optim.SGD(model_b.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    before = model_b.weight.detach().clone()
    with torch.autocast("cpu", dtype=torch.float16):
        loss_a = F.cross_entropy(model_a(x), y_a)
        loss_b = F.cross_entropy(model_b(x), y_b)
    scaler.scale(loss_a).backward()
    scaler.scale(loss_b).backward()
    scaler.unscale_(optimizer_a)
    scaler.unscale_(optimizer_b)
    scaler.step(optimizer_a)
    if update_between:
        scaler.update()  # forgets that optimizer_b's gradients are unscaled
    scaler.step(optimizer_b)  # and divides them by the scale again
    scaler.update()
    return (model_b.weight - before).abs().max().item()


right, wrong = change_of_b(False), change_of_b(True)
print(f"update() once:         model_b's weights change by {right:.1e}")
print(f"update() between them: model_b's weights change by {wrong:.1e}")
print(f"ratio: 2**{round(math.log2(right / wrong))}")

# %% update-between-checks tags=["remove-cell"]
assert math.isclose(right / wrong, 65536.0, rel_tol=1e-2)  # the scale

# %% unscale-fp16 raises="ValueError: Attempting to unscale FP16 gradients."
torch.manual_seed(0)
model = nn.Linear(8, 4).half()  # the weights themselves become float16
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    loss = F.cross_entropy(model(x), y_a)
optimizer.zero_grad()
scaler.scale(loss).backward()
print("gradient:", model.weight.grad.dtype)
scaler.step(optimizer)

# %% unscale-fp16-checks tags=["remove-cell"]
assert model.weight.dtype == model.weight.grad.dtype == torch.float16
# unscale_ refuses the same gradients, before step() does anything
try:
    scaler.unscale_(optimizer)
except ValueError as error:
    assert str(error) == "Attempting to unscale FP16 gradients."
else:
    raise AssertionError("unscale_ took float16 gradients")
# a float16 model without any scaler steps: the refusal is the scaler's
before = model.weight.detach().clone()
optimizer.step()
assert not torch.equal(before, model.weight)

# %% unscale-fp16-fix
torch.manual_seed(0)
model = nn.Linear(8, 4)  # float32: the weights the optimizer updates
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
before = model.weight.detach().clone()
with torch.autocast("cpu", dtype=torch.float16):  # float16 computations
    out = model(x)
    loss = F.cross_entropy(out, y_a)
optimizer.zero_grad()
scaler.scale(loss).backward()
scaler.step(optimizer)
scaler.update()
print("output:", out.dtype)
print("weight:", model.weight.dtype, "gradient:", model.weight.grad.dtype)
print("stepped:", not torch.equal(before, model.weight))

# %% unscale-fp16-fix-checks tags=["remove-cell"]
assert out.dtype == torch.float16
assert model.weight.dtype == model.weight.grad.dtype == torch.float32
assert not torch.equal(before, model.weight)
assert scaler.get_scale() == 65536.0  # no overflow: the step was taken

# %% no-inf-checks raises="AssertionError: No inf checks were recorded for this optimizer."
torch.manual_seed(0)
model = nn.Linear(8, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model = nn.Linear(8, 4)  # a new model: the optimizer still holds the old one
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    loss = F.cross_entropy(model(x), y_a)
optimizer.zero_grad()
scaler.scale(loss).backward()
held = optimizer.param_groups[0]["params"]
print("gradients of the optimizer's parameters:", [p.grad for p in held])
scaler.step(optimizer)

# %% no-inf-checks-checks tags=["remove-cell"]
assert all(p.grad is None for p in held)
assert all(p.grad is not None for p in model.parameters())
# every parameter of the optimizer frozen: the same error
frozen = nn.Linear(8, 4)
for p in frozen.parameters():
    p.requires_grad_(False)
head = nn.Linear(4, 4)
optimizer = torch.optim.SGD(frozen.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale(F.cross_entropy(head(frozen(x)), y_a)).backward()
try:
    scaler.step(optimizer)
except AssertionError as error:
    assert str(error) == "No inf checks were recorded for this optimizer."
else:
    raise AssertionError("step() took an optimizer without gradients")

# %% no-inf-checks-fix
torch.manual_seed(0)
model = nn.Linear(8, 4)
# after the model is final
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
before = model.weight.detach().clone()
with torch.autocast("cpu", dtype=torch.float16):
    loss = F.cross_entropy(model(x), y_a)
optimizer.zero_grad()
scaler.scale(loss).backward()
params = [p for g in optimizer.param_groups for p in g["params"]]
has_grad = any(p.grad is not None for p in params)
if has_grad:  # an optimizer whose parameters got no gradient: skip its step
    scaler.step(optimizer)
scaler.update()
print("has gradients:", has_grad)
print("stepped:", not torch.equal(before, model.weight))

# %% no-inf-checks-fix-checks tags=["remove-cell"]
assert has_grad and not torch.equal(before, model.weight)

# %% scale-none raises="AssertionError: Attempted step but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
model = nn.Linear(8, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loss = F.cross_entropy(model(x), y_a)
loss.backward()  # not scaler.scale(loss).backward()
scaler.step(optimizer)

# %% apex-to-amp
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# amp.initialize(model, optimizer, opt_level="O1") becomes:
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)  # "cuda" on a GPU
for step in range(2):
    with torch.autocast("cpu", dtype=torch.float16):  # O1's casts
        loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    # amp.scale_loss(loss, optimizer) and scaled_loss.backward() become:
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
print(model[0].weight.dtype, scaler.get_scale())

# amp.state_dict() in a checkpoint becomes scaler.state_dict()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict()}, "checkpoint.pt")
checkpoint = torch.load("checkpoint.pt", weights_only=True)
resumed = torch.amp.GradScaler("cpu")
resumed.load_state_dict(checkpoint["scaler"])
print(resumed.get_scale())

# %% apex-to-amp-checks tags=["remove-cell"]
assert model[0].weight.dtype == torch.float32  # fp32 weights, as O1 keeps them
assert scaler.get_scale() == 2.0**19  # one overflow: halved once
assert resumed.get_scale() == scaler.get_scale()
assert resumed.state_dict() == scaler.state_dict()
assert {"scale", "growth_factor", "backoff_factor", "growth_interval",
        "_growth_tracker"} == set(checkpoint["scaler"])

# %% autocast-no-gpu
import warnings

model = nn.Linear(8, 4)
x = torch.randn(4, 8)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autocast("cuda", dtype=torch.float16):  # "cuda" hard-coded
        out = model(x)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
print("CUDA available:", torch.cuda.is_available(), "output:", out.dtype)

# %% autocast-no-gpu-checks tags=["remove-cell"]
# the input is on the CPU: float32 whether or not a GPU is there
assert out.dtype == torch.float32
if torch.cuda.is_available():
    assert caught == []
else:
    assert [w.category for w in caught] == [UserWarning]
    assert "CUDA is not available" in str(caught[0].message)
    assert "Disabling" in str(caught[0].message)
    # disabled: inside the block, autocast is off for CUDA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autocast("cuda", dtype=torch.float16):
            assert not torch.is_autocast_enabled("cuda")
    # GradScaler("cuda") does the same: a warning, and it scales nothing
    with warnings.catch_warnings(record=True) as scaler_caught:
        warnings.simplefilter("always")
        scaler = torch.amp.GradScaler("cuda")
    assert not scaler.is_enabled()
    assert [w.category for w in scaler_caught] == [UserWarning]
    assert "CUDA is not available" in str(scaler_caught[0].message)
    loss = model(x).sum()
    assert scaler.scale(loss) is loss

# %% autocast-portable
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 4).to(device)
x = x.to(device)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
        out = model(x)
print(device.type, "output:", out.dtype, "warnings:", len(caught))
print("weight:", model.weight.dtype)

# %% autocast-portable-checks tags=["remove-cell"]
assert out.dtype == torch.bfloat16 and caught == []
assert model.weight.dtype == torch.float32
assert out.device.type == device.type

# %% autocast-device-object raises="ValueError: Expected `device_type` of type `str`, got: `<class 'torch.device'>`"
with torch.autocast(device, dtype=torch.bfloat16):  # wrong: a torch.device
    out = model(x)
