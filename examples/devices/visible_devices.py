# %% [markdown]
# CUDA_VISIBLE_DEVICES is read once, when CUDA is initialised; the GPUs it lists
# are renumbered from 0. Child processes show what a fresh process sees

# %% [markdown] lang="zh"
# `CUDA_VISIBLE_DEVICES` 只在 CUDA 初始化时读取一次；它列出的 GPU 会从 0
# 开始重新编号。用子进程来展示一个全新的进程看到的情况

# %% helper
import os
import subprocess
import sys

import torch


def run_child(code, **env):
    """Run `code` in a fresh Python with extra environment variables; \
return stdout"""
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


# %% hide-all
code = \
    "import torch; print(torch.cuda.is_available(), torch.cuda.device_count())"
hidden = run_child(code, CUDA_VISIBLE_DEVICES="")
print(hidden)
assert hidden == "False 0"

# %% not-initialised
print(torch.cuda.is_initialized())

# %% initialised-on-use tags=["requires-cuda"]
assert not torch.cuda.is_initialized()
x = torch.zeros(1, device="cuda")  # the first CUDA call initialises CUDA
print(torch.cuda.is_initialized())
assert torch.cuda.is_initialized()

# %% set-in-code tags=["requires-cuda"]
before = """
import os
os.environ["CUDA_VISIBLE_DEVICES"] = ""  # before any CUDA call: takes effect
import torch
print(torch.cuda.device_count())
"""
too_late = """
import os
import torch
torch.zeros(1, device="cuda")  # CUDA is initialised here
os.environ["CUDA_VISIBLE_DEVICES"] = ""  # too late: CUDA keeps its GPUs
print(torch.zeros(1, device="cuda").device, torch.cuda.device_count())
"""
seen_before, seen_too_late = run_child(before), run_child(too_late)
print(seen_before)
print(seen_too_late)
assert seen_before == "0"
device_after, count_after = seen_too_late.split()
assert device_after == "cuda:0"  # the GPU is still used
# but the count may already read the variable
assert int(count_after) in (0, torch.cuda.device_count())

# %% too-late-is-available tags=["requires-cuda"]
after_check = """
import os
import torch
print(torch.cuda.is_available(), torch.cuda.is_initialized())
os.environ["CUDA_VISIBLE_DEVICES"] = ""  # too late: is_available() \
started the driver
print(torch.zeros(1, device="cuda").device)  # still finds a GPU
"""
# pin the default check; some setups set it
# to "1" (an NVML check that starts nothing)
seen = run_child(after_check, PYTORCH_NVML_BASED_CUDA_CHECK="0").split("\n")
print(seen)
assert seen == ["True False", "cuda:0"]

# %% renumbered tags=["requires-cuda"]
# the variable takes the parent's numbering (or GPU UUIDs), so keep its entries
visible = os.environ.get("CUDA_VISIBLE_DEVICES")
if visible:
    entries = [entry.strip() for entry in visible.split(",")]
else:
    entries = [str(i) for i in range(torch.cuda.device_count())]
# the last GPU this process sees: cuda:<last>
last = torch.cuda.device_count() - 1
code = (
    "import torch; print(torch.cuda.device_count(),"
    " torch.cuda.current_device(), torch.cuda.get_device_name(0))"
)
count, current, name = run_child(
    code, CUDA_VISIBLE_DEVICES=entries[last]
).split(" ", 2)
print(count, current, name)
assert count == "1" and current == "0"  # one GPU, and it is cuda:0
# the same card as our cuda:<last>
assert name == torch.cuda.get_device_name(last)

# %% old-index tags=["requires-cuda"]
code = """
import torch
try:
    torch.zeros(1, device="cuda:1")  # the child sees one GPU: \
only cuda:0 exists
except Exception as error:
    print(type(error).__name__ + ":", str(error).partition("\\n")[0])
else:
    print("no error")
"""
failed = run_child(code, CUDA_VISIBLE_DEVICES=entries[last])
print(failed)
assert failed != "no error"

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
assert hidden == "False 0"  # an empty CUDA_VISIBLE_DEVICES hides every GPU
if not torch.cuda.is_available():
    assert not torch.cuda.is_initialized()

# %% no-gpus-fallback
code = """
import os
import torch

print(repr(os.environ["CUDA_VISIBLE_DEVICES"]), torch.cuda.device_count())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.ones(2, device=device).device)  # no GPU: the CPU
"""
for visible in ["", "99"]:  # empty, and a GPU that does not exist
    print(run_child(code, CUDA_VISIBLE_DEVICES=visible).split("\n"))

# %% no-gpus-fallback-checks tags=["remove-cell"]
for visible in ["", "99"]:
    seen = run_child(code, CUDA_VISIBLE_DEVICES=visible).split("\n")
    assert seen == [f"{visible!r} 0", "cpu"], seen

# %% no-gpus-error tags=["requires-cuda"]
code = """
import torch
try:
    torch.zeros(1, device="cuda")  # the first CUDA call
except RuntimeError as error:
    print(type(error).__name__ + ":", error)
"""
for visible in ["", "99"]:
    failed = run_child(code, CUDA_VISIBLE_DEVICES=visible)
    print(failed)
    assert failed == "RuntimeError: No CUDA GPUs are available"
