# %% [markdown]
# Exporting a model to ONNX: the errors torch.onnx.export raises without
# the onnxscript and onnx packages, and the torch.export program it starts
# from, with a batch size that varies

# %% [markdown] lang="zh"
# 把模型导出为 ONNX：没装 onnxscript 和 onnx 时 `torch.onnx.export` 报什么错，
# 以及它所依据的 `torch.export` 程序，包括可变的 batch 大小

# %% setup
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.hidden(x).relu())


model = Net().eval()
x = torch.randn(3, 4)

# %% no-onnxscript holds=">=2.9" claim="`torch.onnx.export` uses the `torch.export`-based exporter by default, which imports `onnxscript`" raises="ModuleNotFoundError: No module named 'onnxscript'"
torch.onnx.export(model, (x,), "model.onnx")

# %% no-onnxscript-checks tags=["remove-cell"]
import importlib.util
import inspect
import os

# none of the three packages is installed where this page is built
for name in ["onnxscript", "onnx", "onnxruntime"]:
    assert importlib.util.find_spec(name) is None
assert not os.path.exists("model.onnx")  # nothing written

# %% legacy raises="torch.onnx.OnnxExporterError: Module onnx is not installed!" holds=">=2.5" claim="Without the `onnx` package, `dynamo=False` raises `torch.onnx.OnnxExporterError`"
torch.onnx.export(model, (x,), "model.onnx", dynamo=False)

# %% legacy-checks tags=["remove-cell"] holds=">=2.10" claim="`dynamo=False` warns that the TorchScript-based ONNX exporter is the legacy one"
import warnings

assert not os.path.exists("model.onnx")
# the warning the cell shows, before the error
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        torch.onnx.export(model, (x,), "model.onnx", dynamo=False)
    except torch.onnx.OnnxExporterError:
        pass
first = caught[0]
assert first.category is DeprecationWarning
assert str(first.message).startswith(
    "You are using the legacy TorchScript-based ONNX export. Starting in "
    "PyTorch 2.9, the new torch.export-based ONNX exporter has become the "
    "default."
)

# %% program
program = torch.export.export(model, (x,))
for node in program.graph.nodes:
    if node.op == "call_function":
        print(node.target)
print(torch.equal(program.module()(x), model(x)))

# %% program-checks tags=["remove-cell"] holds=">=2.8" about="program" claim="`torch.onnx.export` takes an `ExportedProgram` as it is, and exports a module through `torch.export.export`"
ops = [n.target for n in program.graph.nodes if n.op == "call_function"]
assert ops == [
    torch.ops.aten.linear.default,
    torch.ops.aten.relu.default,
    torch.ops.aten.linear.default,
]
assert torch.equal(program.module()(x), model(x))
# torch.onnx.export takes an ExportedProgram as it is, and calls
# torch.export.export itself on a module
doc = " ".join(torch.onnx.export.__doc__.split())
assert "If the model is already an ExportedProgram, it will be used as-is" in doc
assert "Use :func:`torch.export.export` and set ``strict=False``" in doc
annotation = inspect.signature(torch.onnx.export).parameters["model"].annotation
assert "torch.export.ExportedProgram" in str(annotation)
assert "ONNXProgram" in str(inspect.signature(torch.onnx.export).return_annotation)
assert isinstance(torch.onnx.ONNXProgram, type)
assert "f: Path to the output ONNX model file" in doc


# control flow on a tensor's values: torch.export cannot capture it
class Branchy(nn.Module):
    def forward(self, x):
        return x * 2 if x.sum() > 0 else x


try:
    torch.export.export(Branchy(), (x,))
except RuntimeError as error:
    assert "data-dependent" in str(error)
else:
    raise AssertionError("torch.export should refuse data-dependent control flow")

# %% dynamic
batch = torch.export.Dim("batch")
dynamic_shapes = {"x": {0: batch}}  # dimension 0 of forward's argument x
program = torch.export.export(model, (x,), dynamic_shapes=dynamic_shapes)
runnable = program.module()
print(runnable(torch.randn(5, 4)).shape)
print(runnable(torch.randn(1, 4)).shape)

# %% dynamic-checks tags=["remove-cell"] holds=">=2.9" claim="`torch.onnx.export` takes the `dynamic_shapes` of `torch.export`; without them every shape is fixed"
y = torch.randn(7, 4)
assert torch.equal(runnable(y), model(y))
assert runnable(torch.randn(5, 4)).shape == (5, 2)
assert runnable(torch.randn(1, 4)).shape == (1, 2)
# torch.onnx.export takes the same dynamic_shapes; dynamic_axes is the old
# exporter's (dynamo=False)
assert "dynamic_shapes" in inspect.signature(torch.onnx.export).parameters
# by default every shape is that of the example inputs
assert "By default the exported model will have the shapes of all input and " \
    "output tensors set to exactly match those given in ``args``" in doc
assert "Each name must also be provided in ``input_names``" in doc
assert "dynamic_shapes is designed to be used when the model is exported " \
    "with dynamo=True, while dynamic_axes is used when dynamo=False" in doc
static = torch.export.export(model, (x,)).module()
try:
    static(torch.randn(5, 4))
except AssertionError:
    pass
else:
    raise AssertionError("without dynamic_shapes the batch size is fixed")
