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

# %% opset-too-old raises="torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::tril' to ONNX opset version 11 is not supported"
import os
import tempfile

# the legacy exporter's warning, shown above
warnings.filterwarnings("ignore", "You are using the legacy TorchScript")


class Causal(nn.Module):
    def forward(self, x):
        return torch.tril(x)  # keep the lower triangle


causal = Causal().eval()
scores = torch.randn(4, 4)
folder = tempfile.TemporaryDirectory()
path = os.path.join(folder.name, "causal.onnx")
torch.onnx.export(causal, (scores,), path, dynamo=False, opset_version=11)

# %% opset-too-old-checks tags=["remove-cell"] holds=">=2.8" claim="An `UnsupportedOperatorError` that knows no later opset names only the operator and the opset"
def export_error(module, inputs, **options):
    """The exception of a legacy export, None if it raised none"""
    try:
        torch.onnx.export(module, (inputs,), path, dynamo=False, **options)
    except Exception as error:
        return error
    return None


error = export_error(causal, scores, opset_version=13)
assert type(error) is torch.onnx.errors.UnsupportedOperatorError
assert str(error).startswith("Exporting the operator 'aten::tril' to ONNX "
                             "opset version 13 is not supported")
# the message names the opset that brought the operator
assert "Support for this operator was added in version 14" in str(error)
assert os.listdir(folder.name) == []
# without a version, the message names none
message = str(torch.onnx.errors.UnsupportedOperatorError("aten::foo", 17, None))
assert message == "Exporting the operator 'aten::foo' to ONNX opset version 17 " \
    "is not supported"

# %% opset-14
for opset in (14, None):  # None: the exporter's default opset
    try:
        torch.onnx.export(causal, (scores,), path, dynamo=False,
                          opset_version=opset)
    except torch.onnx.errors.OnnxExporterError as error:
        print(f"opset_version={opset}: {type(error).__name__}: {error}")

# %% opset-14-checks tags=["remove-cell"]
# past the operator: only the missing onnx package stops the export
for opset in (14, None):
    error = export_error(causal, scores, opset_version=opset)
    assert type(error) is torch.onnx.errors.OnnxExporterError  # not a subclass
    assert str(error) == "Module onnx is not installed!"
    assert isinstance(error.__cause__, ImportError)
assert torch.onnx._constants.ONNX_DEFAULT_OPSET >= 14
assert issubclass(torch.onnx.errors.UnsupportedOperatorError,
                  torch.onnx.errors.OnnxExporterError)
assert os.listdir(folder.name) == []
# torch.export captures tril as one ATen operator
program = torch.export.export(causal, (scores,))
ops = [n.target for n in program.graph.nodes if n.op == "call_function"]
assert ops == [torch.ops.aten.tril.default]

# %% adaptive-pool raises="torch.onnx.errors.SymbolicValueError: Unsupported: ONNX export of operator adaptive_avg_pool2d, output size that are not factor of input size"
pool = nn.AdaptiveAvgPool2d(2).eval()
images = torch.randn(1, 3, 5, 5)
torch.onnx.export(pool, (images,), path, dynamo=False)

# %% adaptive-pool-checks tags=["remove-cell"]
error = export_error(pool, images, opset_version=17)
assert type(error) is torch.onnx.errors.SymbolicValueError
assert "output size that are not factor of input size" in str(error)
assert os.listdir(folder.name) == []

# %% adaptive-pool-fixes
fixes = {
    "AdaptiveAvgPool2d(2) on 6x6": (nn.AdaptiveAvgPool2d(2),
                                    torch.randn(1, 3, 6, 6)),
    "AdaptiveAvgPool2d(1) on 5x5": (nn.AdaptiveAvgPool2d(1), images),
    "AvgPool2d(3, stride=2) on 5x5": (nn.AvgPool2d(3, stride=2), images),
}
for name, (module, inputs) in fixes.items():
    try:
        torch.onnx.export(module.eval(), (inputs,), path, dynamo=False)
    except torch.onnx.errors.OnnxExporterError as error:
        print(f"{name}: {type(error).__name__}: {error}")
# on a 5x5 input, the same windows as AdaptiveAvgPool2d(2)
print(torch.allclose(nn.AvgPool2d(3, stride=2)(images), pool(images)))

# %% adaptive-pool-fixes-checks tags=["remove-cell"]
for module, inputs in fixes.values():
    error = export_error(module.eval(), inputs)
    assert type(error) is torch.onnx.errors.OnnxExporterError
    assert str(error) == "Module onnx is not installed!"
assert torch.allclose(nn.AvgPool2d(3, stride=2)(images), pool(images))
# output size 1 is the mean over height and width, for any input size
for size in (5, 7):
    x = torch.randn(2, 3, size, size)
    assert torch.allclose(nn.AdaptiveAvgPool2d(1)(x), x.mean((2, 3), keepdim=True))
# 6 divides by 2: windows of 3, stride 3
x = fixes["AdaptiveAvgPool2d(2) on 6x6"][1]
assert torch.allclose(nn.AdaptiveAvgPool2d(2)(x), nn.AvgPool2d(3)(x))
# height and width that vary: only output size 1 exports
dynamic_axes = {"x": {2: "height", 3: "width"}}
for size, expected in ((2, torch.onnx.errors.SymbolicValueError),
                       (1, torch.onnx.errors.OnnxExporterError)):
    error = export_error(nn.AdaptiveAvgPool2d(size).eval(), x,
                         input_names=["x"], dynamic_axes=dynamic_axes)
    assert type(error) is expected
    if size == 2:
        assert "input size not accessible" in str(error)
assert os.listdir(folder.name) == []
folder.cleanup()
