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

# %% first-call-checks tags=["remove-cell"]
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

# %% fullgraph-checks tags=["remove-cell"]
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
assert torch._dynamo.config.recompile_limit == 8
# past the limit, the function runs eagerly: no more compilations
torch._dynamo.reset()
sizes = []
import logging

# its warning on the limit carries a time and a pid
dynamo_log = logging.getLogger("torch._dynamo")
dynamo_log.setLevel(logging.ERROR)
with torch._dynamo.config.patch(recompile_limit=2):
    hc = torch.compile(h, backend=counting(sizes), dynamic=False)
    for n in (8, 16, 32, 64):
        t = torch.randn(n)
        assert torch.equal(hc(t), h(t))
dynamo_log.setLevel(logging.NOTSET)
assert len(sizes) == 2
torch._dynamo.reset()

# %% modes
from torch._inductor import list_mode_options

print(list(list_mode_options()))
for mode in ("reduce-overhead", "max-autotune"):
    print(f"{mode}: {list_mode_options(mode)}")

# %% modes-checks tags=["remove-cell"]
modes = list_mode_options()
assert set(modes) == {
    "default", "lite", "reduce-overhead", "max-autotune",
    "max-autotune-no-cudagraphs"
}
assert modes["default"] == {} and modes["lite"]["fallback_by_default"]
assert modes["reduce-overhead"]["triton.cudagraphs"]
assert modes["max-autotune"]["max_autotune"] \
    and modes["max-autotune"]["triton.cudagraphs"]
assert not modes["max-autotune-no-cudagraphs"].get("triton.cudagraphs", False)
