# %% [markdown]
# LSTM and RNN input and output shapes: (seq, batch, feature) by default,
# (batch, seq, feature) with batch_first=True; h_n and c_n are
# (num_layers * directions, batch, hidden) either way

# %% [markdown] lang="zh"
# LSTM 和 RNN 的输入输出形状：默认是 (seq, batch, feature)，
# `batch_first=True` 时是 (batch, seq, feature)；`h_n` 和 `c_n`
# 无论哪种都是 (num_layers * directions, batch, hidden)

# %% lstm
import torch
from torch import nn

lstm = nn.LSTM(input_size=3, hidden_size=5, num_layers=2)
x = torch.randn(7, 4, 3)  # (seq_len, batch, input_size)
output, (h_n, c_n) = lstm(x)
print(tuple(output.shape))  # (seq_len, batch, hidden_size)
print(tuple(h_n.shape), tuple(c_n.shape))  # (num_layers, batch, hidden_size)

# %% lstm-checks tags=["remove-cell"]
assert output.shape == (7, 4, 5)
assert h_n.shape == c_n.shape == (2, 4, 5)

# %% last-step
print(torch.equal(output[-1], h_n[-1]))

# %% last-step-checks tags=["remove-cell"]
# output holds the last layer's h at every step; h_n every layer's at the end
assert torch.equal(output[-1], h_n[-1])
assert not torch.allclose(h_n[0], h_n[1])
assert not torch.allclose(c_n[-1], h_n[-1])  # c is the cell state, not h
assert not any(torch.allclose(output[t], c_n[-1]) for t in range(7))

# %% batch-first
lstm_bf = nn.LSTM(input_size=3, hidden_size=5, num_layers=2, batch_first=True)
lstm_bf.load_state_dict(lstm.state_dict())  # the same weights
x_bf = x.transpose(0, 1)  # (batch, seq_len, input_size)
output_bf, (h_n_bf, c_n_bf) = lstm_bf(x_bf)
print(tuple(x_bf.shape), tuple(output_bf.shape))
print(tuple(h_n_bf.shape))  # still (num_layers, batch, hidden_size)
print(torch.allclose(output_bf, output.transpose(0, 1)))
print(torch.allclose(h_n_bf, h_n))

# %% batch-first-checks tags=["remove-cell"]
assert output_bf.shape == (4, 7, 5) and h_n_bf.shape == c_n_bf.shape == (2, 4, 5)
assert torch.allclose(output_bf, output.transpose(0, 1))
assert torch.allclose(h_n_bf, h_n) and torch.allclose(c_n_bf, c_n)
# batch_first is only a layout: no parameter depends on it
assert [n for n, _ in lstm_bf.named_parameters()] == [
    n for n, _ in lstm.named_parameters()
]

# %% initial-state
h_0 = torch.zeros(2, 4, 5)  # (num_layers, batch, hidden_size)
c_0 = torch.zeros(2, 4, 5)
output_0, _ = lstm_bf(x_bf, (h_0, c_0))
print(torch.allclose(output_0, output_bf))

# %% initial-state-checks tags=["remove-cell"]
# no state given means zeros
assert torch.allclose(output_0, output_bf)

# %% state-batch-first tags=["raises-exception"]
h_0 = torch.zeros(4, 2, 5)  # (batch, num_layers, hidden): wrong
lstm_bf(x_bf, (h_0, h_0))

# %% state-batch-first-checks tags=["remove-cell"]
try:
    lstm_bf(x_bf, (h_0, h_0))
except RuntimeError as error:
    assert "Expected hidden[0] size (2, 4, 5), got [4, 2, 5]" in str(error)
else:
    raise AssertionError("the state should be refused")

# %% bidirectional
bi = nn.LSTM(3, 5, num_layers=2, batch_first=True, bidirectional=True)
output_bi, (h_n_bi, c_n_bi) = bi(x_bf)
print(tuple(output_bi.shape))  # (batch, seq_len, 2 * hidden_size)
print(tuple(h_n_bi.shape))  # (num_layers * 2, batch, hidden_size)
forward_last = output_bi[:, -1, :5]  # forward direction, last step
backward_last = output_bi[:, 0, 5:]  # backward direction ends at step 0
print(torch.equal(forward_last, h_n_bi[-2]))
print(torch.equal(backward_last, h_n_bi[-1]))
print(torch.equal(output_bi[:, -1, 5:], h_n_bi[-1]))

# %% bidirectional-checks tags=["remove-cell"]
assert output_bi.shape == (4, 7, 10) and h_n_bi.shape == (4, 4, 5)
assert c_n_bi.shape == (4, 4, 5)
# h_n is ordered layer by layer, forward then backward
h_layers = h_n_bi.view(2, 2, 4, 5)  # (num_layers, directions, batch, hidden)
assert torch.equal(h_layers[-1, 0], output_bi[:, -1, :5])
assert torch.equal(h_layers[-1, 1], output_bi[:, 0, 5:])
assert not torch.allclose(output_bi[:, -1, 5:], h_n_bi[-1])

# %% gru-rnn
gru = nn.GRU(input_size=3, hidden_size=5, batch_first=True)
rnn = nn.RNN(input_size=3, hidden_size=5, batch_first=True)
output_gru, h_n_gru = gru(x_bf)  # one state: no c_n
output_rnn, h_n_rnn = rnn(x_bf)
print(tuple(output_gru.shape), tuple(h_n_gru.shape))
print(tuple(output_rnn.shape), tuple(h_n_rnn.shape))

# %% gru-rnn-checks tags=["remove-cell"]
assert isinstance(h_n_gru, torch.Tensor) and isinstance(h_n_rnn, torch.Tensor)
assert output_gru.shape == output_rnn.shape == (4, 7, 5)
assert h_n_gru.shape == h_n_rnn.shape == (1, 4, 5)
assert isinstance(lstm(x)[1], tuple) and len(lstm(x)[1]) == 2

# %% unbatched
output_1, (h_n_1, c_n_1) = lstm_bf(x_bf[0])  # (seq_len, input_size)
print(tuple(output_1.shape), tuple(h_n_1.shape))
print(torch.allclose(output_1, output_bf[0], atol=1e-6))

# %% unbatched-checks tags=["remove-cell"]
# a 2-D input is one sequence, whatever batch_first says
assert output_1.shape == (7, 5) and h_n_1.shape == c_n_1.shape == (2, 5)
assert torch.allclose(output_1, output_bf[0], atol=1e-6)
assert torch.allclose(lstm(x[:, 0])[0], output[:, 0], atol=1e-6)

# %% wrong-layout
# lstm was built without batch_first: it reads dimension 0 as time
wrong, _ = lstm(x_bf)  # x_bf is (batch=4, seq_len=7, input_size=3)
print(tuple(wrong.shape))

x_changed = x_bf.clone()
x_changed[0] += 1.0  # change the first sequence only
wrong_changed, _ = lstm(x_changed)
right, _ = lstm_bf(x_bf)
right_changed, _ = lstm_bf(x_changed)
# do the other sequences' outputs change?
print(torch.equal(wrong[1:], wrong_changed[1:]))
print(torch.equal(right[1:], right_changed[1:]))

# %% wrong-layout-checks tags=["remove-cell"]
# a DataLoader's default collate stacks samples batch first
from torch.utils.data import default_collate

assert default_collate(list(x_bf)).shape == (4, 7, 3)
# no error, and an output of a plausible shape
assert wrong.shape == (4, 7, 5)
# without batch_first the four sequences are four time steps: the first one
# leaks into the outputs of all the others
assert not torch.allclose(wrong[1:], wrong_changed[1:])
for i in range(1, 4):
    assert not torch.allclose(wrong[i], wrong_changed[i])
# with batch_first each sequence is on its own
assert torch.equal(right[1:], right_changed[1:])
assert not torch.allclose(right[0], right_changed[0])
# the fix without a new model: transpose to (seq_len, batch, input_size)
fixed, _ = lstm(x_bf.transpose(0, 1))
assert torch.allclose(fixed.transpose(0, 1), right, atol=1e-6)

# %% dropout-one-layer
import warnings

torch.manual_seed(0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lstm_drop = nn.LSTM(3, 5, num_layers=1, dropout=0.5, batch_first=True)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")

lstm_plain = nn.LSTM(3, 5, num_layers=1, batch_first=True)
lstm_plain.load_state_dict(lstm_drop.state_dict())  # the same weights
print(lstm_drop.training)
# does dropout=0.5 change anything in train mode?
print(torch.equal(lstm_drop(x_bf)[0], lstm_plain(x_bf)[0]))

# %% dropout-one-layer-checks tags=["remove-cell"]
assert [w.category for w in caught] == [UserWarning]
assert str(caught[0].message).startswith(
    "dropout option adds dropout after all but last recurrent layer, so "
    "non-zero dropout expects num_layers greater than 1"
)
assert lstm_drop.training and lstm_plain.training
for _ in range(3):  # the same output on every call
    assert torch.equal(lstm_drop(x_bf)[0], lstm_plain(x_bf)[0])
# GRU and RNN warn the same way and drop nothing either
for cls in (nn.GRU, nn.RNN):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with_drop = cls(3, 5, dropout=0.5, batch_first=True)
    assert "expects num_layers greater than 1" in str(seen[0].message)
    without = cls(3, 5, batch_first=True)
    without.load_state_dict(with_drop.state_dict())
    assert torch.equal(with_drop(x_bf)[0], without(x_bf)[0])
# with two layers it does act, between the layers, in train mode only
deep_drop = nn.LSTM(3, 5, num_layers=2, dropout=0.5, batch_first=True)
deep_plain = nn.LSTM(3, 5, num_layers=2, batch_first=True)
deep_plain.load_state_dict(deep_drop.state_dict())
assert not torch.equal(deep_drop(x_bf)[0], deep_plain(x_bf)[0])
deep_drop.eval()
deep_plain.eval()
assert torch.equal(deep_drop(x_bf)[0], deep_plain(x_bf)[0])

# %% dropout-on-outputs
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 5, batch_first=True)
        self.dropout = nn.Dropout(0.5)  # on the LSTM's outputs
        self.fc = nn.Linear(5, 2)

    def forward(self, x):
        output, _ = self.lstm(x)
        return self.fc(self.dropout(output))


tagger = Tagger()
print(torch.equal(tagger(x_bf), tagger(x_bf)))  # train mode: dropout acts
tagger.eval()
print(torch.equal(tagger(x_bf), tagger(x_bf)))  # eval mode: it is off

# %% dropout-on-outputs-checks tags=["remove-cell"]
tagger.train()
output, _ = tagger.lstm(x_bf)
dropped = tagger.dropout(output)
zeroed = dropped == 0
assert zeroed.any() and not zeroed.all()
assert torch.allclose(dropped[~zeroed], 2 * output[~zeroed])  # kept ones scaled by 2

# %% flatten-parameters
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True)

    def forward(self, x):
        self.lstm.flatten_parameters()  # first thing, on every replica
        output, _ = self.lstm(x)
        return output


device = "cuda" if torch.cuda.is_available() else "cpu"
encoder = Encoder().to(device)
model = nn.DataParallel(encoder)  # without GPUs it just calls encoder
weights = list(encoder.parameters())
blocks = {w.untyped_storage().data_ptr() for w in weights}
print(len(weights), "weights in", len(blocks), "block(s) of memory")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    output = model(x_bf.to(device))
print(tuple(output.shape), len(caught), "warnings")

# %% flatten-parameters-checks tags=["remove-cell"]
assert caught == [] and output.shape == (4, 7, 5)
assert model.module is encoder
if device == "cpu":
    assert len(weights) == len(blocks) == 8  # on CPU: no shared buffer
    assert model.device_ids == []
    # a no-op on CPU: no weight moves, no value changes, nothing is returned
    pointers = [w.data_ptr() for w in encoder.parameters()]
    values = [w.detach().clone() for w in encoder.parameters()]
    assert encoder.lstm.flatten_parameters() is None
    assert [w.data_ptr() for w in encoder.parameters()] == pointers
    assert all(torch.equal(v, w) for v, w in zip(values, encoder.parameters()))
    assert all(a is b for a, b in zip(encoder.parameters(), weights))
    # the same output as the LSTM called without it
    assert torch.equal(output, encoder.lstm(x_bf)[0])
elif torch.backends.cudnn.enabled:
    assert len(blocks) == 1  # cuDNN: one buffer holds every weight


# moving a module (.to(), .cuda()) calls flatten_parameters() itself
class Counting(nn.LSTM):
    calls = 0

    def flatten_parameters(self):
        Counting.calls += 1
        super().flatten_parameters()


counting = Counting(3, 5)
before = Counting.calls
counting.to(torch.float64)
assert Counting.calls == before + 1
# an assigned weight is used from the next call on, flattened or not
lstm_a = nn.LSTM(3, 5, batch_first=True)
lstm_b = nn.LSTM(3, 5, batch_first=True)
lstm_b.load_state_dict(lstm_a.state_dict())
lstm_a.weight_hh_l0 = nn.Parameter(torch.zeros(20, 5))
with torch.no_grad():
    lstm_b.weight_hh_l0.zero_()
assert torch.equal(lstm_a(x_bf)[0], lstm_b(x_bf)[0])
lstm_a.flatten_parameters()
assert torch.equal(lstm_a(x_bf)[0], lstm_b(x_bf)[0])

# %% lstm-in-sequential raises="TypeError: linear(): argument 'input' (position 1) must be Tensor, not tuple"
model = nn.Sequential(nn.LSTM(4, 8, batch_first=True), nn.Linear(8, 2))
x = torch.randn(2, 5, 4)  # (batch, seq_len, input_size)
model(x)  # the LSTM hands Linear its whole (output, (h_n, c_n))


# %% lstm-in-sequential-fix
class LastStep(nn.Module):
    def forward(self, x):
        output, _ = x  # keep output, drop (h_n, c_n)
        return output[:, -1]  # the last time step: (batch, hidden_size)


model = nn.Sequential(nn.LSTM(4, 8, batch_first=True), LastStep(),
                      nn.Linear(8, 2))
print(model(x).shape)


class Classifier(nn.Module):  # or write forward by hand
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        output, (h_n, c_n) = self.lstm(x)
        return self.fc(h_n[-1])  # the last layer's state at the last step


print(Classifier()(x).shape)

# %% lstm-in-sequential-fix-checks tags=["remove-cell"]
assert model(x).shape == (2, 2) and Classifier()(x).shape == (2, 2)
lstm = model[0]
output, (h_n, c_n) = lstm(x)
assert torch.allclose(output[:, -1], h_n[-1])
# not so for a bidirectional LSTM: the backward direction ends at step 0
bi = nn.LSTM(4, 8, batch_first=True, bidirectional=True)
output, (h_n, c_n) = bi(x)
assert torch.allclose(output[:, -1, :8], h_n[0])
assert not torch.allclose(output[:, -1, 8:], h_n[1])
assert torch.allclose(output[:, 0, 8:], h_n[1])
# nor with padding: the last step of a padded sequence is padding
packed = nn.utils.rnn.pack_padded_sequence(
    x, torch.tensor([5, 3]), batch_first=True
)
out_packed, (h_n, c_n) = lstm(packed)
output, lengths = nn.utils.rnn.pad_packed_sequence(out_packed, batch_first=True)
assert not torch.allclose(output[1, -1], h_n[-1][1])
assert torch.allclose(output[1, 2], h_n[-1][1])

# %% rnn-eval-backward
lstm = nn.LSTM(4, 8, batch_first=True)  # dropout=0, the default
lstm.eval()
x = torch.randn(2, 5, 4, requires_grad=True)  # e.g. a saliency map
output, _ = lstm(x)
output.sum().backward()  # on the CPU this works: no cuDNN
print(x.grad.shape)

# %% rnn-eval-backward-fix
out_eval, _ = lstm(x)
lstm.train()  # only the RNN: without dropout its forward is the same
out_train, _ = lstm(x)
print(torch.equal(out_train, out_eval))
lstm.eval()
with torch.backends.cudnn.flags(enabled=False):  # or: no cuDNN for this forward
    output, _ = lstm(x)
output.sum().backward()

# %% rnn-eval-backward-fix-checks tags=["remove-cell"]
assert torch.equal(out_train, out_eval)
assert x.grad.shape == (2, 5, 4)

# %% teacher-forcing
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, BOS = 10, 0  # token 0 starts every decoded sequence


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8)
        self.gru = nn.GRU(8, 16, batch_first=True)
        self.out = nn.Linear(16, VOCAB)

    def forward(self, tokens, h):  # tokens: (batch, steps)
        output, h = self.gru(self.embed(tokens), h)
        return self.out(output), h  # logits: (batch, steps, VOCAB)


decoder = Decoder()
h_enc = torch.randn(1, 2, 16)  # the encoder's final state, 2 sequences
target = torch.randint(1, VOCAB, (2, 5))  # (batch, tgt_len)
bos = torch.full((2, 1), BOS)
tf_input = torch.cat([bos, target[:, :-1]], dim=1)  # target shifted right
logits, _ = decoder(tf_input, h_enc)  # all 5 steps in one call
loss = F.cross_entropy(logits.flatten(0, 1), target.flatten())
loss.backward()
print(target)
print(tf_input)
print(tuple(logits.shape))  # (batch, tgt_len, VOCAB)

# %% teacher-forcing-checks tags=["remove-cell"]
assert target.shape == tf_input.shape == (2, 5)
assert (tf_input[:, 0] == BOS).all() and (target != BOS).all()
assert torch.equal(tf_input[:, 1:], target[:, :-1])
assert logits.shape == (2, 5, VOCAB) and torch.isfinite(loss)
assert decoder.embed.weight.grad is not None
# the logits of step t depend on the inputs up to t only: a GRU is causal
changed = tf_input.clone()
changed[:, 3] = (changed[:, 3] + 1) % VOCAB
logits_changed, _ = decoder(changed, h_enc)
assert torch.allclose(logits_changed[:, :3], logits[:, :3], atol=1e-6)
assert not torch.allclose(logits_changed[:, 3:], logits[:, 3:])

# %% free-running
decoder.eval()
with torch.no_grad():
    token, h = bos, h_enc  # no target: only the start token
    steps = []
    for t in range(5):  # or until every sequence has an end token
        step_logits, h = decoder(token, h)  # one step: (batch, 1, VOCAB)
        token = step_logits.argmax(-1)  # its own prediction is the next input
        steps.append(step_logits)
free_logits = torch.cat(steps, dim=1)  # (batch, 5, VOCAB)
generated = free_logits.argmax(-1)
print(generated)

# %% free-running-checks tags=["remove-cell"]
assert generated.shape == (2, 5) and free_logits.shape == (2, 5, VOCAB)
assert not free_logits.requires_grad
# the untrained decoder does not reproduce the target
assert not torch.equal(generated, target)

# %% same-model
fed = torch.cat([bos, generated[:, :-1]], dim=1)  # what the loop fed in
with torch.no_grad():
    one_call, _ = decoder(fed, h_enc)
print(torch.allclose(one_call, free_logits, atol=1e-6))
with torch.no_grad():
    teacher_forced, _ = decoder(tf_input, h_enc)
print(torch.allclose(teacher_forced, free_logits, atol=1e-6))

# %% same-model-checks tags=["remove-cell"]
assert torch.allclose(one_call, free_logits, atol=1e-6)
assert not torch.allclose(teacher_forced, free_logits, atol=1e-6)
# and the other way: the loop fed the target gives the teacher-forced logits
with torch.no_grad():
    h, looped = h_enc, []
    for t in range(5):
        step_logits, h = decoder(tf_input[:, t:t + 1], h)
        looped.append(step_logits)
assert torch.allclose(torch.cat(looped, dim=1), teacher_forced, atol=1e-6)
assert torch.allclose(teacher_forced, logits.detach(), atol=1e-6)


# %% teacher-forcing-ratio
def decode(decoder, h, target, ratio):
    token, steps = bos, []
    for t in range(target.shape[1]):
        step_logits, h = decoder(token, h)
        steps.append(step_logits)
        if torch.rand(()) < ratio:  # teacher forcing at this step
            token = target[:, t:t + 1]
        else:  # the model's own prediction
            token = step_logits.argmax(-1)
    return torch.cat(steps, dim=1)


decoder.train()
print(torch.allclose(decode(decoder, h_enc, target, 1.0), teacher_forced,
                     atol=1e-6))
print(torch.allclose(decode(decoder, h_enc, target, 0.0), free_logits,
                     atol=1e-6))
mixed = decode(decoder, h_enc, target, 0.5)  # scheduled sampling lowers it
print(tuple(mixed.shape), mixed.requires_grad)

# %% teacher-forcing-ratio-checks tags=["remove-cell"]
assert torch.allclose(decode(decoder, h_enc, target, 1.0), teacher_forced,
                      atol=1e-6)
assert torch.allclose(decode(decoder, h_enc, target, 0.0), free_logits,
                      atol=1e-6)
assert mixed.shape == (2, 5, VOCAB) and mixed.requires_grad
# a loss over the mixed logits backpropagates into the decoder
decoder.zero_grad()
F.cross_entropy(mixed.flatten(0, 1), target.flatten()).backward()
assert decoder.gru.weight_hh_l0.grad.abs().sum() > 0

# %% rank-2d
lstm = nn.LSTM(input_size=3, hidden_size=5, batch_first=True)
x = torch.randn(4, 3)  # meant as a batch: 4 samples of 3 features
output, (h_n, c_n) = lstm(x)  # read as one sequence of 4 steps
print(tuple(output.shape), tuple(h_n.shape))
x_changed = x.clone()
x_changed[0] += 1.0  # change the first sample only
output_changed, _ = lstm(x_changed)
print(torch.equal(output[1:], output_changed[1:]))  # the others change too

# %% rank-2d-checks tags=["remove-cell"]
# no error; the 2-D input is one unbatched sequence whatever batch_first says
assert output.shape == (4, 5) and h_n.shape == c_n.shape == (1, 5)
assert torch.allclose(output, lstm(x.unsqueeze(0))[0][0], atol=1e-6)
for i in range(1, 4):
    assert not torch.allclose(output[i], output_changed[i])
seq_first = nn.LSTM(3, 5)
seq_first.load_state_dict(lstm.state_dict())
assert torch.allclose(seq_first(x)[0], output, atol=1e-6)

# %% rank-2d-fix
steps = x.unsqueeze(1)  # batch_first=True: (batch, seq_len=1, features)
output, (h_n, c_n) = lstm(steps)
print(tuple(steps.shape), tuple(output.shape), tuple(h_n.shape))
seq_first = nn.LSTM(input_size=3, hidden_size=5)  # batch_first=False
seq_first.load_state_dict(lstm.state_dict())  # the same weights
steps_tf = x.unsqueeze(0)  # (seq_len=1, batch, features)
output_tf, (h_n_tf, c_n_tf) = seq_first(steps_tf)
print(tuple(steps_tf.shape), tuple(output_tf.shape), tuple(h_n_tf.shape))
output_changed, _ = lstm(x_changed.unsqueeze(1))
print(torch.equal(output[1:], output_changed[1:]))  # each sample on its own

# %% rank-2d-fix-checks tags=["remove-cell"]
assert steps.shape == (4, 1, 3) and output.shape == (4, 1, 5)
assert h_n.shape == (1, 4, 5) and steps_tf.shape == (1, 4, 3)
assert output_tf.shape == (1, 4, 5) and h_n_tf.shape == (1, 4, 5)
assert torch.allclose(output[:, 0], output_tf[0], atol=1e-6)
assert torch.allclose(h_n, h_n_tf, atol=1e-6)
assert torch.equal(output[1:], output_changed[1:])
assert not torch.allclose(output[0], output_changed[0])
# one sequence of 4 steps, batched: unsqueeze(0) with batch_first=True
one = lstm(x.unsqueeze(0))[0]
assert one.shape == (1, 4, 5)
# and unsqueeze(1) without batch_first: the same numbers as the 2-D input
one_tf = seq_first(x.unsqueeze(1))[0]
assert one_tf.shape == (4, 1, 5)
assert torch.allclose(one_tf[:, 0], one[0], atol=1e-6)
assert torch.allclose(one[0], lstm(x)[0], atol=1e-6)

# %% rank-1d raises="ValueError: LSTM: Expected input to be 2D or 3D, got 1D instead"
lstm(torch.randn(3))  # one feature vector

# %% rank-4d raises="ValueError: LSTM: Expected input to be 2D or 3D, got 4D instead"
lstm(torch.randn(4, 7, 1, 3))  # (batch, seq_len, 1, features)

# %% rank-4d-checks tags=["remove-cell"]
# GRU and RNN check the rank the same way
for cls, name in ((nn.GRU, "GRU"), (nn.RNN, "RNN")):
    for shape in ((3,), (4, 7, 1, 3)):
        try:
            cls(3, 5, batch_first=True)(torch.randn(*shape))
        except ValueError as error:
            assert str(error).startswith(
                f"{name}: Expected input to be 2D or 3D, got {len(shape)}D"
            )
        else:
            raise AssertionError(f"{name} took a {len(shape)}-D input")
# the fixes: a batch of one for 1-D, squeeze the extra dimension for 4-D
assert lstm(torch.randn(3).view(1, 1, 3))[0].shape == (1, 1, 5)
assert lstm(torch.randn(4, 7, 1, 3).squeeze(2))[0].shape == (4, 7, 5)
frames = torch.randn(2, 7, 3, 4)  # (batch, seq_len, H, W)
try:
    nn.LSTM(12, 5, batch_first=True)(frames)
except ValueError as error:
    assert "got 4D instead" in str(error)
else:
    raise AssertionError("the LSTM took a 4-D input")
assert nn.LSTM(12, 5, batch_first=True)(frames.flatten(2))[0].shape == (2, 7, 5)
