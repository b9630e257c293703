# %% [markdown]
# Variable-length sequences: pad_sequence makes a batch,
# pack_padded_sequence hides the padding from the RNN,
# pad_packed_sequence turns its output back into a tensor

# %% [markdown] lang="zh"
# 变长序列：`pad_sequence` 把序列填充成一个 batch，`pack_padded_sequence`
# 让 RNN 看不到填充部分，`pad_packed_sequence` 再把 RNN 的输出还原成张量

# %% setup
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, \
    pad_sequence

# three sequences of lengths 4, 2, 3; each step has 2 features
sequences = [torch.randn(n, 2) for n in (4, 2, 3)]
lengths = torch.tensor([len(s) for s in sequences])
print([tuple(s.shape) for s in sequences], lengths)

# %% pad
padded = pad_sequence(sequences, batch_first=True)
print(padded.shape)  # (batch, longest, features)
print(padded[1])  # the sequence of length 2, padded with zeros
# batch_first=False: (longest, batch, features)
print(pad_sequence(sequences).shape)

# %% padding-value
print(pad_sequence(sequences, batch_first=True, padding_value=-1.0)[1])

# %% collate
def pad_collate(batch):
    """collate_fn for a dataset of (sequence, label) pairs of \
different lengths"""
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True), lengths, torch.tensor(labels)


pairs = [(s, label) for s, label in zip(sequences, [0, 1, 0])]
loader = torch.utils.data.DataLoader(
    pairs, batch_size=3, collate_fn=pad_collate
)
x, x_lengths, y = next(iter(loader))
print(x.shape, x_lengths, y)

# %% unsorted tags=["raises-exception"]
# lengths 4, 2, 3: not sorted
pack_padded_sequence(padded, lengths, batch_first=True)

# %% pack
packed = pack_padded_sequence(
    padded, lengths, batch_first=True, enforce_sorted=False
)
print(packed.data.shape)  # 4 + 2 + 3 = 9 real steps, no padding
print(packed.batch_sizes)  # how many sequences are still running at each step
print(packed.sorted_indices)

# %% rnn
gru = nn.GRU(input_size=2, hidden_size=3, batch_first=True)
packed_out, h_packed = gru(packed)
print(type(packed_out).__name__, h_packed.shape)  # h: (layers, batch, hidden)

# %% unpack
out, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
print(out.shape, out_lengths)
print(out[1])  # steps after the end of sequence 1 are zeros

# %% last-step
# each sequence's output at its true last step
last = out[torch.arange(3), lengths - 1]
print(torch.allclose(h_packed[0], last))

# %% padded-run
out_padded, h_padded = gru(padded)  # the RNN also runs over the padding
print((h_padded[0] - last).abs().amax(dim=1))  # largest difference per sequence

# %% total-length
out, _ = pad_packed_sequence(
    packed_out, batch_first=True, total_length=6, padding_value=-1.0
)
print(out.shape)
print(out[1])

# %% lstm
lstm = nn.LSTM(input_size=2, hidden_size=3, batch_first=True)
packed_out, (h, c) = lstm(packed)
out, _ = pad_packed_sequence(packed_out, batch_first=True)
print(h.shape, c.shape, torch.allclose(h[0], out[torch.arange(3), lengths - 1]))

# %% lengths-on-gpu-error tags=["requires-cuda", "raises-exception"]
device = "cuda"
gru = gru.to(device)
padded_gpu, lengths_gpu = padded.to(device), lengths.to(device)
pack_padded_sequence(
    padded_gpu, lengths_gpu, batch_first=True, enforce_sorted=False
)

# %% lengths-on-gpu tags=["requires-cuda"]
# the data may be on the GPU; the lengths go to the CPU
packed = pack_padded_sequence(
    padded_gpu, lengths_gpu.cpu(), batch_first=True, enforce_sorted=False
)
packed_out, h = gru(packed)
print(packed_out.data.device, h.device)

# %% cuda-checks tags=["requires-cuda", "remove-cell"]
try:
    pack_padded_sequence(
        padded_gpu, lengths_gpu, batch_first=True, enforce_sorted=False
    )
except RuntimeError as error:
    assert "1D CPU int64 tensor" in str(error)
else:
    raise AssertionError("lengths on the GPU were accepted")
assert packed_out.data.is_cuda and h.is_cuda

# %% checks tags=["remove-cell"]
# What the page says, checked on every build
padded = pad_sequence(sequences, batch_first=True)
assert padded.shape == (3, 4, 2) and pad_sequence(sequences).shape == (4, 3, 2)
for i, s in enumerate(sequences):
    assert torch.equal(padded[i, : len(s)], s)
    assert torch.equal(padded[i, len(s):], torch.zeros(4 - len(s), 2))
minus = pad_sequence(sequences, batch_first=True, padding_value=-1.0)
assert torch.equal(minus[1, 2:], torch.full((2, 2), -1.0))
assert x.shape == (3, 4, 2) and x_lengths.tolist() == [4, 2, 3]
assert y.tolist() == [0, 1, 0]
try:
    pack_padded_sequence(padded, lengths, batch_first=True)
except RuntimeError as error:
    assert "must be sorted in decreasing order" in str(error)
    assert "enforce_sorted=False" in str(error)
else:
    raise AssertionError(
        "unsorted lengths were packed with enforce_sorted=True"
    )
packed = pack_padded_sequence(
    padded, lengths, batch_first=True, enforce_sorted=False
)
assert packed.data.shape == (9, 2)
assert packed.batch_sizes.tolist() == [3, 3, 2, 1]
assert packed.batch_sizes.dtype == torch.int64
assert packed.sorted_indices.tolist() == [0, 2, 1]
# lengths, if a tensor
assert "must be on the CPU" in pack_padded_sequence.__doc__
# a list or a tensor of another integer dtype
# work the same; both become int64 on the CPU
for other in ([4, 2, 3], lengths.int()):
    p = pack_padded_sequence(
        padded, other, batch_first=True, enforce_sorted=False
    )
    assert torch.equal(p.data, packed.data)
    assert torch.equal(p.batch_sizes, packed.batch_sizes)
gru = nn.GRU(input_size=2, hidden_size=3, batch_first=True)
packed_out, h_packed = gru(packed)
assert isinstance(packed_out, nn.utils.rnn.PackedSequence)
assert h_packed.shape == (1, 3, 3)
out, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
assert out.shape == (3, 4, 3)
assert out_lengths.tolist() == [4, 2, 3] and out_lengths.dtype == torch.int64
assert out_lengths.device.type == "cpu"
assert torch.equal(out[1, 2:], torch.zeros(2, 3))
assert torch.equal(out[2, 3:], torch.zeros(1, 3))
last = out[torch.arange(3), lengths - 1]
# h_n: the output at the true last step, in the original batch order
assert torch.allclose(h_packed[0], last)
out_padded, h_padded = gru(padded)
# the full-length sequence agrees
assert torch.allclose(h_padded[0, 0], last[0])
for i in (1, 2):  # the short ones went on through the padding
    assert not torch.allclose(h_padded[0, i], last[i], atol=1e-4)
    assert torch.allclose(
        out_padded[i, : lengths[i]], out[i, : lengths[i]], atol=1e-6
    )
# bidirectional: without packing the backward direction starts on padding
bi = nn.GRU(input_size=2, hidden_size=3, batch_first=True, bidirectional=True)
bi_out, _ = pad_packed_sequence(bi(packed)[0], batch_first=True)
bi_padded, _ = bi(padded)
assert not torch.allclose(bi_padded[1, :2], bi_out[1, :2], atol=1e-4)
assert torch.allclose(bi_padded[0], bi_out[0], atol=1e-6)
longer, _ = pad_packed_sequence(
    packed_out, batch_first=True, total_length=6, padding_value=-1.0
)
assert longer.shape == (3, 6, 3) and torch.equal(
    longer[1, 2:], torch.full((4, 3), -1.0)
)
assert torch.equal(longer[:, :4][out != 0], out[out != 0])
try:
    pad_packed_sequence(packed_out, batch_first=True, total_length=3)
except ValueError as error:
    assert "total_length to be at least the length of the longest sequence" \
        in str(error)
else:
    raise AssertionError(
        "total_length shorter than the longest sequence was accepted"
    )
# default: (steps, batch, features)
time_first = nn.GRU(input_size=2, hidden_size=3)
assert time_first(pad_sequence(sequences))[0].shape == (4, 3, 3)
rnn_out, rnn_h = nn.RNN(input_size=2, hidden_size=3, batch_first=True)(packed)
assert isinstance(rnn_out, nn.utils.rnn.PackedSequence) \
    and rnn_h.shape == (1, 3, 3)
lstm = nn.LSTM(input_size=2, hidden_size=3, batch_first=True)
packed_out, (h, c) = lstm(packed)
out, _ = pad_packed_sequence(packed_out, batch_first=True)
assert h.shape == c.shape == (1, 3, 3)
assert torch.allclose(h[0], out[torch.arange(3), lengths - 1])

# %% list-samples raises="RuntimeError: each element in list of batch should be of equal size"
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self):
        self.samples = [[5, 2], [7, 1, 4], [3], [6, 8, 9, 2]]  # token ids

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]  # a Python list, of its own length


next(iter(DataLoader(Sentences(), batch_size=2)))

# %% list-samples-fix
def pad_lists(batch):  # the batch: a list of samples
    sequences = [torch.tensor(sample) for sample in batch]
    lengths = torch.tensor([len(sample) for sample in batch])
    return pad_sequence(sequences, batch_first=True), lengths


loader = DataLoader(Sentences(), batch_size=2, collate_fn=pad_lists)
for tokens, lengths in loader:
    print(tokens.tolist(), lengths.tolist())

# %% list-samples-fix-checks tags=["remove-cell"]
# the default collate turns a batch of lists into one list per position
same_length = DataLoader([[1, 2], [3, 4]], batch_size=2)
columns = next(iter(same_length))
assert [c.tolist() for c in columns] == [[1, 3], [2, 4]]
batches = list(DataLoader(Sentences(), batch_size=2, collate_fn=pad_lists))
assert batches[0][0].tolist() == [[5, 2, 0], [7, 1, 4]]
assert batches[1][1].tolist() == [1, 4]
