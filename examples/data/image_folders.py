# %% [markdown]
# The folder layout torchvision's ImageFolder expects: a small image tree, a
# Dataset written with torch alone that reads it the way ImageFolder does, and
# the layouts that fail or give wrong labels (no class folders, a hidden
# .ipynb_checkpoints folder, one dataset for train/ and val/ together). The
# cells tagged requires-torchvision run ImageFolder itself: they need a
# torchvision that matches your torch

# %% [markdown] lang="zh"
# torchvision 的 `ImageFolder` 要求的文件夹结构：一个小图片目录，
# 一个只用 torch 写、按 `ImageFolder` 的规则读取它的 `Dataset`，
# 以及会报错或给出错误标签的几种放法（没有类别子文件夹、
# 隐藏的 `.ipynb_checkpoints` 文件夹、把 train/ 和 val/ 当成一个数据集）。
# 标有 requires-torchvision 的单元运行的是 `ImageFolder` 本身，
# 需要与 torch 配套的 torchvision

# %% setup
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

COLORS = {"cat": (200, 120, 40), "dog": (40, 90, 200)}


def save_images(folder, color, count):
    os.makedirs(folder, exist_ok=True)
    for i in range(count):
        Image.new("RGB", (6, 4), color).save(f"{folder}/{i}.png")


def show_tree(root):
    for folder, subfolders, files in sorted(os.walk(root)):
        subfolders.sort()
        depth = folder.count(os.sep)
        print("    " * depth + os.path.basename(folder) + "/", *sorted(files))


for split, count in [("train", 3), ("val", 1)]:
    for name, color in COLORS.items():
        save_images(f"data/{split}/{name}", color, count)
show_tree("data")

# %% setup-checks tags=["remove-cell"]
assert sorted(os.listdir("data")) == ["train", "val"]
assert sorted(os.listdir("data/train/dog")) == ["0.png", "1.png", "2.png"]
assert sorted(os.listdir("data/val/cat")) == ["0.png"]

# %% folder-dataset
EXTENSIONS = (
    ".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"
)


def find_classes(root):
    # every folder directly under root is a class, in sorted order
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {root}.")
    return classes, {name: i for i, name in enumerate(classes)}


class FolderDataset(Dataset):
    """Reads root/<class>/<image> the way ImageFolder does"""

    def __init__(self, root, allow_empty=False):
        self.classes, self.class_to_idx = self.find_classes(root)
        self.samples = []  # (path, label), class by class, sorted
        for name in self.classes:
            label = self.class_to_idx[name]
            for folder, _, files in sorted(os.walk(os.path.join(root, name))):
                for file in sorted(files):
                    if file.lower().endswith(EXTENSIONS):
                        self.samples.append((os.path.join(folder, file), label))
        found = {self.classes[label] for _, label in self.samples}
        empty = sorted(set(self.classes) - found)
        if empty and not allow_empty:
            raise FileNotFoundError(
                f"Found no valid file for the classes {', '.join(empty)}. "
                f"Supported extensions are: {', '.join(EXTENSIONS)}"
            )

    def find_classes(self, root):
        return find_classes(root)

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        path, label = self.samples[index]
        with Image.open(path) as image:
            rgb = image.convert("RGB")
        x = torch.frombuffer(bytearray(rgb.tobytes()), dtype=torch.uint8)
        x = x.view(rgb.height, rgb.width, 3).permute(2, 0, 1)  # C, H, W
        return x.float() / 255, label


train = FolderDataset("data/train")
print(train.classes, train.class_to_idx)
for path, label in train.samples:
    print(path, label)
x, y = next(iter(DataLoader(train, batch_size=4, shuffle=True)))
print(x.shape, y)

# %% folder-dataset-checks tags=["remove-cell"]
assert train.classes == ["cat", "dog"]
assert train.class_to_idx == {"cat": 0, "dog": 1}
assert len(train) == 6
# each sample's label is the index of the folder it lies in
for path, label in train.samples:
    assert train.classes[label] == path.split(os.sep)[-2]
assert x.shape == (4, 3, 4, 6) and x.dtype == torch.float32
assert y.dtype == torch.int64
for image, label in zip(x, y):
    color = torch.tensor(COLORS[train.classes[label]]) / 255
    assert torch.allclose(image[:, 0, 0], color)

# %% tv-imagefolder tags=["requires-torchvision"]
from torchvision.datasets import ImageFolder

tv_train = ImageFolder("data/train")
print(tv_train.classes, tv_train.class_to_idx)
print(tv_train.samples[:2])
image, label = tv_train[0]
print(type(image).__name__, image.mode, image.size, label)

# %% tv-imagefolder-checks tags=["remove-cell"]
assert tv_train.classes == train.classes
assert tv_train.class_to_idx == train.class_to_idx
assert tv_train.samples == train.samples
assert tv_train.targets == [label for _, label in train.samples]
assert isinstance(image, Image.Image) and image.mode == "RGB"
assert image.size == (6, 4) and label == 0
from torchvision.datasets.folder import IMG_EXTENSIONS
import inspect

assert tuple(IMG_EXTENSIONS) == EXTENSIONS
parameters = inspect.signature(ImageFolder).parameters
assert {"transform", "loader", "is_valid_file", "allow_empty"} <= set(parameters)
assert "extensions" not in parameters  # DatasetFolder's, not ImageFolder's

# %% one-per-split
val = FolderDataset("data/val")
print(val.class_to_idx, len(train), len(val))
wrong = FolderDataset("data")  # the parent of train/ and val/
print(wrong.class_to_idx, len(wrong))
print(wrong.samples[0])

# %% one-per-split-checks tags=["remove-cell"]
assert val.class_to_idx == train.class_to_idx and len(val) == 2
# the parent's classes are the splits: no error, every label is wrong
assert wrong.classes == ["train", "val"] and len(wrong) == 8
assert wrong.samples[0] == (os.path.join("data", "train", "cat", "0.png"), 0)
assert sum(label == 0 for _, label in wrong.samples) == 6

# %% tv-one-per-split tags=["requires-torchvision"]
print(ImageFolder("data").class_to_idx)  # the splits became the classes

# %% tv-one-per-split-checks tags=["remove-cell"]
assert ImageFolder("data").samples == wrong.samples
assert ImageFolder("data/val").samples == val.samples

# %% no-class-folder raises="FileNotFoundError: Couldn't find any class folder in data/test."
save_images("data/test", (90, 90, 90), 2)  # images straight in data/test
test = FolderDataset("data/test")

# %% tv-no-class-folder tags=["requires-torchvision"] raises="FileNotFoundError: Couldn't find any class folder in data/test."
ImageFolder("data/test")

# %% typo raises="FileNotFoundError: [Errno 2] No such file or directory: 'data/trian'"
FolderDataset("data/trian")

# %% tv-typo tags=["requires-torchvision"] raises="FileNotFoundError: [Errno 2] No such file or directory: 'data/trian'"
ImageFolder("data/trian")

# %% nested
save_images("data/extra/cat/old", COLORS["cat"], 1)  # a subfolder of cat/
save_images("data/extra/dog", COLORS["dog"], 1)
save_images("data/extra", (0, 0, 0), 1)  # next to the class folders
extra = FolderDataset("data/extra")
print(extra.class_to_idx)
print(extra.samples)

# %% nested-checks tags=["remove-cell"]
assert extra.classes == ["cat", "dog"]
assert os.path.isfile("data/extra/0.png")  # there, but in no sample
assert extra.samples == [
    (os.path.join("data", "extra", "cat", "old", "0.png"), 0),
    (os.path.join("data", "extra", "dog", "0.png"), 1),
]

# %% tv-nested-checks tags=["remove-cell", "requires-torchvision"]
assert ImageFolder("data/extra").samples == extra.samples

# %% checkpoints raises="FileNotFoundError: Found no valid file for the classes .ipynb_checkpoints. Supported extensions are: .jpg, .jpeg, .png, …"
os.makedirs("data/train/.ipynb_checkpoints")  # what Jupyter leaves behind
print(sorted(os.listdir("data/train")))
train = FolderDataset("data/train")

# %% checkpoints-checks tags=["remove-cell"]
os.makedirs("data/empty/a")
os.makedirs("data/empty/b")
try:
    FolderDataset("data/empty")
except FileNotFoundError as error:  # every empty class is named
    assert str(error).startswith("Found no valid file for the classes a, b. ")
else:
    raise AssertionError("two empty classes should fail")

# %% tv-checkpoints tags=["requires-torchvision"] raises="FileNotFoundError: Found no valid file for the classes .ipynb_checkpoints. Supported extensions are: .jpg, .jpeg, .png, …"
ImageFolder("data/train")

# %% tv-checkpoints-checks tags=["remove-cell"]
try:
    ImageFolder("data/empty")
except FileNotFoundError as error:
    assert str(error).startswith("Found no valid file for the classes a, b. ")
else:
    raise AssertionError("two empty classes should fail")

# %% checkpoints-shift
shifted = FolderDataset("data/train", allow_empty=True)
print(shifted.class_to_idx)

# %% checkpoints-shift-checks tags=["remove-cell"]
# "." sorts before digits and letters: the hidden folder takes label 0
assert sorted(["cat", "Zebra", "1", ".ipynb_checkpoints"])[0] == ".ipynb_checkpoints"
assert shifted.class_to_idx == {".ipynb_checkpoints": 0, "cat": 1, "dog": 2}
assert len(shifted) == 6
assert {label for _, label in shifted.samples} == {1, 2}

# %% tv-checkpoints-shift tags=["requires-torchvision"]
print(ImageFolder("data/train", allow_empty=True).class_to_idx)

# %% tv-checkpoints-shift-checks tags=["remove-cell"]
assert ImageFolder("data/train", allow_empty=True).samples == shifted.samples


# %% skip-hidden
def find_visible_classes(root):
    # find_classes without the folders whose name starts with "."
    classes = sorted(
        e.name for e in os.scandir(root)
        if e.is_dir() and not e.name.startswith(".")
    )
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {root}.")
    return classes, {name: i for i, name in enumerate(classes)}


class VisibleFolderDataset(FolderDataset):
    def find_classes(self, root):
        return find_visible_classes(root)


train = VisibleFolderDataset("data/train")
print(train.class_to_idx, len(train))

# %% skip-hidden-checks tags=["remove-cell"]
assert os.path.isdir("data/train/.ipynb_checkpoints")  # still there
assert train.class_to_idx == {"cat": 0, "dog": 1} and len(train) == 6


# %% tv-skip-hidden tags=["requires-torchvision"]
class VisibleImageFolder(ImageFolder):
    def find_classes(self, directory):
        return find_visible_classes(directory)


tv_train = VisibleImageFolder("data/train")
print(tv_train.class_to_idx, len(tv_train))

# %% tv-skip-hidden-checks tags=["remove-cell"]
assert tv_train.class_to_idx == {"cat": 0, "dog": 1} and len(tv_train) == 6
assert tv_train.samples == train.samples

# %% sort-order
names = ["1", "2", "10", "Zebra", "cat"]
print(sorted(names))
print({name: i for i, name in enumerate(sorted(names))})

# %% sort-order-checks tags=["remove-cell"]
order = sorted(names)
# strings sort character by character, upper case before lower case
assert order == ["1", "10", "2", "Zebra", "cat"]
assert order.index("10") == 1 and order.index("2") == 2
assert sorted(["01", "02", "10"]) == ["01", "02", "10"]  # zero-padded: in order

# %% missing-class
save_images("data/train/fox", (150, 150, 150), 2)
save_images("data/val2/cat", COLORS["cat"], 1)  # a val set without dog/
save_images("data/val2/fox", (150, 150, 150), 1)
train = VisibleFolderDataset("data/train")
val = VisibleFolderDataset("data/val2")
print(train.class_to_idx)
print(val.class_to_idx)
print(train.class_to_idx == val.class_to_idx)

# %% missing-class-checks tags=["remove-cell"]
assert train.class_to_idx == {"cat": 0, "dog": 1, "fox": 2}
assert val.class_to_idx == {"cat": 0, "fox": 1}  # fox: 2 in train, 1 here

# %% tv-missing-class-checks tags=["remove-cell", "requires-torchvision"]
assert VisibleImageFolder("data/val2").class_to_idx == val.class_to_idx

# %% same-classes
class TrainClasses(VisibleFolderDataset):
    def find_classes(self, root):
        return train.classes, train.class_to_idx  # the training set's


val = TrainClasses("data/val2", allow_empty=True)
print(val.class_to_idx)
print(val.samples)

# %% same-classes-checks tags=["remove-cell"]
assert val.class_to_idx == train.class_to_idx
assert [label for _, label in val.samples] == [0, 2]
try:
    TrainClasses("data/val2")
except FileNotFoundError as error:
    assert "Found no valid file for the classes dog." in str(error)
else:
    raise AssertionError("a class without a folder is an empty class")


# %% tv-same-classes tags=["requires-torchvision"]
tv_train = VisibleImageFolder("data/train")


class TrainImageClasses(ImageFolder):
    def find_classes(self, directory):
        return tv_train.classes, tv_train.class_to_idx


tv_val = TrainImageClasses("data/val2", allow_empty=True)
print(tv_val.class_to_idx)
print(tv_val.samples)

# %% tv-same-classes-checks tags=["remove-cell"]
assert tv_train.samples == train.samples
assert tv_val.class_to_idx == val.class_to_idx
assert tv_val.samples == val.samples


# %% truncated raises="OSError: image file is truncated (… bytes not processed)"
import io
import pathlib

import numpy as np
from PIL import ImageFile

rng = np.random.default_rng(0)
pixels = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
buffer = io.BytesIO()
Image.fromarray(pixels).save(buffer, "JPEG")
data = buffer.getvalue()
pathlib.Path("photos").mkdir()
pathlib.Path("photos/ok.jpg").write_bytes(data)
pathlib.Path("photos/cut.jpg").write_bytes(data[:-2000])  # end cut off
pathlib.Path("photos/head.jpg").write_bytes(data[:300])  # header cut off
image = Image.open("photos/cut.jpg")  # reads the header only: no error
print(image.size)
image.convert("RGB")  # decoding the pixels fails

# %% truncated-checks tags=["remove-cell"]
assert image.size == (256, 256) and len(data) > 2300
assert ImageFile.LOAD_TRUNCATED_IMAGES is False  # the default
for name in ("cut.jpg", "head.jpg"):
    try:
        Image.open(f"photos/{name}").load()  # load() fails the same way
    except OSError as error:
        assert "runcated" in str(error)
    else:
        raise AssertionError(f"{name} loaded")
# a cut PNG: the same error, without the byte count
Image.fromarray(pixels).save("photos/full.png")
png = pathlib.Path("photos/full.png").read_bytes()
pathlib.Path("photos/full.png").unlink()
try:
    Image.open(io.BytesIO(png[:-5000])).load()
except OSError as error:
    assert str(error).startswith("image file is truncated")
else:
    raise AssertionError("the cut PNG loaded")

# %% load-truncated
ImageFile.LOAD_TRUNCATED_IMAGES = True  # global, for every later open
image = Image.open("photos/cut.jpg").convert("RGB")
print(image.size, np.array(image)[-1, -2:].tolist())  # the lost part: grey

# %% load-truncated-checks tags=["remove-cell"]
good = np.array(Image.open("photos/ok.jpg").convert("RGB"))
got = np.array(image)
assert got.shape == good.shape == (256, 256, 3)
assert (got[-1, -100:] == 128).all() and not (good[-1, -100:] == 128).all()
assert (got[0] == good[0]).all()  # the top rows decoded as before
try:
    Image.open("photos/head.jpg").convert("RGB")  # a cut header still fails
except OSError as error:
    assert "runcated" in str(error)
else:
    raise AssertionError("the header-truncated file loaded")

# %% find-broken
ImageFile.LOAD_TRUNCATED_IMAGES = False  # the default: report every bad file
pathlib.Path("photos/notes.jpg").write_text("not an image")


def find_broken(folder):
    """The images under folder that Pillow cannot decode, with the error"""
    broken = []
    for path in sorted(pathlib.Path(folder).rglob("*")):
        if path.is_file():
            try:
                with Image.open(path) as image:
                    image.convert("RGB")
            except OSError as error:
                broken.append((path.as_posix(), type(error).__name__))
    return broken


for path, error in find_broken("photos"):
    print(path, error)

# %% find-broken-checks tags=["remove-cell"]
assert find_broken("photos") == [
    ("photos/cut.jpg", "OSError"),
    ("photos/head.jpg", "OSError"),
    ("photos/notes.jpg", "UnidentifiedImageError"),
]
from PIL import UnidentifiedImageError

assert issubclass(UnidentifiedImageError, OSError)

# %% imread-none raises="FileNotFoundError: photos/cat.jpg"
def load_rgb(path):
    """An (H, W, 3) uint8 array; raise, never return None"""
    if not pathlib.Path(path).is_file():  # cv2.imread would return None
        raise FileNotFoundError(path)
    with Image.open(path) as image:
        return np.array(image.convert("RGB"))


print(load_rgb("photos/ok.jpg").shape)
load_rgb("photos/cat.jpg")  # a wrong relative path

# %% imread-none-checks tags=["remove-cell"]
assert load_rgb("photos/ok.jpg").dtype == np.uint8
# relative paths are read from the working directory
here = pathlib.Path.cwd()
assert pathlib.Path("photos/ok.jpg").resolve().parent == here / "photos"
