# %% [markdown]
# Logging training to TensorBoard with SummaryWriter: scalars and
# histograms from a real training loop, read back from the event files;
# flush and close, one folder per run, add_scalars, add_hparams and
# add_graph; then why TensorBoard says "No dashboards are active"

# %% [markdown] lang="zh"
# 用 `SummaryWriter` 把训练过程记到 TensorBoard：真实训练循环里的标量和直方图，
# 再从事件文件里读回来；`flush` 与 `close`，每次运行一个目录，`add_scalars`、
# `add_hparams` 和 `add_graph`；以及 TensorBoard 为什么提示
# No dashboards are active

# %% no-tensorboard raises="ModuleNotFoundError: No module named 'tensorboard'"
import sys
from importlib.machinery import PathFinder

import torch


class WithoutTensorBoard(PathFinder):
    # Python's own finder, blind to one package: as after pip install torch
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] == "tensorboard":
            return None
        return super().find_spec(name, path, target)


finders = sys.meta_path
finders[finders.index(PathFinder)] = WithoutTensorBoard
try:
    from torch.utils.tensorboard import SummaryWriter
finally:  # the rest of this page runs with tensorboard installed
    finders[finders.index(WithoutTensorBoard)] = PathFinder

# %% no-tensorboard-checks tags=["remove-cell"]
from importlib import metadata

# torch does not require tensorboard: pip install torch leaves it out
assert not [r for r in metadata.requires("torch") or []
            if r.lower().replace("_", "-").startswith("tensorboard")]
# the import system is as it was, and the failed import left nothing behind
assert finders.count(PathFinder) == 1
assert WithoutTensorBoard not in finders
assert "torch.utils.tensorboard" not in sys.modules
assert "tensorboard" not in sys.modules

# %% setup tags=["requires-tensorboard"]
import os
import tempfile

from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter

os.chdir(tempfile.mkdtemp())  # an empty folder: runs/ is created in it

x = torch.randn(240, 4)
y = (x[:, 0] - x[:, 1] > 0).long()
loader = DataLoader(TensorDataset(x[:200], y[:200]), batch_size=50,
                    shuffle=True)
x_val, y_val = x[200:], y[200:]


def train_one_epoch(model, optimizer):
    model.train()
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    return total / len(loader.dataset)


@torch.no_grad()
def evaluate(model):
    model.eval()
    logits = model(x_val)
    loss = nn.functional.cross_entropy(logits, y_val).item()
    accuracy = (logits.argmax(dim=1) == y_val).float().mean().item()
    return loss, accuracy

# %% log tags=["requires-tensorboard"]
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
writer = SummaryWriter(log_dir="runs/lr-0.1")  # one folder per run
history = []
for epoch in range(5):
    train_loss = train_one_epoch(model, optimizer)
    val_loss, accuracy = evaluate(model)
    writer.add_scalar("loss/train", train_loss, epoch)  # tag, value, step
    writer.add_scalar("loss/val", val_loss, epoch)
    writer.add_scalar("accuracy/val", accuracy, epoch)
    for name, param in model.named_parameters():
        writer.add_histogram(f"weights/{name}", param, epoch)
    writer.flush()  # on disk at the end of each epoch
    history.append((train_loss, val_loss, accuracy))
    print(f"epoch {epoch}: train {train_loss:.3f}  val {val_loss:.3f}  "
          f"accuracy {accuracy:.2f}")

# %% log-checks tags=["remove-cell"]
import math

assert writer.log_dir == "runs/lr-0.1"
assert history[-1][0] < history[0][0] and history[-1][1] < history[0][1]
files = os.listdir("runs/lr-0.1")
assert len(files) == 1 and files[0].startswith("events.out.tfevents.")

# %% read-back tags=["requires-tensorboard"]
from tensorboard.backend.event_processing import event_accumulator


def read_events(log_dir):
    events = event_accumulator.EventAccumulator(
        log_dir, size_guidance=event_accumulator.STORE_EVERYTHING_SIZE_GUIDANCE
    )  # by default it keeps only the last histogram of each tag
    events.Reload()  # reads every event file in the folder
    return events


events = read_events("runs/lr-0.1")
print(events.Tags()["scalars"])
for tag in events.Tags()["scalars"]:
    print(tag, [(e.step, round(e.value, 3)) for e in events.Scalars(tag)])

# %% read-back-checks tags=["remove-cell"]
assert events.Tags()["scalars"] == ["loss/train", "loss/val", "accuracy/val"]
for i, tag in enumerate(["loss/train", "loss/val", "accuracy/val"]):
    read = events.Scalars(tag)
    assert [e.step for e in read] == [0, 1, 2, 3, 4]
    # stored as float32: the values printed, rounded to float32
    assert [e.value for e in read] == [float(torch.tensor(h[i])) for h in history]
# the default keeps one histogram per tag, the last one
default = event_accumulator.EventAccumulator("runs/lr-0.1")
default.Reload()
assert [h.step for h in default.Histograms("weights/0.weight")] == [4]
# TensorBoard groups tags into sections by the part before the first slash
import re
import zipfile

import tensorboard

web = zipfile.ZipFile(os.path.join(os.path.dirname(tensorboard.__file__),
                                   "webfiles.zip")).read("index.js")
# in its frontend (webfiles.zip), the function that names a tag's section
split = re.search(rb'function (\w+)\((\w)\)\{return \2\.split\("/",1\)\[0\]\}', web)
assert re.search(rb"let (\w)=" + re.escape(split[1])
                 + rb"\(\w\.tag\);\w\.has\(\1\)\|\|\w\.set\(\1,\{groupName:\1,", web)

# %% histograms tags=["requires-tensorboard"]
for h in events.Histograms("weights/0.weight"):
    v = h.histogram_value
    print(f"epoch {h.step}: {v.num:.0f} values, min {v.min:.3f}, "
          f"max {v.max:.3f}")

# %% histograms-checks tags=["remove-cell"]
assert events.Tags()["histograms"] == [
    "weights/0.weight", "weights/0.bias", "weights/2.weight", "weights/2.bias"
]
last = events.Histograms("weights/0.weight")[-1].histogram_value
assert last.num == model[0].weight.numel() == 64
assert math.isclose(last.min, model[0].weight.min().item(), rel_tol=1e-6)
assert math.isclose(last.max, model[0].weight.max().item(), rel_tol=1e-6)
assert math.isclose(last.sum, model[0].weight.sum().item(), rel_tol=1e-4,
                    abs_tol=1e-5)
# one histogram of the first layer's weights per epoch
assert [h.step for h in events.Histograms("weights/0.weight")] == list(range(5))

# %% hparams tags=["requires-tensorboard"]
writer.add_hparams(
    {"lr": 0.1, "batch_size": 50, "epochs": 5},
    {"hparam/accuracy": history[-1][2]},  # a tag add_scalar does not use
    run_name=".",  # into this run's folder, not a new one
)
writer.flush()
print(read_events("runs/lr-0.1").Tags()["scalars"])

# %% hparams-checks tags=["remove-cell"]
import time

from tensorboard.plugins.hparams import plugin_data_pb2

# run_name="." wrote into runs/lr-0.1 itself: a second event file there
assert sorted(os.listdir("runs")) == ["lr-0.1"]
assert len(os.listdir("runs/lr-0.1")) == 2
events = read_events("runs/lr-0.1")
assert events.Tags()["scalars"][-1] == "hparam/accuracy"
content = events.summary_metadata["_hparams_/session_start_info"]
info = plugin_data_pb2.HParamsPluginData.FromString(
    content.plugin_data.content).session_start_info
assert {k: v.number_value for k, v in info.hparams.items()} == {
    "lr": 0.1, "batch_size": 50, "epochs": 5}
assert "_hparams_/experiment" in events.summary_metadata
# PyTorch's documentation: a metric's key should be a tag of its own
doc = " ".join(SummaryWriter.add_hparams.__doc__.split())
assert "the key used here should be unique in the tensorboard record" in doc
# without run_name, add_hparams writes to a new folder named by the time
with SummaryWriter("hparams-default") as other:
    now = time.time()
    other.add_hparams({"lr": 0.1}, {"hparam/accuracy": 0.5})
subfolders = [d for d in os.listdir("hparams-default")
              if os.path.isdir(os.path.join("hparams-default", d))]
assert len(subfolders) == 1 and abs(float(subfolders[0]) - now) < 60

# %% graph tags=["requires-tensorboard"]
writer.add_graph(model, x_val)  # traces the model with torch.jit.trace
writer.flush()
graph = read_events("runs/lr-0.1").Graph()
for node in graph.node:
    if node.op.startswith("aten::"):
        print(node.name.rsplit("/", 1)[0], node.op)

# %% graph-checks tags=["remove-cell"]
import inspect

from torch.utils.tensorboard import _pytorch_graph

ops = [n.op for n in graph.node if n.op.startswith("aten::")]
assert ops == ["aten::linear", "aten::relu", "aten::linear"]
assert read_events("runs/lr-0.1").Tags()["graph"]
# add_graph traces: the graph is what torch.jit.trace records
assert "torch.jit.trace(" in inspect.getsource(_pytorch_graph.graph)

# %% graph-dict tags=["requires-tensorboard"] raises="RuntimeError: Tracer cannot infer type of …Dictionary inputs to traced functions must have consistent type. Found Tensor and List[str]"
class Tagger(nn.Module):
    # takes a batch as a dict: the images and the file names they came from
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 1)

    def forward(self, batch):
        return self.linear(batch["x"])


batch = {"x": torch.ones(2, 4), "names": ["a.png", "b.png"]}
writer.add_graph(Tagger(), batch)

# %% graph-dict-fix tags=["requires-tensorboard"]
class TensorsOnly(nn.Module):
    # what add_graph traces: a forward that takes tensors only
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model({"x": x})


tagger = Tagger()
with SummaryWriter("graphs/tagger") as tagger_writer:
    tagger_writer.add_graph(TensorsOnly(tagger), batch["x"])
graph = read_events("graphs/tagger").Graph()
print([n.op for n in graph.node if n.op.startswith("aten::")])

# %% graph-dict-fix-checks tags=["remove-cell"]
assert [n.op for n in graph.node if n.op.startswith("aten::")] == ["aten::linear"]
# a dict whose values are all tensors traces as it is
with SummaryWriter("graphs/tagger-dict") as dict_writer:
    dict_writer.add_graph(tagger, {"x": batch["x"]})
assert read_events("graphs/tagger-dict").Tags()["graph"]

# %% close tags=["requires-tensorboard"]
import threading

threads = threading.active_count()
writer.close()  # flush, stop the writing thread, close the file
print(threads - threading.active_count(), "thread stopped")

# %% close-checks tags=["remove-cell"]
assert threads - threading.active_count() == 1
# a writer has a thread of its own from its creation on
# a daemon thread: Python does not wait for it at exit
running = set(threading.enumerate())
other = SummaryWriter("thread-check")
[thread] = set(threading.enumerate()) - running
assert thread.daemon
# add_scalar returns before its event is written: hold the thread's writes
record_writer = other.file_writer.event_writer._async_writer._writer
write, gate = record_writer.write, threading.Event()
record_writer.write = lambda data: (gate.wait(10), write(data))
[event_file] = os.listdir("thread-check")
size = os.path.getsize(os.path.join("thread-check", event_file))
other.add_scalar("x", 1.0, 0)  # returns at once
other.add_histogram("h", torch.arange(4.0), 0)  # the other add_ methods too
other.add_text("t", "text", 0)
assert os.path.getsize(os.path.join("thread-check", event_file)) == size
assert not gate.is_set()
gate.set()
other.flush()  # waits until the event is in the file
assert os.path.getsize(os.path.join("thread-check", event_file)) > size
other.close()
assert not thread.is_alive() and threading.active_count() == threads - 1
# with SummaryWriter(...) as writer: closes it at the end of the block
assert "self.close()" in inspect.getsource(SummaryWriter.__exit__)
# the defaults: a flush every 120 s, and a queue of 10 events
params = inspect.signature(SummaryWriter).parameters
assert params["flush_secs"].default == 120
assert params["max_queue"].default == 10
assert writer.flush_secs == 120 and writer.max_queue == 10

# %% runs tags=["requires-tensorboard"]
def train(lr, epochs=5):
    torch.manual_seed(0)  # the same start for every run
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    with SummaryWriter(f"runs/lr-{lr}") as writer:  # closed at the end
        for epoch in range(epochs):
            train_loss = train_one_epoch(model, optimizer)
            val_loss, accuracy = evaluate(model)
            writer.add_scalar("loss/train", train_loss, epoch)
            writer.add_scalar("loss/val", val_loss, epoch)
            writer.add_scalar("accuracy/val", accuracy, epoch)
        writer.add_hparams({"lr": lr}, {"hparam/accuracy": accuracy},
                           run_name=".")


for lr in (0.01, 1.0):
    train(lr)
for run in sorted(os.listdir("runs")):
    last = read_events(f"runs/{run}").Scalars("loss/val")[-1]
    print(f"{run}: loss/val at epoch {last.step}: {last.value:.3f}")

# %% runs-checks tags=["remove-cell"]
import shutil
import socket

assert sorted(os.listdir("runs")) == ["lr-0.01", "lr-0.1", "lr-1.0"]
final = {run: read_events(f"runs/{run}").Scalars("loss/val")[-1].value
         for run in os.listdir("runs")}
assert final["lr-0.01"] > final["lr-0.1"] > final["lr-1.0"]
# the default log_dir: runs/<month><day>_<hour>-<minute>-<second>_<host>
# a new folder each time (to the second); comment= adds to its name
os.makedirs("default")
os.chdir("default")
default_writer = SummaryWriter(comment="-lr0.1")
default_writer.close()
assert re.fullmatch(r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_"
                    + re.escape(socket.gethostname()) + "-lr0.1",
                    default_writer.log_dir)
assert os.listdir("runs") == [os.path.basename(default_writer.log_dir)]
os.chdir("..")
shutil.rmtree("default")

# %% same-folder tags=["requires-tensorboard"]
import subprocess

train(0.01)  # again, into runs/lr-0.01
events = read_events("runs/lr-0.01")
print([e.step for e in events.Scalars("loss/val")])
inspected = subprocess.run(  # tensorboard --inspect, run by this Python
    [sys.executable, "-m", "tensorboard.main", "--inspect",
     "--logdir", "runs/lr-0.01", "--tag", "loss/val"],
    capture_output=True, text=True, check=True,
)
print(inspected.stdout)

# %% same-folder-checks tags=["remove-cell"]
import importlib.util

assert [e.step for e in events.Scalars("loss/val")] == [0, 1, 2, 3, 4] * 2
assert len([f for f in os.listdir("runs/lr-0.01")
            if f.startswith("events.out.tfevents.")]) == 4  # 2 per train()
assert "outoforder_steps     [(4, 0)]" in inspected.stdout
# tensorboard says on stderr that it runs without TensorFlow: harmless
assert inspected.stderr.strip() == (
    "TensorFlow installation not found - running with reduced feature set.")
assert importlib.util.find_spec("tensorflow") is None

# %% add-scalars tags=["requires-tensorboard"]
with SummaryWriter("runs/add-scalars") as writer:
    for epoch, (train_loss, val_loss, _) in enumerate(history):
        writer.add_scalars("loss", {"train": train_loss, "val": val_loss},
                           epoch)
for folder in ("runs/add-scalars", "runs/add-scalars/loss_train",
               "runs/add-scalars/loss_val"):
    print(folder, read_events(folder).Tags()["scalars"])

# %% add-scalars-checks tags=["remove-cell"]
contents = sorted(os.listdir("runs/add-scalars"))
assert contents[1:] == ["loss_train", "loss_val"]  # a folder per key
assert contents[0].startswith("events.out.tfevents.")  # the writer's own
assert len(contents) == 3
assert [round(e.value, 6) for e in
        read_events("runs/add-scalars/loss_val").Scalars("loss")] == [
    round(h[1], 6) for h in history]

# %% images tags=["requires-tensorboard"]
import numpy as np

image = torch.rand(3, 32, 48)  # float in [0, 1], channels first
photo = (image.permute(1, 2, 0) * 255).to(torch.uint8).numpy()  # 32 x 48 x 3
batch = torch.rand(10, 3, 32, 48)  # N x C x H x W
with SummaryWriter("images") as writer:  # outside runs/: a folder of its own
    writer.add_image("image", image, 0)  # dataformats="CHW", the default
    writer.add_image("photo", photo, 0, dataformats="HWC")  # numpy, PIL
    writer.add_images("batch", batch, 0)  # dataformats="NCHW": one grid
events = read_events("images")
for tag in events.Tags()["images"]:
    logged = events.Images(tag)[-1]
    print(f"{tag}: {logged.width} x {logged.height}")

# %% images-checks tags=["remove-cell"]
import io

from PIL import Image


def pixels(events, tag):
    png = events.Images(tag)[-1].encoded_image_string
    return np.asarray(Image.open(io.BytesIO(png)))


# what was written: floats times 255, cut to integers, as H x W x 3 PNG pixels
expected = (image.permute(1, 2, 0).numpy() * 255).astype(np.uint8)
assert np.array_equal(pixels(events, "image"), expected)
assert np.array_equal(pixels(events, "photo"), photo)
# add_images: a grid of at most 8 columns, here 2 rows of 8, 2 of them filled
grid = pixels(events, "batch")
assert grid.shape == (2 * 32, 8 * 48, 3)
first = (batch[0].permute(1, 2, 0).numpy() * 255).astype(np.uint8)
assert np.array_equal(grid[:32, :48], first)
assert (grid[32:, 2 * 48:] == 0).all()  # the rest of the last row is black
# a gray image: HW, or CHW with one channel, becomes 3 equal channels
with SummaryWriter("images") as writer:
    writer.add_image("gray", torch.rand(1, 32, 48), 0)
gray = pixels(read_events("images"), "gray")
assert gray.shape == (32, 48, 3) and (gray[..., 0] == gray[..., 2]).all()

# %% image-range tags=["requires-tensorboard"]
import io

from PIL import Image

values = torch.tensor([[0, 64, 128, 255]], dtype=torch.uint8)  # 1 x 4, gray
with SummaryWriter("images") as writer:
    writer.add_image("uint8", values, 0, dataformats="HW")
    writer.add_image("float-0-1", values / 255, 0, dataformats="HW")
    # wrong: floats from 0 to 255
    writer.add_image("float-0-255", values.float(), 0, dataformats="HW")
events = read_events("images")
for tag in ("uint8", "float-0-1", "float-0-255"):
    png = events.Images(tag)[-1].encoded_image_string
    print(f"{tag:12}", np.asarray(Image.open(io.BytesIO(png)))[0, :, 0])

# %% image-range-checks tags=["remove-cell"]
assert np.array_equal(pixels(events, "uint8")[0, :, 0], [0, 64, 128, 255])
# floats are multiplied by 255 and clipped: from 1 up, white
assert np.array_equal(pixels(events, "float-0-255")[0, :, 0], [0, 255, 255, 255])
assert (values / 255).dtype == torch.float32
assert pixels(events, "float-0-1")[0, 0, 0] == 0
assert pixels(events, "float-0-1")[0, -1, 0] == 255
assert np.array_equal(pixels(events, "float-0-1"), pixels(events, "uint8"))
# HW: written as three equal channels
gray = pixels(events, "uint8")
assert gray.shape == (1, 4, 3) and (gray == gray[..., :1]).all()

# %% image-hwc-as-chw tags=["requires-tensorboard"] raises="TypeError: Cannot handle this data type: (1, 1, 32), |u1"
with SummaryWriter("images") as writer:
    writer.add_image("photo-as-chw", photo, 0)  # wrong: photo is HWC

# %% image-hwc-as-chw-checks tags=["remove-cell"]
# read as 32 channels of 48 x 3: no image mode has 32 channels
try:
    Image.fromarray(np.zeros((48, 3, 32), dtype=np.uint8))  # what PIL is given
except TypeError as error:
    assert str(error) == "Cannot handle this data type: (1, 1, 32), |u1"
else:
    raise AssertionError("PIL should refuse an image of 32 channels")
assert "photo-as-chw" not in read_events("images").Tags()["images"]
# with 1, 3 or 4 rows the same mistake raises nothing: a wrong image
strip = np.zeros((3, 48, 3), dtype=np.uint8)  # 3 x 48, HWC
with SummaryWriter("images") as writer:
    writer.add_image("strip-as-chw", strip, 0)
logged = read_events("images").Images("strip-as-chw")[-1]
assert (logged.width, logged.height) == (3, 48)  # not 48 x 3
for rows in (1, 4):  # and with 1 or 4 rows
    with SummaryWriter("images") as writer:
        writer.add_image(f"strip-{rows}", np.zeros((rows, 48, 3), np.uint8), 0)
    logged = read_events("images").Images(f"strip-{rows}")[-1]
    assert (logged.width, logged.height) == (3, 48)

# %% images-nhwc tags=["requires-tensorboard"] raises="AssertionError: Input should be a 4D numpy array with 3 channels" holds=">=2.10" claim="`add_images` refuses a channels-last batch with a message that names the layout it expects"
with SummaryWriter("images") as writer:
    writer.add_images("batch-nhwc", batch.permute(0, 2, 3, 1), 0)  # wrong

# %% images-nhwc-checks tags=["remove-cell"]
with SummaryWriter("images") as writer:
    writer.add_images("batch-nhwc", batch.permute(0, 2, 3, 1), 0,
                      dataformats="NHWC")
assert np.array_equal(pixels(read_events("images"), "batch-nhwc"), grid)
# a batch passed to add_image: its dimensions and "CHW" do not match
try:
    with SummaryWriter("images") as writer:
        writer.add_image("batch-as-chw", batch, 0)
except AssertionError as error:
    assert "size of input tensor and input format are different" in str(error)
else:
    raise AssertionError("a 4D tensor for add_image should raise")

# %% typo tags=["requires-tensorboard"]
inspected = subprocess.run(
    [sys.executable, "-m", "tensorboard.main", "--inspect",
     "--logdir", "run"],  # a typo: the folder is runs
    capture_output=True, text=True, check=True,
)
print(inspected.stdout)

# %% typo-checks tags=["remove-cell"]
import argparse

from tensorboard import program
from tensorboard.backend import application
from tensorboard.backend.event_processing import data_ingester
from tensorboard.plugins.core import core_plugin
from werkzeug.test import Client

assert inspected.stdout.rstrip().endswith(
    "No event files found within logdir run")


def server(logdir):
    """TensorBoard's server for logdir, as tensorboard --logdir starts it"""
    board = program.TensorBoard()
    board.configure(logdir=logdir, load_fast="false", reload_interval=0,
                    reload_task="blocking")
    ingester = data_ingester.LocalDataIngester(board.flags)
    ingester.start()  # loads logdir once, before returning
    return Client(application.TensorBoardWSGIApp(
        board.flags, board.plugin_loaders, ingester.data_provider,
        board.assets_zip_provider, ingester.deprecated_multiplexer))


def dashboards(logdir):
    listing = server(logdir).get("/data/plugins_listing").get_json()
    return {name for name, plugin in listing.items() if plugin["enabled"]}


# every folder under runs that holds event files is a run, named by its path
assert sorted(server("runs").get("/data/runs").get_json()) == [
    "add-scalars", "add-scalars/loss_train", "add-scalars/loss_val",
    "lr-0.01", "lr-0.1", "lr-1.0"]
# the server gives the two runs in runs/lr-0.01 as one series of 10 points
series = server("runs").get(
    "/data/plugin/scalars/scalars?run=lr-0.01&tag=loss/val").get_json()
assert [step for _, step, _ in series] == [0, 1, 2, 3, 4] * 2
found = dashboards("runs")
assert {"scalars", "histograms", "distributions", "graphs",
        "hparams"} <= found
assert dashboards("run") == set()  # nothing found: no dashboard is active
assert {"scalars", "histograms"} <= dashboards("runs/lr-0.1")  # one run
# event files without data: a writer that logged nothing yet
SummaryWriter("runs-empty/run").close()
assert dashboards("runs-empty") == set()
# the message TensorBoard's page shows then, and the causes it lists
page = web.decode("utf-8")
assert "No dashboards are active for the current data set." in page
assert "You haven\\u2019t written any data to your event files." in page
assert "TensorBoard can\\u2019t find your event files." in page
# the server reads the logdir again every 5 s; port 6006 by default
parser = argparse.ArgumentParser()
core_plugin.CorePluginLoader().define_flags(parser)
flags = parser.parse_args([])
assert flags.reload_interval == 5.0
assert core_plugin.DEFAULT_PORT == 6006
assert "Serve on all public interfaces" in " ".join(parser.format_help().split())
# the command and the notebook extension the page quotes
scripts = metadata.entry_points(group="console_scripts")
assert [s.value for s in scripts if s.name == "tensorboard"] == [
    "tensorboard.main:run_main"]
assert callable(tensorboard.load_ipython_extension)
# python -m tensorboard.main runs what the tensorboard command runs
import tensorboard.main

assert 'if __name__ == "__main__":\n    run_main()' in inspect.getsource(
    tensorboard.main)
