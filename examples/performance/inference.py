# %% [markdown]
# Inference: inference_mode() against no_grad(),
# what each forbids afterwards, eval() and batching

# %% [markdown] lang="zh"
# 推理：`inference_mode()` 与 `no_grad()` 的区别、二者之后各自不允许做什么、
# `eval()`，以及按 batch 推理

# %% model
import time

import torch
from torch import nn

model = nn.Sequential(
    nn.Linear(8, 24),
    nn.BatchNorm1d(24),
    nn.ReLU(),
    nn.Dropout(p=0.2),
    nn.Linear(24, 2),
)
x = torch.randn(32, 8)

# %% modes
model.eval()
with torch.no_grad():
    y_no_grad = model(x)
with torch.inference_mode():
    y_inference = model(x)
print("no_grad:       ", y_no_grad.requires_grad, y_no_grad.is_inference())
print("inference_mode:", y_inference.requires_grad, y_inference.is_inference())
print(torch.equal(y_no_grad, y_inference))

# %% modes-checks tags=["remove-cell"]
assert not y_no_grad.requires_grad and not y_inference.requires_grad
assert y_inference.is_inference() and not y_no_grad.is_inference()
# the same numbers, a different kind of tensor
assert torch.equal(y_no_grad, y_inference)
# both modes end with their block
assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()

# %% reading-is-fine
print(y_inference.argmax(dim=1)[:8])
print((y_inference * 2).is_inference(), y_inference.clone().is_inference())

# %% reading-is-fine-checks tags=["remove-cell"]
assert torch.equal(y_inference.argmax(dim=1), y_no_grad.argmax(dim=1))
# outside the block, an op on an inference
# tensor gives a normal tensor, clone() too
assert not (y_inference * 2).is_inference()
assert not y_inference.clone().is_inference()
assert torch.equal(y_inference.clone(), y_inference)

# %% inplace tags=["raises-exception"]
y_inference.add_(1)

# %% requires-grad tags=["raises-exception"]
y_inference.requires_grad_()

# %% into-training tags=["raises-exception"]
head = nn.Linear(2, 1)  # a trainable layer that takes the predictions as input
head(y_inference).sum().backward()

# %% no-grad-allows
y_no_grad.add_(1)  # a normal tensor: in place is fine
head(y_no_grad).sum().backward()
print(head.weight.grad is not None)
head.zero_grad()
head(y_inference.clone()).sum().backward()  # the fix the message suggests
print(head.weight.grad is not None)

# %% forbidden-checks tags=["remove-cell"]
def fails(action, *words):
    try:
        action()
    except RuntimeError as error:
        assert all(w in str(error) for w in words), str(error)
    else:
        raise AssertionError("should have raised")


fails(
    lambda: y_inference.add_(1),
    "Inplace update to inference tensor outside InferenceMode"
)
with torch.inference_mode():
    fresh = torch.zeros(2)
fails(lambda: fresh.add_(1), "Inplace update to inference tensor")
# torch 2.13 raises after the update: it happened
assert torch.equal(fresh, torch.ones(2))
fails(
    lambda: y_inference.requires_grad_(),
    "requires_grad=True on inference tensor"
)
fails(
    lambda: head(y_inference), "Inference tensors cannot be saved for backward"
)
fails(lambda: y_inference._version, "do not track version counter")
assert head.weight.grad is not None  # the clone() worked
with torch.inference_mode():
    y_inference.add_(1)  # inside inference mode it is allowed

# %% dropout-needs-eval
model.train()
with torch.inference_mode():
    first, second = model(x), model(x)
print("train():", torch.equal(first, second))
model.eval()
with torch.inference_mode():
    first, second = model(x), model(x)
print("eval(): ", torch.equal(first, second))

# %% dropout-needs-eval-checks tags=["remove-cell"]
model.train()
with torch.inference_mode():
    # Dropout still drops in inference_mode
    assert not torch.equal(model(x), model(x))
model.eval()
with torch.inference_mode():
    assert torch.equal(model(x), model(x))

# %% batch-of-one tags=["raises-exception"]
model.train()  # forgot eval()
with torch.inference_mode():
    model(x[:1])

# %% batching
model.eval()
with torch.inference_mode():
    batched = model(x)
    one_by_one = torch.cat([model(x[i : i + 1]) for i in range(len(x))])
print(torch.allclose(batched, one_by_one, atol=1e-6))

# %% batching-checks tags=["remove-cell"]
assert torch.allclose(batched, one_by_one, atol=1e-6)
model.train()
with torch.no_grad():  # in train mode BatchNorm uses the batch's statistics
    assert not torch.allclose(model[:3](x)[:4], model[:3](x[:4]), atol=1e-3)
try:
    model(x[:1])
except ValueError as error:
    assert "Expected more than 1 value per channel when training" in str(error)
else:
    raise AssertionError("BatchNorm1d in train() should refuse a batch of one")
model.eval()


# %% batching-speed tags=["varies"]
def best_of(repeats, action):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


with torch.inference_mode():
    t_batched = best_of(5, lambda: model(x))
    t_single = best_of(5, lambda: [model(x[i : i + 1]) for i in range(len(x))])
print(f"one batch of {len(x)}: {t_batched * 1e6:.0f} µs")
ratio = t_single / t_batched
print(f"{len(x)} batches of 1: {t_single * 1e6:.0f} µs ({ratio:.0f}x)")

# %% batching-speed-checks tags=["remove-cell"]
assert t_single > 2 * t_batched  # 32 calls pay the per-call overhead 32 times

# %% quantize-dynamic
import io

model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
model.eval()
quantized = torch.ao.quantization.quantize_dynamic(
    model, {nn.Linear}, dtype=torch.qint8  # which layers, which dtype
)
print(quantized)

# %% quantize-dynamic-checks tags=["remove-cell"]
assert isinstance(model[0], nn.Linear)  # a copy: the model is unchanged
dynamic_linear = torch.ao.nn.quantized.dynamic.Linear
assert isinstance(quantized[0], dynamic_linear)
assert isinstance(quantized[2], dynamic_linear)
assert quantized[0].weight().dtype == torch.qint8
# int8 kernels for CPUs: fbgemm (x86) or qnnpack (ARM)
import warnings

# LSTM and GRU layers too (the warnings are the cell's above)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    rnn = torch.ao.quantization.quantize_dynamic(
        nn.Sequential(nn.LSTM(8, 8), nn.GRU(8, 8)), {nn.LSTM, nn.GRU}
    )
assert isinstance(rnn[0], torch.ao.nn.quantized.dynamic.LSTM)
assert isinstance(rnn[1], torch.ao.nn.quantized.dynamic.GRU)
assert {"fbgemm", "x86", "qnnpack"} & set(torch.backends.quantized.supported_engines)

# %% quantize-size
def size_kib(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return round(buffer.getbuffer().nbytes / 1024)


print(size_kib(model), "KiB ->", size_kib(quantized), "KiB")
x = torch.randn(32, 512)
with torch.inference_mode():
    expected, got = model(x), quantized(x)
error = (got - expected).abs().max() / expected.abs().max()
print("largest error, relative:",
      "under 5 %" if error < 0.05 else "5 % or more")

# %% quantize-size-checks tags=["remove-cell"]
assert size_kib(quantized) < 0.3 * size_kib(model)  # about a quarter
assert error < 0.05 and error > 0  # close, not equal
assert (got.argmax(1) == expected.argmax(1)).float().mean() > 0.8

# %% prune-size
import os

from torch.nn.utils import prune


def saved_kib(obj, path):
    torch.save(obj, path)
    return int(round(os.path.getsize(path) / 1024, -1))  # to the nearest 10 KiB


torch.manual_seed(0)
layer = nn.Linear(512, 512)
print("dense: ", saved_kib(layer.state_dict(), "dense.pt"), "KiB",
      sorted(layer.state_dict()))
# zero the smallest 90 %
prune.l1_unstructured(layer, name="weight", amount=0.9)
print("pruned:", saved_kib(layer.state_dict(), "pruned.pt"), "KiB",
      sorted(layer.state_dict()))
prune.remove(layer, "weight")  # keep the zeros, drop weight_orig and the mask
print("remove:", saved_kib(layer.state_dict(), "removed.pt"), "KiB",
      sorted(layer.state_dict()))
print(layer.weight.shape, layer.weight.layout,
      f"{(layer.weight == 0).float().mean().item():.0%} zeros")

# %% prune-size-checks tags=["remove-cell"]
dense_kib = saved_kib(nn.Linear(512, 512).state_dict(), "check.pt")
assert dense_kib == saved_kib(layer.state_dict(), "removed.pt")  # not smaller
assert saved_kib(layer.state_dict(), "removed.pt") == 1030
# while pruned, the file holds weight_orig and a float mask: about twice the size
assert abs(os.path.getsize("pruned.pt") / 1024 - 2 * dense_kib) <= 20
# while pruned, weight is recomputed from weight_orig * weight_mask by a hook
torch.manual_seed(0)
hooked = nn.Linear(512, 512)
prune.l1_unstructured(hooked, name="weight", amount=0.9)
assert isinstance(hooked.weight_orig, nn.Parameter)
assert not isinstance(hooked.weight, nn.Parameter)
assert hooked.weight_mask.dtype == torch.float32  # the mask: as big as the weight
assert torch.equal(hooked.weight, hooked.weight_orig * hooked.weight_mask)
assert len(hooked._forward_pre_hooks) == 1 and prune.is_pruned(hooked)
# after remove: a dense Parameter of the same shape, 90 % zeros
assert not prune.is_pruned(layer) and isinstance(layer.weight, nn.Parameter)
assert layer.weight.layout == torch.strided and layer.weight.shape == (512, 512)
assert (layer.weight == 0).sum().item() == round(0.9 * 512 * 512)
assert torch.equal(layer.weight, hooked.weight)
# the forward is the same dense matmul on a weight with zeros
x = torch.randn(4, 512)
assert torch.allclose(
    layer(x), x @ layer.weight.t() + layer.bias
)
# a sparse tensor keeps only the nonzeros, with two int64 indices each:
# at 90 % zeros its file is about half the dense one
sparse_kib = saved_kib(layer.weight.detach().to_sparse(), "sparse.pt")
assert 0.4 * dense_kib < sparse_kib < 0.6 * dense_kib

# %% prune-structured
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 16))
# whole rows
prune.ln_structured(model[0], name="weight", amount=0.5, n=2, dim=0)
prune.remove(model[0], "weight")
keep = model[0].weight.abs().sum(dim=1) != 0  # the 256 neurons left
small = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 16))
with torch.no_grad():
    small[0].weight.copy_(model[0].weight[keep])
    small[0].bias.copy_(model[0].bias[keep])
    small[2].weight.copy_(model[2].weight[:, keep])
    # a pruned neuron still outputs relu(bias): fold it into the next bias
    dropped = torch.relu(model[0].bias[~keep])
    small[2].bias.copy_(model[2].bias + model[2].weight[:, ~keep] @ dropped)
print(model[0].weight.shape, "->", small[0].weight.shape)
print(saved_kib(model.state_dict(), "model.pt"), "KiB ->",
      saved_kib(small.state_dict(), "small.pt"), "KiB")
x = torch.randn(32, 512)
with torch.inference_mode():
    print(torch.allclose(model(x), small(x), atol=1e-5))

# %% prune-structured-checks tags=["remove-cell"]
assert keep.sum().item() == 256
assert small[0].weight.shape == (256, 512) and small[2].weight.shape == (16, 256)
assert saved_kib(small.state_dict(), "small.pt") \
    < 0.55 * saved_kib(model.state_dict(), "model.pt")
with torch.inference_mode():
    assert torch.allclose(model(x), small(x), atol=1e-5)

# %% half-inference
import copy

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)).eval()
x = torch.randn(128, 64)
with torch.inference_mode():
    reference = model(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):  # weights stay float32
        autocast_out = model(x)
    bf16_out = copy.deepcopy(model).bfloat16()(x.bfloat16())  # input too
    half_out = copy.deepcopy(model).half()(x.half())
outputs = {"float32": reference, "autocast bfloat16": autocast_out,
           "model.bfloat16()": bf16_out, "model.half()": half_out}
for name, out in outputs.items():
    diff = (out.float() - reference).abs().max().item()
    same = (out.argmax(dim=1) == reference.argmax(dim=1)).float().mean().item()
    print(f"{name:17} {str(out.dtype):14} max difference {diff:.0e}, "
          f"same class {same:.0%}")

# %% half-inference-checks tags=["remove-cell"]
assert reference.dtype == torch.float32
assert autocast_out.dtype == bf16_out.dtype == torch.bfloat16
assert half_out.dtype == torch.float16
assert all(p.dtype == torch.float32 for p in model.parameters())  # untouched
diffs = {name: (out.float() - reference).abs().max().item()
         for name, out in outputs.items()}
# measured: about 4e-3 for bfloat16, 4e-4 for float16
assert 0 < diffs["autocast bfloat16"] < 2e-2 and 0 < diffs["model.bfloat16()"] < 2e-2
assert 0 < diffs["model.half()"] < 3e-3
assert diffs["model.half()"] < diffs["model.bfloat16()"]  # float16: more precise
assert 4 < diffs["model.bfloat16()"] / diffs["model.half()"] < 25  # about ten times
assert torch.finfo(torch.bfloat16).eps == 2**-7
assert torch.finfo(torch.float16).eps == 2**-10
assert 0.5 < reference.abs().max().item() < 1.2
assert torch.autocast("cpu").fast_dtype == torch.bfloat16  # the CPU's default
for out in outputs.values():
    assert torch.equal(out.argmax(dim=1), reference.argmax(dim=1))
# a float32 input to a converted model is a dtype error
try:
    copy.deepcopy(model).bfloat16()(x)
except RuntimeError:
    pass
else:
    raise AssertionError("a bfloat16 model took a float32 input")

# %% half-in-place
converted = model.half()
print(converted is model, model[0].weight.dtype)

# %% half-in-place-checks tags=["remove-cell"]
assert converted is model and model[2].weight.dtype == torch.float16
assert model.to(torch.float32) is model and model[0].weight.dtype == torch.float32

# %% batch-bits
torch.manual_seed(0)
layer = nn.Linear(256, 256).eval()
x = torch.randn(64, 256)
with torch.inference_mode():
    batched = layer(x)
    one_by_one = torch.cat([layer(x[i : i + 1]) for i in range(len(x))])
print("torch.equal:", torch.equal(batched, one_by_one))
print(f"largest difference: {(batched - one_by_one).abs().max().item():.0e}")
print("allclose, default atol=1e-8:", torch.allclose(batched, one_by_one))
print("allclose, atol=1e-5:", torch.allclose(batched, one_by_one, atol=1e-5))

# %% batch-bits-checks tags=["remove-cell"]
assert not torch.equal(batched, one_by_one)
assert (batched - one_by_one).abs().max() < 1e-5
assert not torch.allclose(batched, one_by_one)
assert torch.allclose(batched, one_by_one, atol=1e-5)
# the elements that fail the default tolerance are the small ones
failed = ~torch.isclose(batched, one_by_one)
assert batched[failed].abs().max() < 0.1 < batched.abs().max()

# %% static-quant
import warnings

import torch.ao.quantization as tq


def quantize_static(model, batches):
    model.eval()
    model.qconfig = tq.get_default_qconfig("x86")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecation warnings shown above
        tq.prepare(model, inplace=True)  # adds observers
        with torch.no_grad():
            for x in batches:  # calibration: the observers record value ranges
                model(x)
        return tq.convert(model, inplace=True)  # swaps in the int8 layers


torch.manual_seed(0)
batches = [torch.randn(8, 3, 16, 16) for _ in range(4)]
model = nn.Sequential(
    tq.QuantStub(),  # float -> quint8
    nn.Conv2d(3, 8, 3), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2),
    tq.DeQuantStub(),  # quint8 -> float
)
quantize_static(model, batches)
print([type(layer).__name__ for layer in model])
x = torch.randn(2, 3, 16, 16)
print(model(x).dtype, tuple(model(x).shape))

# %% static-quant-checks tags=["remove-cell"]
assert isinstance(model[1], torch.ao.nn.quantized.Conv2d)
assert isinstance(model[5], torch.ao.nn.quantized.Linear)
assert model(x).dtype == torch.float32 and model(x).shape == (2, 2)
assert model[0](x).dtype == torch.quint8  # the stub quantizes

# %% static-no-stubs
bare = quantize_static(nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU()), batches)
try:
    bare(x)  # a float tensor reaches an int8 conv
except NotImplementedError as error:
    stubless = f"{type(error).__name__}: {error}"
    print(stubless.split(". ")[0] + ". …")

# %% static-no-stubs-checks tags=["remove-cell"]
assert stubless.startswith("NotImplementedError: Could not run 'quantized::conv2d.new' "
                           "with arguments from the 'CPU' backend")
assert "'quantized::conv2d.new' is only available for these backends: [" in stubless
assert "QuantizedCPU" in stubless.split("only available for these backends")[1]

# %% static-float-layer
mixed = nn.Sequential(tq.QuantStub(), nn.Conv2d(3, 8, 3), nn.Conv2d(8, 8, 3),
                      tq.DeQuantStub())
mixed[2].qconfig = None  # keep this layer in float
quantize_static(mixed, batches)
try:
    mixed(x)  # an int8 tensor reaches a float conv
except (RuntimeError, NotImplementedError) as error:
    line = f"{type(error).__name__}: {error}"
    print(line.splitlines()[0][:100])

# %% static-float-layer-checks tags=["remove-cell"]
assert line.startswith((
    "RuntimeError: Input type (c10::quint8) and bias type (float) should be the same",
    "NotImplementedError: Could not run 'aten::thnn_conv2d_forward' with arguments "
    "from the 'QuantizedCPU' backend",
))

# %% static-float-fix
fixed = nn.Sequential(tq.QuantStub(), nn.Conv2d(3, 8, 3),
                      tq.DeQuantStub(),  # back to float before the float layer
                      nn.Conv2d(8, 8, 3))
fixed[3].qconfig = None
quantize_static(fixed, batches)
print(fixed(x).dtype, tuple(fixed(x).shape))

# %% static-float-fix-checks tags=["remove-cell"]
assert isinstance(fixed[1], torch.ao.nn.quantized.Conv2d)
assert type(fixed[3]) is nn.Conv2d and fixed(x).dtype == torch.float32
