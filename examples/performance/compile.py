# %% [markdown]
# torch.compile: the first call compiles (measured against later calls),
# graph breaks, recompilation on a new shape and dynamic=, modes

# %% [markdown] lang="zh"
# `torch.compile`：第一次调用时编译（与之后的调用比较耗时）、图中断、
# 遇到新形状时的重新编译与 `dynamic=`、各种 `mode`

# %% first-call tags=["varies"]
import time

import torch
import torch._dynamo
import torch._inductor.config
from torch.utils import benchmark

# for this site's build only: skip inductor's probe of the CPU's vector
# instructions (about ten test programs to compile, seconds more for the
# first compile of a process)
torch._inductor.config.cpp.vec_isa_ok = True


def f(x):
    return torch.sin(x) ** 2 + torch.cos(x) ** 2


compiled = torch.compile(f)
x = torch.randn(10_000)

start = time.perf_counter()
y = compiled(x)  # traces f, generates C++ and compiles it
first = time.perf_counter() - start
timer = benchmark.Timer("compiled(x)", globals=globals())
later = timer.blocked_autorange().median
print(f"first call: {first:.2f} s")
print(f"later call: {later * 1e6:.0f} µs")
print(f"ratio:      {first / later:,.0f}")

# %% first-call-checks tags=["remove-cell"] holds=">=2.6" claim="`torch._inductor.runtime.cache_dir_utils.cache_dir()` names the folder where inductor keeps the code it generates" about="first-call"
import os

from torch._inductor.runtime.cache_dir_utils import cache_dir

assert torch.allclose(y, f(x)) and torch.allclose(y, torch.ones_like(x))
assert first > 100 * later  # seconds against microseconds
assert os.listdir(cache_dir())  # the generated code, kept for the next process
assert os.path.basename(cache_dir()).startswith("torchinductor_") \
    or os.environ.get("TORCHINDUCTOR_CACHE_DIR")
# the C++ compiler: $CXX, otherwise g++
# (clang++ on macOS); none there is an error
import sys

from torch._inductor import cpp_builder, exc

default_cxx = "clang++" if sys.platform == "darwin" else "g++"
assert torch._inductor.config.cpp.cxx[-1] == os.environ.get("CXX", default_cxx)
with torch._inductor.config.patch({"cpp.cxx": ("no-such-compiler",)}):
    try:
        cpp_builder.get_cpp_compiler()
    except exc.InvalidCxxCompiler:
        pass
    else:
        raise AssertionError("a missing compiler should be an error")

# %% graph-break
def g(x):
    y = x * 2
    # the branch depends on the values: Python must look at them
    if y.sum() > 0:
        return y + 1
    return y - 1


explanation = torch._dynamo.explain(g)(torch.randn(8))
print("graphs:      ", explanation.graph_count)
print("graph breaks:", explanation.graph_break_count)
print("break at:    ", explanation.break_reasons[0].user_stack[-1].line)

# %% graph-break-checks tags=["remove-cell"]
assert explanation.graph_count == 2 and explanation.graph_break_count == 1
assert explanation.break_reasons[0].user_stack[-1].line == "if y.sum() > 0:"


# %% branchless
def g_branchless(x):
    y = x * 2
    return torch.where(y.sum() > 0, y + 1, y - 1)


explanation = torch._dynamo.explain(g_branchless)(torch.randn(8))
print("graphs:      ", explanation.graph_count)
print("graph breaks:", explanation.graph_break_count)

# %% branchless-checks tags=["remove-cell"]
assert explanation.graph_count == 1 and explanation.graph_break_count == 0
for _ in range(5):
    t = torch.randn(8)
    assert torch.equal(g_branchless(t), g(t))

# %% fullgraph
try:
    torch.compile(g, fullgraph=True, backend="eager")(torch.randn(8))
except torch._dynamo.exc.Unsupported as error:
    # the reason, an explanation, hints, where
    message = str(error).splitlines()
    print(f"{type(error).__name__}: {message[0]}")
    print(message[1].strip())

# %% fullgraph-checks tags=["remove-cell"] holds=">=2.7" claim="With `fullgraph=True`, a graph break raises `Unsupported` with its reason, an explanation and hints"
assert message[0] == "Data-dependent branching"
assert message[1].strip().startswith(
    "Explanation: Detected data-dependent branching"
)
assert any(line.strip().startswith("Hint:") for line in message)
# where, in the user's code
assert any("if y.sum() > 0:" in line for line in message)
torch._dynamo.reset()


# %% recompile
def counting(sizes):
    def backend(graph, example_inputs):  # called once per compilation
        sizes.append(len(example_inputs))
        return graph.forward

    return backend


def h(x):
    return (x * 2).relu().sum()


for dynamic in (None, False, True):
    torch._dynamo.reset()  # forget earlier compilations
    sizes = []
    hc = torch.compile(h, backend=counting(sizes), dynamic=dynamic)
    for n in (8, 8, 16, 32):
        hc(torch.randn(n))
    print(f"dynamic={dynamic}: {len(sizes)} compilations")

# %% recompile-checks tags=["remove-cell"]
counts = {}
for dynamic in (None, False, True):
    torch._dynamo.reset()
    sizes = []
    hc = torch.compile(h, backend=counting(sizes), dynamic=dynamic)
    for n in (8, 8, 16, 32):
        t = torch.randn(n)
        assert torch.equal(hc(t), h(t))
    counts[dynamic] = len(sizes)
assert counts == {None: 2, False: 3, True: 1}
config = torch._dynamo.config
# recompile_limit from PyTorch 2.7, cache_size_limit before it (and an alias of
# recompile_limit since): each release checked under the name it has
limit = "recompile_limit" if hasattr(config, "recompile_limit") \
    else "cache_size_limit"
assert getattr(config, limit) == 8 == config.cache_size_limit
# past the limit, the function runs eagerly: no more compilations
torch._dynamo.reset()
sizes = []
import logging

# its warning on the limit carries a time and a pid
dynamo_log = logging.getLogger("torch._dynamo")
dynamo_log.setLevel(logging.ERROR)
with config.patch(**{limit: 2}):
    hc = torch.compile(h, backend=counting(sizes), dynamic=False)
    for n in (8, 16, 32, 64):
        t = torch.randn(n)
        assert torch.equal(hc(t), h(t))
dynamo_log.setLevel(logging.NOTSET)
assert len(sizes) == 2
torch._dynamo.reset()

# %% explain-resets
torch._dynamo.reset()
sizes = []
hc = torch.compile(h, backend=counting(sizes))
hc(torch.randn(8))
hc(torch.randn(8))  # compiled already: nothing new
torch._dynamo.explain(g)(torch.randn(8))  # resets Dynamo, before and after
hc(torch.randn(8))  # its compiled code was forgotten: compiles again
print(len(sizes), "compilations")

# %% explain-resets-checks tags=["remove-cell"]
assert len(sizes) == 2
# and without explain in between, one compilation
torch._dynamo.reset()
sizes = []
hc = torch.compile(h, backend=counting(sizes))
for _ in range(3):
    hc(torch.randn(8))
assert len(sizes) == 1

# %% torch-logs
import logging
from logging.handlers import BufferingHandler

# what TORCH_LOGS="graph_breaks,recompiles" turns on for a whole program
torch._logging.set_logs(graph_breaks=True, recompiles=True)
# for this page only: keep the records (they print with a time and a pid)
torch_log = logging.getLogger("torch._dynamo")
caught = BufferingHandler(capacity=100)
saved, torch_log.handlers = torch_log.handlers, [caught]

torch._dynamo.reset()
torch.compile(g, backend="eager")(torch.randn(8))  # a graph break
hc = torch.compile(h, backend="eager", dynamic=False)
hc(torch.randn(8))
hc(torch.randn(16))  # a recompilation

torch_log.handlers = saved
torch._logging.set_logs()  # back to the defaults
for record in caught.buffer:
    kind = record.name.split("__")[-1]
    lines = record.getMessage().splitlines()
    print(f"{kind}: {lines[0].rsplit(' ', 2)[0]}")  # without the file
    why = [line for line in lines if "Reason:" in line or "mismatch" in line]
    print("   ", why[0].strip())

# %% torch-logs-checks tags=["remove-cell"] holds=">=2.7" claim="`TORCH_LOGS` reports the graph break as data-dependent branching and the recompile's size mismatch"
from torch._logging import _internal as torch_logging

kinds = [record.name for record in caught.buffer]
assert kinds == ["torch._dynamo.symbolic_convert.__graph_breaks",
                 "torch._dynamo.guards.__recompiles"]
messages = [record.getMessage() for record in caught.buffer]
assert messages[0].startswith("Graph break in user code")
assert "Data-dependent branching" in messages[0]
assert messages[1].startswith("Recompiling function h")
assert "size mismatch at index 0. expected 8, actual 16" in messages[1]
# the environment variable, and what its value turns on
assert torch_logging.LOG_ENV_VAR == "TORCH_LOGS"
settings = torch_logging._parse_log_settings("graph_breaks,recompiles")
assert settings.artifact_names == {"graph_breaks", "recompiles"}
assert torch_log.handlers == saved
torch._dynamo.reset()

# %% state-dict
model = torch.nn.Linear(4, 2)
compiled_model = torch.compile(model)  # compiles at its first call
print(type(compiled_model).__name__)
print(list(compiled_model.state_dict()))
print(list(model.state_dict()))  # the same tensors, under their own names

# %% state-dict-checks tags=["remove-cell"]
assert isinstance(compiled_model, torch._dynamo.eval_frame.OptimizedModule)
assert compiled_model._orig_mod is model
assert list(compiled_model.state_dict()) == [
    "_orig_mod.weight", "_orig_mod.bias"
]
assert compiled_model.state_dict()["_orig_mod.weight"] is not None
assert compiled_model.weight is model.weight  # shared, not copied
assert compiled_model.state_dict()["_orig_mod.weight"].data_ptr() \
    == model.weight.data_ptr()

# %% state-dict-mismatch tags=["raises-exception"]
torch.save(compiled_model.state_dict(), "compiled.pt")
plain = torch.nn.Linear(4, 2)
plain.load_state_dict(torch.load("compiled.pt"))

# %% state-dict-mismatch-checks tags=["remove-cell"]
try:
    plain.load_state_dict(torch.load("compiled.pt"))
except RuntimeError as error:
    assert 'Missing key(s) in state_dict: "weight", "bias"' in str(error)
    assert 'Unexpected key(s) in state_dict: "_orig_mod.weight"' \
        in str(error)
else:
    raise AssertionError("the _orig_mod. keys should not load")

# %% state-dict-fix
torch.save(model.state_dict(), "model.pt")  # save the module you compiled
plain.load_state_dict(torch.load("model.pt"))

# a checkpoint saved with the prefix: strip it
state = torch.load("compiled.pt")
state = {k.removeprefix("_orig_mod."): v for k, v in state.items()}
plain.load_state_dict(state)
print(list(state))

# %% state-dict-fix-checks tags=["remove-cell"]
assert list(state) == ["weight", "bias"]
assert torch.equal(plain.weight, model.weight)
# and a compiled model loads plain keys through the module it wraps
compiled_model._orig_mod.load_state_dict(torch.load("model.pt"))
torch._dynamo.reset()

# %% module-compile
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.linear(x).relu()


model = Net()
model.compile()  # compiles in place, at the first call: returns nothing
print(type(model).__name__)
print(list(model.state_dict()))  # no wrapper, no prefix

# %% module-compile-checks tags=["remove-cell"] holds="<2.14" claim="`Module.compile()` compiles nothing on a module whose `forward` is torch's own (`nn.Linear`)"
assert type(model) is Net and model.compile(backend="eager") is None
x = torch.randn(3, 4)


def compilations(module, compile_in_place):
    torch._dynamo.reset()
    sizes = []
    if compile_in_place:
        module.compile(backend=counting(sizes))  # torch.compile's arguments
        compiled = module
    else:
        compiled = torch.compile(module, backend=counting(sizes))
    for _ in range(2):
        assert torch.equal(compiled(x), module.forward(x))
    return len(sizes)


assert compilations(Net(), True) == compilations(Net(), False) == 1
# a module whose forward is torch's own: compile() compiled nothing (up to
# torch 2.13; the 2.14 and 2.15 recordings fail this)
for bare in (torch.nn.Linear(4, 2), torch.nn.Sequential(torch.nn.Linear(4, 2))):
    assert compilations(bare, True) == 0 and compilations(bare, False) == 1
plain = Net()
plain.load_state_dict(model.state_dict())  # loads into a plain module
torch._dynamo.reset()

# %% modes holds=">=2.10" claim="`torch.compile` has a `lite` mode"
from torch._inductor import list_mode_options

print(list(list_mode_options()))
for mode in ("reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune"):
    print(f"{mode}: {list_mode_options(mode)}")
print("lite:")
for option, value in list_mode_options("lite").items():
    print(f"    {option}: {value}")

# %% modes-checks tags=["remove-cell"] holds=">=2.10" claim="`list_mode_options()` lists `lite` among the modes of `torch.compile`"
modes = list_mode_options()
assert list(modes) == [
    "default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs",
    "max-autotune",
]
assert modes["default"] == {}
assert modes["reduce-overhead"] == {"triton.cudagraphs": True}
tuning = {"max_autotune": True, "coordinate_descent_tuning": True}
assert modes["max-autotune-no-cudagraphs"] == tuning
assert modes["max-autotune"] == {**tuning, "triton.cudagraphs": True}
lite = modes["lite"]
assert lite["fallback_by_default"] and lite["selective_decompose"]
off = [
    "reorder_for_peak_memory", "reorder_for_compute_comm_overlap",
    "triton.reorder_for_reducing_graph_partitions", "use_pre_grad_passes",
    "use_joint_graph_passes", "use_post_grad_passes", "use_dce",
    "allow_buffer_reuse",
]
assert set(lite) == {"fallback_by_default", "selective_decompose", *off}
assert not any(lite[option] for option in off)
# inductor's defaults, which lite turns off (compute/comm overlap,
# for distributed graphs, is off already)
assert not torch._inductor.config.fallback_by_default
defaults = torch._inductor.config.get_config_copy()
assert [o for o in off if not defaults[o]] == [
    "reorder_for_compute_comm_overlap"
]
assert not torch._inductor.config.max_autotune
assert not torch._inductor.config.triton.cudagraphs
# what torch.compile's docstring says of them
doc = " ".join(torch.compile.__doc__.split())
assert "we only reduce overhead for CUDA only graphs which do not mutate" \
    " inputs" in doc
assert "cost of more memory usage" in doc
assert '"max-autotune-no-cudagraphs" is a mode similar to "max-autotune"' \
    " but without CUDA graphs" in doc
assert "torch._inductor.list_mode_options()" in doc
assert "useful for small batches" in doc
assert "which will profile to pick the best matmul configuration" in doc
# and inductor's configuration, of max_autotune and of lite's fallback
import inspect

config_source = inspect.getsource(torch._inductor.config)
assert "# enable slow autotuning passes to select algorithms\nmax_autotune =" \
    in config_source
assert "The motivation is to provide\n# guaranteed numeric correctness" \
    in config_source
import importlib.util

# where lite's opt-in regions are marked
assert importlib.util.find_spec("torch.fx.passes.regional_inductor")
try:
    list_mode_options("fast")
except RuntimeError as error:
    assert "Unrecognized mode=fast" in str(error)
else:
    raise AssertionError("an unknown mode should be an error")

# %% lite holds=">=2.10" claim="`torch.compile` has a `lite` mode"
import re

from torch._inductor.utils import run_and_get_code

for mode in ("default", "lite"):
    torch._dynamo.reset()
    y, (code,) = run_and_get_code(torch.compile(f, mode=mode), x)
    body = code[code.index("def call(self, args):"):]  # what a call runs
    calls = re.findall(  # kernels it generated, or ATen ops it calls
        r"^ +(?:\w+ = )?(?:torch\.ops\.)?(cpp_fused_\w+|aten\.\w+)", body, re.M
    )
    print(f"{mode}: {calls}")
    print(f"    equal to eager: {torch.equal(y, f(x))}")

# %% lite-checks tags=["remove-cell"] holds=">=2.10" claim="`torch.compile` has a `lite` mode that calls ATen ops instead of generating kernels"
results = {}
for mode in ("default", "lite"):
    torch._dynamo.reset()
    out, (code,) = run_and_get_code(torch.compile(f, mode=mode), x)
    body = code[code.index("def call(self, args):"):]
    results[mode] = (out, body)
# default: one fused C++ kernel for the five ops
assert re.findall(r"^ +(cpp_fused_\w+)\(", results["default"][1], re.M) \
    == ["cpp_fused_add_cos_pow_sin_0"]
assert "torch.ops.aten" not in results["default"][1]
assert torch.allclose(results["default"][0], f(x))
# lite: ATen's own kernels, one call per op, the same numbers as eager
assert "cpp_fused" not in results["lite"][1]
assert re.findall(r"= torch\.ops\.aten\.(\w+)\.", results["lite"][1]) \
    == ["sin", "pow", "cos", "pow", "add"]
assert calls == ["aten.sin", "aten.pow", "aten.cos", "aten.pow", "aten.add"]
assert torch.equal(results["lite"][0], f(x))
# so lite needs no C++ compiler here
with torch._inductor.config.patch({"cpp.cxx": ("no-such-compiler",)}):
    torch._dynamo.reset()
    assert torch.equal(torch.compile(f, mode="lite")(x), f(x))
torch._dynamo.reset()

# %% backends-without-inductor
torch._dynamo.reset()
model = torch.nn.Sequential(
    torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)
)
x = torch.randn(3, 4)
for backend in ("eager", "aot_eager"):  # no Triton, no C++ compiler
    compiled = torch.compile(model, backend=backend)
    same = torch.equal(compiled(x), model(x))
    print(f"{backend}: same output as the model: {same}")

backends = torch._dynamo.list_backends()
print("inductor" in backends, "aot_eager" in backends)
# the debugging backends are listed when no tag is left out
every = torch._dynamo.list_backends(exclude_tags=())
print("eager" in every, "aot_eager" in every)

# %% backends-without-inductor-checks tags=["remove-cell"]
for backend in ("eager", "aot_eager"):
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend)
    assert torch.equal(compiled(x), model(x))
    # the backward too: the same gradients as the plain model
    compiled(x).sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters()))
    model.zero_grad()
    # they need no C++ compiler
    with torch._inductor.config.patch({"cpp.cxx": ("no-such-compiler",)}):
        torch._dynamo.reset()
        assert torch.equal(torch.compile(model, backend=backend)(x), model(x))
assert "inductor" in backends and "aot_eager" not in backends
assert {"eager", "aot_eager", "inductor"} <= set(every)
torch._dynamo.reset()

# %% windows-checks tags=["remove-cell"] holds="<2.15" claim="Inductor's C++ builder falls back to `cl` on Windows when `CXX` is unset"
# torch.compile itself does not refuse Windows; inductor needs Triton
# on a GPU and a C++ compiler on a CPU, cl on Windows unless CXX says
import inspect

import torch._dynamo.eval_frame
import torch._inductor.scheduler
from torch._inductor import cpp_builder, exc

supported = inspect.getsource(torch._dynamo.eval_frame.check_if_dynamo_supported)
assert "win32" not in supported and "Windows" not in supported
assert "Cannot find a working triton installation" in (
    inspect.getsource(exc)
    + inspect.getsource(torch._inductor.scheduler)
)
assert 'os.environ.get("CXX", "cl")' in inspect.getsource(cpp_builder)

# %% with-ddp-quiet tags=["remove-cell"]
# dynamo's note that DDP's profiler record_function is ignored: not the point
torch._logging.set_logs(dynamo=logging.ERROR)

# %% with-ddp
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return torch.relu(self.fc(x))


# a group of one process is enough to show it (torchrun starts more)
dist.init_process_group(
    "gloo", init_method=f"file://{os.path.abspath('store')}",
    rank=0, world_size=1,
)
x = torch.randn(3, 4)
wrapped = {}
for order in ("m.compile(); DDP(m)", "torch.compile(DDP(m))",
              "DDP(torch.compile(m))"):
    torch._dynamo.reset()
    torch.manual_seed(0)
    m = Small()
    if order == "m.compile(); DDP(m)":
        m.compile(backend="aot_eager")  # in place: m stays a Small
        model = DDP(m)
    elif order == "torch.compile(DDP(m))":
        model = torch.compile(DDP(m), backend="aot_eager")
    else:
        model = DDP(torch.compile(m, backend="aot_eager"))
    model(x).sum().backward()
    wrapped[order] = model
    print(f"{order:22} {list(model.state_dict())[0]}")

# %% with-ddp-checks tags=["remove-cell"]
torch.manual_seed(0)
eager = DDP(Small())
eager(x).sum().backward()
for model in wrapped.values():
    grads = [p.grad for p in model.parameters()]
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, eager.parameters()))
keys = {order: list(model.state_dict()) for order, model in wrapped.items()}
assert keys["m.compile(); DDP(m)"] == ["module.fc.weight", "module.fc.bias"]
assert keys["torch.compile(DDP(m))"][0] == "_orig_mod.module.fc.weight"
assert keys["DDP(torch.compile(m))"][0] == "module._orig_mod.fc.weight"
# model.module.state_dict(): no prefix but where DDP wraps the compiled module
inner = {order: list(model.module.state_dict()) for order, model in wrapped.items()}
assert inner["m.compile(); DDP(m)"] == inner["torch.compile(DDP(m))"] == \
    ["fc.weight", "fc.bias"]
assert inner["DDP(torch.compile(m))"] == ["_orig_mod.fc.weight", "_orig_mod.fc.bias"]
compiled = wrapped["DDP(torch.compile(m))"].module
assert list(compiled._orig_mod.state_dict()) == ["fc.weight", "fc.bias"]
del wrapped, model, eager, compiled
dist.destroy_process_group()
torch._dynamo.reset()
torch._logging.set_logs()

# %% python-version tags=["environment"]
import subprocess
import sys

import torch._dynamo.eval_frame

print("Python", sys.version.split()[0], "torch", torch.__version__)
here = torch._dynamo.eval_frame.is_dynamo_supported()
print("torch.compile supported here:", here)

# %% python-version-checks tags=["remove-cell"]
assert torch._dynamo.eval_frame.is_dynamo_supported()

# %% python-too-new
# a simulation: this torch's own check, told that Python is 3.99
code = ("import sys, torch; sys.version_info = (3, 99, 0, 'final', 0); "
        "torch.compile(lambda x: x + 1)")
run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                     text=True)
print(run.stderr.splitlines()[-1])

# %% python-too-new-checks tags=["remove-cell"]
assert run.returncode == 1
assert re.fullmatch(r"RuntimeError: (Dynamo|torch\.compile) is not supported on "
                    r"Python 3\.1\d\+", run.stderr.splitlines()[-1])

# %% python-headers tags=["environment"]
import sysconfig

include = sysconfig.get_paths()["include"]  # where inductor looks for Python.h
header = os.path.join(include, "Python.h")
print(os.path.basename(include), os.path.exists(header))

# %% python-headers-checks tags=["remove-cell"]
assert os.path.exists(os.path.join(include, "Python.h"))
# inductor's C++ takes its include folder from sysconfig
assert "sysconfig.get_path" in inspect.getsource(cpp_builder)
torch._dynamo.reset()
assert torch.compile(lambda x: x * 2)(torch.ones(2)).tolist() == [2.0, 2.0]
