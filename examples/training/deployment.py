# %% [markdown]
# Saving a model for deployment: torch.export to an ExportedProgram,
# a dynamic batch dimension, .pt2 files, eval() before export,
# TorchScript's deprecation warnings, and what torch.load refuses

# %% [markdown] lang="zh"
# 导出模型用于部署：用 `torch.export` 得到 `ExportedProgram`，
# 声明动态的 batch 维，存取 .pt2 文件，导出前先 `eval()`；
# TorchScript 的弃用警告；以及 `torch.load` 拒绝加载什么

# %% export
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.dropout = nn.Dropout(0.5)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.dropout(self.hidden(x).relu()))


model = Net().eval()  # eval() first: see below
x = torch.randn(3, 4)
program = torch.export.export(model, (x,))
print(type(program).__name__)
for node in program.graph.nodes:
    print(f"{node.op:13} {node.target}")

# %% export-checks tags=["remove-cell"]
assert isinstance(program, torch.export.ExportedProgram)
ops = [n.target for n in program.graph.nodes if n.op == "call_function"]
assert torch.ops.aten.linear.default in ops
assert torch.ops.aten.relu.default in ops
assert len(ops) == 4  # linear, relu, dropout, linear
dropout = next(n for n in program.graph.nodes if "dropout" in str(n.target))
assert dropout.args[-1] is False  # train=False: eval mode was recorded
# the parameters are inputs of the graph, kept in the program's state_dict
assert set(program.state_dict) == set(model.state_dict())
assert torch.equal(program.module()(x), model(x))

# %% save-load
torch.export.save(program, "model.pt2")
loaded = torch.export.load("model.pt2")
runnable = loaded.module()
print(type(runnable).__name__)
print(torch.equal(runnable(x), model(x)))

# %% save-load-checks tags=["remove-cell"] holds=">=2.6" claim="AOTInductor's `torch._inductor.aoti_compile_and_package` compiles an exported program ahead of time"
assert torch.equal(runnable(x), model(x))
assert isinstance(runnable, torch.fx.GraphModule)
assert not isinstance(runnable, Net)  # no need for the class to run it
assert callable(torch._inductor.aoti_compile_and_package)  # AOTInductor

# %% static-shape tags=["raises-exception"]
runnable(torch.randn(5, 4))

# %% static-shape-checks tags=["remove-cell"] holds=">=2.9" claim="An exported program called with another batch size fails its guard on the batch size"
try:
    runnable(torch.randn(5, 4))
except AssertionError as error:
    assert "Guard failed" in str(error) and "== 3" in str(error)
else:
    raise AssertionError("a static export should refuse another batch size")

# %% dynamic
batch = torch.export.Dim("batch")
program = torch.export.export(
    model, (x,), dynamic_shapes={"x": {0: batch}}
)
runnable = program.module()
print(runnable(torch.randn(5, 4)).shape)
print(runnable(torch.randn(1, 4)).shape)

# %% dynamic-checks tags=["remove-cell"]
y = torch.randn(7, 4)
assert torch.equal(runnable(y), model(y))
# the other dimensions stay fixed; torch 2.8 and earlier raise a RuntimeError that names the size
try:
    runnable(torch.randn(5, 3))
except (AssertionError, RuntimeError) as error:
    assert "Guard failed" in str(error) or "to be equal to 4, but got 3" in str(error)
else:
    raise AssertionError("the feature dimension should stay static")

# %% batch-one
import re


def export_error(module, example):  # what export says, in two lines
    try:
        torch.export.export(module, (example,),
                            dynamic_shapes={"x": {0: batch}})
    except Exception as error:  # torch._dynamo.exc.UserError
        message = str(error)
        print(type(error).__name__, message.splitlines()[0], sep=": ")
        print(next(line.strip(" -") for line in message.splitlines()
                   if re.search(r"constant \(\d+\)", line)))
        return message
    print("exported")


message = export_error(model, torch.randn(1, 4))  # an example batch of 1

# %% batch-one-checks tags=["remove-cell"]
assert message.startswith("Constraints violated (batch)!")
assert "constant (1)" in message
# the same model, exported with an example batch of 2, takes a batch of 1
two = torch.export.export(model, (torch.randn(2, 4),),
                          dynamic_shapes={"x": {0: batch}}).module()
assert two(torch.randn(1, 4)).shape == (1, 2)
assert two(torch.randn(9, 4)).shape == (9, 2)

# %% batch-in-code
BATCH_SIZE = 3  # from the training script's settings


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):  # x: (batch, 4, 2)
        return self.fc(x.view(BATCH_SIZE, -1))  # the batch size, written in


message = export_error(Head(), torch.randn(3, 4, 2))

# %% batch-in-code-checks tags=["remove-cell"]
assert message.startswith("Constraints violated (batch)!")
assert "constant (3)" in message

# %% batch-in-code-auto-checks tags=["remove-cell"] holds=">=2.5" claim="With `Dim.AUTO`, export raises nothing and fixes the batch size that the code fixes: the program refuses other batch sizes"
auto = torch.export.export(Head(), (torch.randn(3, 4, 2),),
                           dynamic_shapes={"x": {0: torch.export.Dim.AUTO}})
assert auto.module()(torch.randn(3, 4, 2)).shape == (3, 2)
try:
    auto.module()(torch.randn(5, 4, 2))
except (AssertionError, RuntimeError) as error:
    assert "3" in str(error)
else:
    raise AssertionError("Dim.AUTO kept the batch dynamic")

# %% batch-in-code-fix
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x.flatten(1))  # every dimension but the batch


head = torch.export.export(Head(), (torch.randn(3, 4, 2),),
                           dynamic_shapes={"x": {0: batch}}).module()
print(head(torch.randn(5, 4, 2)).shape)
print(head(torch.randn(1, 4, 2)).shape)

# %% batch-in-code-fix-checks tags=["remove-cell"]
assert head(torch.randn(7, 4, 2)).shape == (7, 2)

# %% train-mode
model.train()  # forgot eval()
program = torch.export.export(model, (x,))
runnable = program.module()
print(torch.equal(runnable(x), runnable(x)))

# %% train-mode-checks tags=["remove-cell"]
assert not torch.equal(runnable(x), runnable(x))  # Dropout was exported
try:
    runnable.eval()
except NotImplementedError as error:
    assert "eval() is not supported" in str(error)
else:
    raise AssertionError("eval() on an exported module should raise")

# %% train-mode-eval tags=["raises-exception"]
runnable.eval()

# %% torchscript
import warnings

model.eval()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scripted = torch.jit.script(model)
    traced = torch.jit.trace(model, x)
for message in dict.fromkeys(str(w.message) for w in caught):
    print(message)

# %% torchscript-checks tags=["remove-cell"] holds=">=2.11,<2.14" claim="`torch.jit.script`, `trace`, `save` and `load` warn with a `DeprecationWarning` that points to `torch.export`"
categories = {w.category for w in caught}
assert categories == {DeprecationWarning}
messages = [str(w.message) for w in caught]
assert any(m.startswith("`torch.jit.script` is deprecated") for m in messages)
assert any(m.startswith("`torch.jit.trace` is deprecated") for m in messages)
assert all("torch.export" in m for m in messages)
# still works, for now
assert torch.equal(scripted(x), model(x))
assert torch.equal(traced(x), model(x))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.jit.save(scripted, "model.ts")
    torch.jit.load("model.ts")
messages = [str(w.message) for w in caught]
assert "`torch.jit.save` is deprecated. Please switch to `torch.export`." \
    in messages
assert "`torch.jit.load` is deprecated. Please switch to `torch.export`." \
    in messages
for documented in [torch.jit.annotate, torch.jit.freeze, torch.jit.interface]:
    doc = " ".join(documented.__doc__.split())
    assert ".. deprecated:: 2.5 TorchScript is deprecated" in doc

# %% torchscript-plain-script
import re
import subprocess
import sys

with open("script.py", "w") as file:  # a plain script, run by a fresh Python
    file.write(
        "import torch\n"
        "model = torch.nn.Linear(2, 1).eval()\n"
        "torch.jit.script(model)\n"
        "torch.jit.trace(model, torch.randn(1, 2))\n"
    )
runs = {}
for flags in ([], ["-W", "default::DeprecationWarning"]):
    child = subprocess.run(
        [sys.executable, *flags, "script.py"], capture_output=True, text=True
    )
    runs[len(flags)] = child
    warned = [line for line in child.stderr.splitlines() if "Warning:" in line]
    command = " ".join(["python", *flags, "script.py"])
    print(f"{command}: {len(warned)} warnings")
    for line in warned:  # the path from torch/ on: the rest is this machine's
        print("   ", re.sub(r"^.*?(?=torch/jit/)", "", line))

# %% torchscript-plain-script-checks tags=["remove-cell"] holds=">=2.10,<2.14" claim="A plain script shows TorchScript's `DeprecationWarning`s only when run with `-W default::DeprecationWarning`, each attributed to torch's own file"
plain, shown = runs[0], runs[2]
assert plain.returncode == 0 and plain.stderr == "", plain.stderr
lines = [line for line in shown.stderr.splitlines() if "Warning:" in line]
assert len(lines) == 3, lines  # script, trace and trace_method
# each is attributed to torch's own file, not to script.py
assert all(re.search(r"torch/jit/_\w+\.py:\d+: DeprecationWarning: ", line)
           for line in lines), lines
assert not any(line.startswith("script.py:") for line in lines)
# because torch warns without a stacklevel
import inspect

for module, name in ((torch.jit._script, "script"), (torch.jit._trace, "trace")):
    source = inspect.getsource(module)
    call = source[source.index(f'"`torch.jit.{name}` is deprecated'):]
    assert "stacklevel" not in call[:call.index(")")], name
# Python's default filters show a DeprecationWarning only where it is
# attributed to __main__
defaults = subprocess.run(
    [sys.executable, "-c", "import warnings; print(warnings.filters[:2])"],
    capture_output=True, text=True,
).stdout
assert "('default', None, <class 'DeprecationWarning'>, '__main__', 0)" \
    in defaults, defaults
assert "('ignore', None, <class 'DeprecationWarning'>, None, 0)" in defaults

# %% whole-model tags=["raises-exception"] holds=">=2.6" claim="`torch.load` defaults to `weights_only=True`, so loading a whole pickled model raises `UnpicklingError`"
torch.save(model, "whole.pt")  # pickles the module object itself
torch.load("whole.pt")

# %% whole-model-checks tags=["remove-cell"] holds=">=2.6" claim="The weights-only error of a whole pickled model says that PyTorch 2.6 changed the default of `weights_only`"
import pickle

try:
    torch.load("whole.pt")
except pickle.UnpicklingError as error:
    assert "Weights only load failed" in str(error)
    assert "In PyTorch 2.6, we changed the default value of the " \
        "`weights_only` argument in `torch.load` from `False` to `True`" \
        in str(error)
    assert "torch.nn.modules.container" not in str(error)
    assert f"GLOBAL {Net.__module__}.Net was not an allowed global" in str(
        error
    )
else:
    raise AssertionError("weights_only=True should refuse a pickled module")

# %% weights
torch.save(model.state_dict(), "weights.pt")
state = torch.load("weights.pt")  # weights_only=True: tensors, no objects
fresh = Net()
print(fresh.load_state_dict(state))

# %% weights-checks tags=["remove-cell"]
assert all(torch.equal(fresh.state_dict()[k], v) for k, v in state.items())
whole = torch.load("whole.pt", weights_only=False)  # runs the pickle
assert isinstance(whole, Net)

# %% trace-vs-script
import warnings


class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # a branch that depends on the values of x
            return x * 2
        return -x


gate = Gate()
positive, negative = torch.tensor([1.0, 2.0]), torch.tensor([-1.0, -2.0])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    traced = torch.jit.trace(gate, positive)  # runs forward once, on positive
for message in dict.fromkeys(
    str(w.message) for w in caught if w.category is torch.jit.TracerWarning
):
    print("TracerWarning:", message)

# %% trace-vs-script-checks tags=["remove-cell"]
tracer = [w for w in caught if w.category is torch.jit.TracerWarning]
assert tracer and all(
    "might cause the trace to be incorrect" in str(w.message) for w in tracer
)
assert "might not generalize to other inputs" in str(tracer[0].message)
# it is attributed to the line of the branch, in this example, not to torch
import os

assert not tracer[0].filename.startswith(os.path.dirname(torch.__file__)), tracer[0].filename

# %% trace-vs-script-run
scripted = torch.jit.script(gate)  # compiles the Python source of forward
for sample in (positive, negative):
    print(f"input {sample.tolist()}: eager {gate(sample).tolist()}, "
          f"traced {traced(sample).tolist()}, "
          f"scripted {scripted(sample).tolist()}")
print(traced.code)
print(scripted.code)

# %% trace-vs-script-run-checks tags=["remove-cell"]
import re

assert torch.equal(traced(positive), gate(positive))
# the traced module took the branch of positive for negative too
assert torch.equal(traced(negative), negative * 2)
assert not torch.equal(traced(negative), gate(negative))
for sample in (positive, negative, torch.zeros(2)):  # both branches kept
    assert torch.equal(scripted(sample), gate(sample))
assert not re.search(r"\bif\b|neg", traced.code)
assert re.search(r"\bif\b", scripted.code) and "torch.neg" in scripted.code
# without the branch on values, trace and script agree
assert torch.equal(torch.jit.trace(nn.ReLU(), negative)(positive),
                   torch.jit.script(nn.ReLU())(positive))

# %% export-branch
class CondGate(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: -x, (x,))


exported = torch.export.export(CondGate(), (positive,)).module()
for sample in (positive, negative):
    print(f"input {sample.tolist()}: exported {exported(sample).tolist()}")

# %% export-branch-checks tags=["remove-cell"]
for sample in (positive, negative, torch.zeros(2)):
    assert torch.equal(exported(sample), gate(sample))
import contextlib
import io
import os
import sys

# the graph that export prints as it refuses, on stdout or stderr: kept off the output
sys.stdout.flush()
sys.stderr.flush()
saved = {fd: os.dup(fd) for fd in (1, 2)}
with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(io.StringIO()):
    for fd in saved:
        os.dup2(devnull.fileno(), fd)
    try:
        torch.export.export(gate, (positive,))  # the plain if: export refuses it
    except Exception as error:
        refused = error
    else:
        raise AssertionError("export froze the branch instead of refusing it")
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
# an error about the data-dependent branch, not some other failure
assert "data-dependent" in str(refused) or "Dynamic control flow" in str(
    refused
), str(refused)[:500]

# %% whole-model-other-script
import os
import subprocess
import sys

TRAIN = """
import torch
from torch import nn

class Net(nn.Module):  # defined in the script that saves
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)

torch.save(Net(), "net.pt")
"""
SERVE = """
import torch
model = torch.load("net.pt", weights_only=False)
print(type(model).__name__)
"""
for name, text in {"train.py": TRAIN, "serve.py": SERVE}.items():
    with open(name, "w") as file:
        file.write(text)
subprocess.run([sys.executable, "train.py"], check=True)
served = subprocess.run(
    [sys.executable, "serve.py"], capture_output=True, text=True
)
print(served.stderr.strip().splitlines()[-1].replace(os.getcwd(), "."))

# %% whole-model-other-script-checks tags=["remove-cell"]
import pickle

assert served.returncode == 1
last = served.stderr.strip().splitlines()[-1]
assert last.startswith("AttributeError: Can't get attribute 'Net' on <module '__main__'"), last
# the pickle holds the class by its module and name: __main__.Net
with open("net.pt", "rb") as file:
    assert b"__main__" in file.read()

# %% whole-model-other-script-fix
MODEL = """
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)
"""
TRAIN = """
import torch
from model import Net  # the class lives in model.py

torch.save(Net(), "net.pt")
"""
SERVE = """
import torch
from model import Net  # importable where the file is loaded

model = torch.load("net.pt", weights_only=False)
print(type(model).__module__, type(model).__name__)
"""
files = {"model.py": MODEL, "train.py": TRAIN, "serve.py": SERVE}
for name, text in files.items():
    with open(name, "w") as file:
        file.write(text)
subprocess.run([sys.executable, "train.py"], check=True)
served = subprocess.run(
    [sys.executable, "serve.py"], capture_output=True, text=True
)
print(served.stdout.strip())

# %% whole-model-other-script-fix-checks tags=["remove-cell"]
assert served.returncode == 0, served.stderr
assert served.stdout.strip() == "model Net"

# %% lite-interpreter
import warnings

from torch.jit.mobile import _load_for_lite_interpreter

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 2)).eval()
x = torch.ones(1, 4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    # for Android/iOS
    torch.jit.script(model)._save_for_lite_interpreter("model.ptl")
    # what the app's runtime does
    lite = _load_for_lite_interpreter("model.ptl")
    y = lite(x)
print(type(lite).__name__, tuple(y.shape), torch.equal(y, model(x)))
lite_warnings = {f"{w.category.__name__}: {' '.join(str(w.message).split())}"
                 for w in caught if "Lite Interpreter" in str(w.message)}
print(*sorted(lite_warnings), sep="\n")  # one from saving, one from loading

# %% lite-interpreter-checks tags=["remove-cell"]
assert torch.equal(y, model(x)) and y.shape == (1, 2)
assert os.path.getsize("model.ptl") > 0
for w in caught:
    if "Lite Interpreter" in str(w.message):  # where it warns, it names the successor
        assert "ExecuTorch" in str(w.message)

# %% http-predict
import json

torch.manual_seed(0)
LABELS = ["cat", "dog"]
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model.eval()  # once, at start-up, not per request


def predict(payload: dict) -> dict:
    # a batch of rows
    x = torch.tensor(payload["inputs"], dtype=torch.float32)
    if x.ndim != 2 or x.shape[1] != 4:
        shape = list(x.shape)
        return {"error": f"expected rows of 4 numbers, got shape {shape}"}
    with torch.inference_mode():
        probs = model(x).softmax(dim=1)
    p, index = probs.max(dim=1)
    return {"predictions": [{"label": LABELS[i], "probability": round(q, 3)}
                            for i, q in zip(index.tolist(), p.tolist())]}


request = json.loads('{"inputs": [[0.5, -1.0, 2.0, 0.1], [1, 1, 1, 1]]}')
print(json.dumps(predict(request)))
print(json.dumps(predict({"inputs": [1, 2, 3]})))

# %% http-predict-checks tags=["remove-cell"]
answer = predict(request)
assert len(answer["predictions"]) == 2
assert all(0.5 <= p["probability"] <= 1 for p in answer["predictions"])
assert json.loads(json.dumps(answer)) == answer  # plain JSON types
assert "error" in predict({"inputs": [1, 2, 3]})
assert not model.training

# %% script-list raises="RuntimeError"
from typing import Optional


class Stages(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = [nn.Linear(2, 2), nn.Linear(2, 2)]  # a plain list

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


model = Stages()
print(len(list(model.parameters())), list(model.state_dict()))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the deprecation warning of script
    torch.jit.script(model)

# %% script-list-checks tags=["remove-cell"]
class Plain(nn.Module):  # a new class: a failed one stays registered
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(2, 2)]

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.script(Plain())
except RuntimeError as error:
    message = " ".join(str(error).split())
assert message.startswith(
    "Module 'Plain' has no attribute 'blocks' (This attribute exists on "
    "the Python module, but we failed to convert Python type: 'list' to a "
    "TorchScript type."
), message
assert "try adding a type annotation for the attribute" in message
assert model.to(torch.float64).stages[0].weight.dtype == torch.float32


# %% script-modulelist
class StagesFixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


torch.manual_seed(0)
model = StagesFixed()
print(len(list(model.parameters())), list(model.state_dict()))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    scripted = torch.jit.script(model)
x = torch.randn(1, 2)
print(tuple(scripted(x).shape), torch.allclose(scripted(x), model(x)))

# %% script-modulelist-checks tags=["remove-cell"]
assert len(list(model.parameters())) == 4
assert list(model.state_dict()) == [
    "stages.0.weight", "stages.0.bias", "stages.1.weight", "stages.1.bias"]
assert model.to(torch.float64).stages[0].weight.dtype == torch.float64


# %% script-optional
def shift(x, pos: Optional[torch.Tensor] = None):
    if pos is not None:
        x = x + pos
    return x


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    scripted = torch.jit.script(shift)
print(scripted(torch.ones(2)), scripted(torch.ones(2), torch.ones(2)))

# %% script-optional-checks tags=["remove-cell"]
assert torch.equal(scripted(torch.ones(2)), torch.ones(2))
two = scripted(torch.ones(2), torch.ones(2))
assert torch.equal(two, torch.full((2,), 2.0))

# %% script-redefine raises="RuntimeError: Can't redefine method: forward on class: __torch__.Scorer"
class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x).numpy()  # TorchScript has no numpy()


model = Scorer()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        torch.jit.script(model)  # the cell's first run
    except RuntimeError as error:
        print(str(error).strip().splitlines()[0])  # the error to fix
    try:
        torch.jit.script(model)  # the same cell run again
    except RuntimeError as error:  # its address changes with every run: 0x…
        raise RuntimeError(re.sub(r"0x[0-9a-f]+", "0x…", str(error))) from None

# %% script-redefine-checks tags=["remove-cell"]
first_class = Scorer
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for attempt in (model, Scorer()):  # a new instance of the class fails too
        try:
            torch.jit.script(attempt)
        except RuntimeError as error:
            again = str(error)
        else:
            raise AssertionError("scripted a class whose first compile failed")
        assert again.startswith(
            "Can't redefine method: forward on class: __torch__.Scorer "
            "(of Python compilation unit at: 0x"), again


# %% script-redefine-fix
class Scorer(nn.Module):  # the class's cell run again, fixed
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)  # a tensor: convert outside the model


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    scripted = torch.jit.script(Scorer())
print(type(scripted).__name__, tuple(scripted(torch.ones(3, 2)).shape))

# %% script-redefine-fix-checks tags=["remove-cell"]
assert Scorer is not first_class
assert tuple(scripted(torch.ones(3, 2)).shape) == (3, 1)
