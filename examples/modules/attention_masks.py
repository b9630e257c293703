# %% [markdown]
# Attention masks: a boolean mask of F.scaled_dot_product_attention is True
# where a query may attend, a boolean mask of nn.MultiheadAttention and
# nn.Transformer is True where it may not; a float mask is added to the
# scores in both

# %% [markdown] lang="zh"
# 注意力掩码：`F.scaled_dot_product_attention` 的布尔掩码里 True 表示可以关注，
# `nn.MultiheadAttention` 和 `nn.Transformer` 的布尔掩码里 True 表示屏蔽；
# 浮点掩码在两边都是加到注意力分数上

# %% by-hand
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.set_grad_enabled(False)  # no training here: outputs without grad_fn
q = torch.randn(2, 3, 4)  # (batch, L queries, E)
k = torch.randn(2, 5, 4)  # (batch, S keys, E)
v = torch.randn(2, 5, 4)  # (batch, S, E)
scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (batch, L, S)
weights = scores.softmax(dim=-1)  # each row sums to 1
out = F.scaled_dot_product_attention(q, k, v)
print(out.shape)  # (batch, L, E)
print(torch.allclose(out, weights @ v, atol=1e-6))

# %% by-hand-checks tags=["remove-cell"]
assert out.shape == (2, 3, 4) and weights.shape == (2, 3, 5)
assert torch.allclose(out, weights @ v, atol=1e-6)
assert torch.allclose(weights.sum(dim=-1), torch.ones(2, 3))
# the scale is 1 / sqrt(E) unless given; 4-D inputs (batch, heads, L, E) too
assert torch.allclose(F.scaled_dot_product_attention(q, k, v, scale=1.0),
                      (q @ k.transpose(-2, -1)).softmax(-1) @ v, atol=1e-6)
q4, k4, v4 = (t.view(1, 2, *t.shape[1:]) for t in (q, k, v))
assert torch.allclose(F.scaled_dot_product_attention(q4, k4, v4).view(2, 3, 4),
                      out, atol=1e-6)

# %% sdpa-bool
keep = torch.tensor([[True, True, True, False, False],
                     [True, True, True, True, False],
                     [True, True, True, True, True]])  # (L, S)
out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
weights = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
print(weights[0])
print(torch.allclose(out, weights @ v, atol=1e-6))

# %% sdpa-bool-checks tags=["remove-cell"]
assert torch.allclose(out, weights @ v, atol=1e-6)
# False: weight exactly 0; True: the rest of the row shares 1
assert torch.equal(weights[:, ~keep], torch.zeros(2, int((~keep).sum())))
assert (weights[:, keep] > 0).all()
assert torch.allclose(weights.sum(dim=-1), torch.ones(2, 3))
# the opposite reading (True: masked) gives another result
assert not torch.allclose(
    out, F.scaled_dot_product_attention(q, k, v, attn_mask=~keep), atol=1e-3)

# %% sdpa-float
bias = torch.zeros(3, 5).masked_fill(~keep, float("-inf"))
print(bias)
out_float = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
print(torch.allclose(out_float, out, atol=1e-6))

# %% sdpa-float-checks tags=["remove-cell"]
assert torch.allclose(out_float, out, atol=1e-6)
# any float mask is added to the scores before the softmax
some_bias = torch.randn(3, 5)
assert torch.allclose(
    F.scaled_dot_product_attention(q, k, v, attn_mask=some_bias),
    (scores + some_bias).softmax(dim=-1) @ v, atol=1e-6)

# %% causal
x = torch.randn(2, 4, 8)  # (batch, L, E): self-attention, so S == L
tril = torch.ones(4, 4, dtype=torch.bool).tril()  # True: may attend
square = nn.Transformer.generate_square_subsequent_mask(4)
print(tril)
print(square)
causal = F.scaled_dot_product_attention(x, x, x, is_causal=True)
with_tril = F.scaled_dot_product_attention(x, x, x, attn_mask=tril)
with_square = F.scaled_dot_product_attention(x, x, x, attn_mask=square)
print(torch.allclose(causal, with_tril, atol=1e-6))
print(torch.allclose(causal, with_square, atol=1e-6))

# %% causal-checks tags=["remove-cell"]
assert torch.allclose(causal, with_tril, atol=1e-6)
assert torch.allclose(causal, with_square, atol=1e-6)
assert square.dtype == torch.float32
assert torch.equal(square == 0, tril)  # 0 where allowed
assert torch.equal(square.isinf() & (square < 0), ~tril)  # -inf above
# the first query sees only the first key: its output is that key's value
assert torch.allclose(causal[:, 0], x[:, 0], atol=1e-6)

# %% sdpa-both raises="RuntimeError: _scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
F.scaled_dot_product_attention(x, x, x, attn_mask=tril, is_causal=True)

# %% mha-bool
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)  # True: masked
print(future)
out_bool, w = mha(x, x, x, attn_mask=future)  # weights: (batch, L, S)
out_float, _ = mha(x, x, x, attn_mask=square)
print(w[0])
print(torch.allclose(out_bool, out_float, atol=1e-6))

# %% mha-bool-checks tags=["remove-cell"]
assert torch.equal(future, ~tril)
assert torch.allclose(out_bool, out_float, atol=1e-6)
assert torch.equal(w[:, future], torch.zeros(2, int(future.sum())))
assert (w[:, tril] > 0).all() and w.shape == (2, 4, 4)
assert mha.training and mha.dropout == 0.0  # no dropout: deterministic


def by_hand(module, x, allowed):
    """MultiheadAttention computed with SDPA, its mask in SDPA's meaning."""
    heads, head_dim = module.num_heads, module.head_dim
    q, k, v = F.linear(x, module.in_proj_weight,
                       module.in_proj_bias).chunk(3, dim=-1)
    q, k, v = (t.unflatten(-1, (heads, head_dim)).transpose(1, 2)
               for t in (q, k, v))  # (batch, heads, L, head_dim)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return module.out_proj(out.transpose(1, 2).flatten(2))


# MultiheadAttention's True (masked) is SDPA's False (may not attend)
assert torch.allclose(out_bool, by_hand(mha, x, ~future), atol=1e-5)
# a float mask is added to the scores, as in SDPA
some_bias = torch.randn(4, 4)
assert torch.allclose(mha(x, x, x, attn_mask=some_bias)[0],
                      by_hand(mha, x, some_bias), atol=1e-5)
assert torch.allclose(
    out_bool,
    by_hand(mha, x, torch.ones(4, 4, dtype=torch.bool).tril()), atol=1e-5)

# %% mha-tril
out_wrong, w_wrong = mha(x, x, x, attn_mask=tril)  # SDPA's mask: wrong here
print(w_wrong[0])
print(out_wrong[0, -1])

# %% mha-tril-checks tags=["remove-cell"]
# each query sees only the keys after it, and the last one sees none
first = w_wrong[:, :-1]  # the rows that are not nan
assert torch.equal(first[:, tril[:-1]], torch.zeros(2, int(tril[:-1].sum())))
assert (first[:, future[:-1]] > 0).all()
assert w_wrong[:, -1].isnan().all() and out_wrong[:, -1].isnan().all()
assert not out_wrong[:, :-1].isnan().any()

# %% key-padding
lengths = torch.tensor([4, 2])  # the second sequence has 2 real tokens
x = torch.randn(2, 4, 8)  # (batch, S, E), padded to 4
x[1, 2:] = 0  # padding
pad = torch.arange(4) >= lengths[:, None]  # (batch, S), True: padding
print(pad)
out, w = mha(x, x, x, key_padding_mask=pad)
print(w[1])
alone, _ = mha(x[1:, :2], x[1:, :2], x[1:, :2])  # without its padding
print(torch.allclose(out[1, :2], alone[0], atol=1e-6))

# %% key-padding-checks tags=["remove-cell"]
assert pad.shape == (2, 4) and pad.tolist() == [[False] * 4,
                                                [False, False, True, True]]
assert torch.equal(w[1, :, 2:], torch.zeros(4, 2))  # padded keys: weight 0
assert (w[0] > 0).all()  # the full sequence: no key is masked
# padded queries still get an output, from the real keys
assert (w[1, 2:, :2] > 0).all() and not out[1, 2:].isnan().any()
assert torch.allclose(out[1, :2], alone[0], atol=1e-6)
assert torch.allclose(out[0], mha(x[:1], x[:1], x[:1])[0][0], atol=1e-6)
# without the mask, the padding changes the real positions' outputs
unmasked, _ = mha(x, x, x)
assert not torch.allclose(unmasked[1, :2], alone[0], atol=1e-3)

# %% sdpa-padding
allowed = ~pad[:, None, :]  # (batch, 1, S): the same for every query
out = F.scaled_dot_product_attention(x, x, x, attn_mask=allowed)
alone = F.scaled_dot_product_attention(x[1:, :2], x[1:, :2], x[1:, :2])
print(torch.allclose(out[1, :2], alone[0], atol=1e-6))

# %% sdpa-padding-checks tags=["remove-cell"]
assert allowed.shape == (2, 1, 4)
assert torch.allclose(out[1, :2], alone[0], atol=1e-6)
assert torch.allclose(out[0], F.scaled_dot_product_attention(
    x[:1], x[:1], x[:1])[0], atol=1e-6)
# with heads, (batch, heads, L, E): one more dimension in the mask
x4 = x.view(2, 4, 2, 4).transpose(1, 2)  # (batch, 2 heads, L, 4)
out4 = F.scaled_dot_product_attention(x4, x4, x4,
                                      attn_mask=~pad[:, None, None, :])
alone4 = F.scaled_dot_product_attention(x4[1:, :, :2], x4[1:, :, :2],
                                        x4[1:, :, :2])
assert torch.allclose(out4[1, :, :2], alone4[0], atol=1e-6)

# %% shapes
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2)  # batch_first=False
query = torch.randn(3, 2, 8)  # (L, batch, E)
memory = torch.randn(5, 2, 8)  # (S, batch, E)
out, w = mha(query, memory, memory)
print(out.shape)  # (L, batch, E)
print(w.shape)  # (batch, L, S), averaged over the heads
_, w_heads = mha(query, memory, memory, average_attn_weights=False)
print(w_heads.shape)  # (batch, num_heads, L, S)
_, nothing = mha(query, memory, memory, need_weights=False)
print(nothing)

# %% shapes-checks tags=["remove-cell"]
assert mha.batch_first is False
assert out.shape == (3, 2, 8) and w.shape == (2, 3, 5)
assert w_heads.shape == (2, 2, 3, 5) and nothing is None
assert torch.allclose(w, w_heads.mean(dim=1), atol=1e-6)
assert torch.allclose(
    mha(query, memory, memory, need_weights=False)[0], out, atol=1e-5)
# the mask shapes: (L, S), (batch * num_heads, L, S), padding (batch, S)
no_mask = torch.zeros(3, 5, dtype=torch.bool)
assert torch.allclose(mha(query, memory, memory, attn_mask=no_mask)[0], out,
                      atol=1e-6)
assert torch.allclose(
    mha(query, memory, memory, attn_mask=no_mask.expand(4, 3, 5))[0], out,
    atol=1e-6)
assert torch.allclose(
    mha(query, memory, memory,
        key_padding_mask=torch.zeros(2, 5, dtype=torch.bool))[0],
    out, atol=1e-6)

# %% mask-3d raises="RuntimeError: The shape of the 3D attn_mask is torch.Size([2, 3, 5]), but should be (4, 3, 5)."
pad = torch.tensor([[False, False, False, False, False],
                    [False, False, False, True, True]])  # (batch, S)
per_sequence = pad[:, None, :].expand(2, 3, 5)  # (batch, L, S)
mha(query, memory, memory, attn_mask=per_sequence)

# %% mask-3d-fixed
per_head = per_sequence.repeat_interleave(mha.num_heads, dim=0)
print(per_head.shape)  # (batch * num_heads, L, S)
out_3d, _ = mha(query, memory, memory, attn_mask=per_head)
out_pad, _ = mha(query, memory, memory, key_padding_mask=pad)
print(torch.allclose(out_3d, out_pad, atol=1e-6))

# %% mask-3d-fixed-checks tags=["remove-cell"]
assert per_head.shape == (4, 3, 5)
assert torch.allclose(out_3d, out_pad, atol=1e-6)
# row b * num_heads + h is sequence b, head h: repeat() orders them otherwise
wrong_order = per_sequence.repeat(mha.num_heads, 1, 1)
assert not torch.allclose(
    mha(query, memory, memory, attn_mask=wrong_order)[0], out_pad, atol=1e-3)

# %% hint raises="RuntimeError: Need attn_mask if specifying the is_causal hint."
mha(query, query, query, is_causal=True)

# %% fully-masked
mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
x = torch.randn(2, 3, 8)
pad = torch.tensor([[False, False, False],
                    [True, False, False]])  # padded on the left
future = torch.ones(3, 3, dtype=torch.bool).triu(diagonal=1)
out, w = mha(x, x, x, attn_mask=future, key_padding_mask=pad)
print(w[1])
print(out.isnan().any(dim=-1))  # which positions are nan

# %% fully-masked-checks tags=["remove-cell"]
# query 0 of the padded sequence: key 0 is padding, keys 1 and 2 the future
assert w[1, 0].isnan().all() and out[1, 0].isnan().all()
assert not w[1, 1:].isnan().any() and not out[1, 1:].isnan().any()
assert not out[0].isnan().any()

# %% nan-spreads
out2, _ = mha(out, out, out, attn_mask=future, key_padding_mask=pad)
print(out2.isnan().any(dim=-1))  # which positions are nan

# %% nan-spreads-checks tags=["remove-cell"]
assert out2[1].isnan().all() and not out2[0].isnan().any()
# every weight of that sequence is nan: the nan key spoils every score
w2 = mha(out, out, out, attn_mask=future, key_padding_mask=pad)[1]
assert w2[1].isnan().all() and not w2[0].isnan().any()
assert out2.mean().isnan()  # and the loss
# a softmax over scores that are all -inf is nan
assert torch.full((3,), -math.inf).softmax(dim=0).isnan().all()

# %% sdpa-fully-masked
allowed = ~future & ~pad[:, None, :]  # (batch, L, S)
print(allowed[1])
print(F.scaled_dot_product_attention(x, x, x, attn_mask=allowed)[1, 0])

# %% sdpa-fully-masked-checks tags=["remove-cell"]
row = F.scaled_dot_product_attention(x, x, x, attn_mask=allowed)[1, 0]
# NaN on some releases, zeros on others: never a usable value
assert row.isnan().all() or torch.equal(row, torch.zeros(8))
assert not allowed[1, 0].any() and allowed[1, 1:].any(dim=-1).all()

# %% fully-masked-fixed
allowed = allowed | torch.eye(3, dtype=torch.bool)  # each query sees itself
mask = (~allowed).repeat_interleave(mha.num_heads, dim=0)  # True: masked
fixed, _ = mha(x, x, x, attn_mask=mask)
print(fixed.isnan().any())
print(torch.allclose(fixed[1, 1:], out[1, 1:], atol=1e-6))

# %% fully-masked-fixed-checks tags=["remove-cell"]
assert not fixed.isnan().any()
assert torch.allclose(fixed[0], out[0], atol=1e-6)
assert torch.allclose(fixed[1, 1:], out[1, 1:], atol=1e-6)
# padding on the right: a padded query sees the real keys before it
right = torch.tensor([[False, False, False], [False, False, True]])
out_right, _ = mha(x, x, x, attn_mask=future, key_padding_mask=right)
assert not out_right.isnan().any()
# a sequence of padding only: no key in any layout
empty = torch.tensor([[False, False, False], [True, True, True]])
out_empty, _ = mha(x, x, x, key_padding_mask=empty)
assert out_empty[1].isnan().all() and not out_empty[0].isnan().any()

# %% encoder-layer
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
                                   dropout=0.0, batch_first=True)
x = torch.randn(2, 4, 8)
pad = torch.arange(4) >= torch.tensor([4, 2])[:, None]  # True: padding
future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)  # True: masked
y = layer(x, src_mask=future, src_key_padding_mask=pad)
alone = layer(x[1:, :2], src_mask=future[:2, :2])
print(torch.allclose(y[1, :2], alone[0], atol=1e-5))

# %% encoder-layer-checks tags=["remove-cell"]
assert layer.training  # a new module is in training mode
assert torch.allclose(y[1, :2], alone[0], atol=1e-5)
assert torch.allclose(y[0], layer(x[:1], src_mask=future)[0], atol=1e-5)
# the decoder's memory_key_padding_mask: True is ignored too
decoder = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16,
                                     dropout=0.0, batch_first=True)
tgt = torch.randn(1, 3, 8)
assert torch.allclose(
    decoder(tgt, x[1:], memory_key_padding_mask=pad[1:]),
    decoder(tgt, x[1:, :2]), atol=1e-5)
# tgt_mask: True is masked, like the float mask's -inf
tgt_future = torch.ones(3, 3, dtype=torch.bool).triu(diagonal=1)
causal_out = decoder(tgt, x[:1], tgt_mask=tgt_future)
assert torch.allclose(causal_out, decoder(
    tgt, x[:1], tgt_mask=nn.Transformer.generate_square_subsequent_mask(3)),
    atol=1e-5)
assert torch.allclose(causal_out[:, :2], decoder(tgt[:, :2], x[:1],
                      tgt_mask=tgt_future[:2, :2]), atol=1e-5)
# memory_mask (L, S) and tgt_key_padding_mask (batch, L): True is masked
memory_mask = torch.zeros(3, 4, dtype=torch.bool)
memory_mask[:, 2:] = True
assert torch.allclose(decoder(tgt, x[:1], memory_mask=memory_mask),
                      decoder(tgt, x[:1, :2]), atol=1e-5)
tgt_pad = torch.tensor([[False, False, True]])
assert torch.allclose(
    decoder(tgt, x[:1], tgt_key_padding_mask=tgt_pad)[:, :2],
    decoder(tgt[:, :2], x[:1]), atol=1e-5)

# %% mismatched
square = nn.Transformer.generate_square_subsequent_mask(4)  # float
y_mixed = layer(x, src_mask=square, src_key_padding_mask=pad)  # bool

# %% mismatched-checks tags=["remove-cell"]
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer(x, src_mask=square, src_key_padding_mask=pad)
assert any("Support for mismatched src_key_padding_mask and src_mask is "
           "deprecated" in str(w.message) for w in caught)
assert torch.allclose(y_mixed, y, atol=1e-6)  # the same result
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer(x, src_mask=future, src_key_padding_mask=pad)
    layer(x, src_mask=square,
          src_key_padding_mask=torch.zeros(2, 4).masked_fill(pad, -math.inf))
assert caught == []

# %% masked-fill
scores = torch.tensor([[2.0, 1.0, 0.5, 3.0],
                       [0.1, 0.2, 0.3, 0.4],
                       [1.0, 1.0, 1.0, 1.0]])  # (L, S)
hide = torch.tensor([[False, False, True, True],
                     [False, True, True, True],
                     [True, True, True, True]])  # True: hidden
filled = scores.masked_fill(hide, float("-inf"))
print(filled)
print(filled.softmax(dim=-1))

# %% masked-fill-checks tags=["remove-cell"]
assert torch.equal(filled[hide], torch.full((int(hide.sum()),), -math.inf))
assert torch.equal(filled[~hide], scores[~hide])
weights = filled.softmax(dim=-1)
assert torch.equal(weights[:2][hide[:2]], torch.zeros(5))  # exactly 0
assert torch.allclose(weights[:2].sum(dim=-1), torch.ones(2))
assert torch.allclose(weights[0, :2], scores[0, :2].softmax(dim=-1))
assert weights[1, 0] == 1.0
assert weights[2].isnan().all()  # every key hidden: 0 / 0

# %% masked-fill-min
lowest = torch.finfo(scores.dtype).min  # the most negative float32
filled_min = scores.masked_fill(hide, lowest)
print(lowest)
print(filled_min.softmax(dim=-1))

# %% masked-fill-min-checks tags=["remove-cell"]
weights_min = filled_min.softmax(dim=-1)
assert lowest == -3.4028234663852886e38 and math.isfinite(lowest)
assert not weights_min.isnan().any()
# the rows with a key left: the same weights as with -inf
assert torch.equal(weights_min[:2], weights[:2])
# the fully hidden row: every key alike, a uniform average
assert torch.equal(weights_min[2], torch.full((4,), 0.25))
for dtype in (torch.float16, torch.bfloat16, torch.float64):
    s = scores.to(dtype).masked_fill(hide, torch.finfo(dtype).min)
    assert s.isfinite().all() and s[hide].eq(torch.finfo(dtype).min).all()
for dtype in (torch.bfloat16, torch.float64):
    s = scores.to(dtype).masked_fill(hide, torch.finfo(dtype).min)
    assert not s.softmax(dim=-1).isnan().any()
    assert torch.equal(s.softmax(dim=-1)[:2][hide[:2]],
                       torch.zeros(5, dtype=dtype))
# -1e9 does not fit in float16: masked_fill refuses it
try:
    scores.half().masked_fill(hide, -1e9)
except RuntimeError as error:
    assert "overflow" in str(error)
else:
    raise AssertionError("-1e9 fitted in float16")
# lowest is finite, but adding more to it overflows to -inf
assert (filled_min + filled_min)[hide].isinf().all()

# %% masked-fill-in-place
scores.masked_fill(hide, float("-inf"))  # a new tensor, scores unchanged
print(scores.isinf().any().item())
scores.masked_fill_(hide, float("-inf"))  # the trailing _: in place
print(scores.isinf().any().item())

# %% masked-fill-in-place-checks tags=["remove-cell"]
assert torch.equal(scores, filled)
assert scores.masked_fill(hide, 0.0) is not scores
assert scores.masked_fill_(hide, float("-inf")) is scores

# %% masked-fill-int raises="RuntimeError: masked_fill_ only supports boolean masks, but got mask with dtype …"
attention_mask = torch.tensor([[1, 1, 1, 1],
                               [1, 1, 0, 0]])  # a tokenizer's: 1 keeps
scores = torch.randn(2, 3, 4)  # (batch, L, S)
scores.masked_fill(attention_mask[:, None, :], float("-inf"))

# %% masked-fill-bool
hide = (attention_mask == 0)[:, None, :]  # bool, True: hidden; (batch, 1, S)
print(hide.dtype, tuple(hide.shape), "->", tuple(scores.shape))
weights = scores.masked_fill(hide, float("-inf")).softmax(dim=-1)
print(weights[1])

# %% masked-fill-bool-checks tags=["remove-cell"]
assert hide.dtype == torch.bool and hide.shape == (2, 1, 4)
assert torch.equal(weights[1, :, 2:], torch.zeros(3, 2))
assert (weights[0] > 0).all() and (weights[1, :, :2] > 0).all()
for not_bool in (attention_mask.float(), attention_mask.to(torch.uint8)):
    try:
        scores.masked_fill(not_bool[:, None, :], 0.0)
    except RuntimeError as error:
        assert "only supports boolean masks" in str(error)
    else:
        raise AssertionError(f"masked_fill took a {not_bool.dtype} mask")
# (batch, S) does not broadcast against (batch, L, S) when L != batch
try:
    scores.masked_fill(attention_mask == 0, float("-inf"))
except RuntimeError as error:
    assert "must match the size" in str(error)
else:
    raise AssertionError("a (batch, S) mask broadcast against (batch, L, S)")
# when L == batch it broadcasts, and hides by query instead of by sequence
square_scores = torch.randn(2, 2, 4)
pad_mask = attention_mask == 0
assert not torch.equal(
    square_scores.masked_fill(pad_mask, float("-inf")),
    square_scores.masked_fill(pad_mask[:, None, :], float("-inf")))

# %% no-kernel raises="RuntimeError: No available kernel." holds="<2.14" claim="Forced to use the flash kernel, `scaled_dot_product_attention` on a CPU raises `No available kernel` for 3-D inputs"
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):  # this kernel or none
        F.scaled_dot_product_attention(q, k, v)

# %% no-kernel-checks tags=["remove-cell"] holds="<2.14" claim="Before the error, torch warns why the flash kernel was not used"
reasons = [str(w.message).split(" (Triggered")[0] for w in caught]
assert any(r.startswith("Flash attention kernel not used because") for r in reasons)
# without forcing a kernel the same call runs
assert F.scaled_dot_product_attention(q, k, v).shape == (2, 3, 4)

# %% no-kernel-fix
for reason in reasons:  # the warnings raised before the error
    print(reason)
manual = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).softmax(-1) @ v
with sdpa_kernel(SDPBackend.MATH):  # the reference kernel: runs everywhere
    by_math = F.scaled_dot_product_attention(q, k, v)
with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):  # fallback
    fallback = F.scaled_dot_product_attention(q, k, v)
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):  # 4-D: (batch, heads, L, E)
    flash = F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None])
print("math:", torch.allclose(by_math, manual, atol=1e-6))
print("fallback:", torch.allclose(fallback, manual, atol=1e-6))
print("flash, 4-D:", torch.allclose(flash[:, 0], manual, atol=1e-6))

# %% no-kernel-fix-checks tags=["remove-cell"]
assert torch.allclose(by_math, manual, atol=1e-6)
assert torch.allclose(fallback, manual, atol=1e-6)
assert flash.shape == (2, 1, 3, 4) and torch.allclose(flash[:, 0], manual, atol=1e-6)
# the CPU's flash kernel refuses dropout too, with the same error
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None],
                                           dropout_p=0.1)
    except RuntimeError as error:
        assert str(error).startswith("No available kernel.")
    else:
        raise AssertionError("the flash kernel took dropout on the CPU")

# %% nested-tensor-warning
import textwrap
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
    encoder = nn.TransformerEncoder(layer, num_layers=2)  # batch_first=False
print(textwrap.fill(str(caught[0].message), 76, break_on_hyphens=False))
print(encoder.use_nested_tensor)

# %% nested-tensor-warning-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert str(caught[0].message).startswith(
    "enable_nested_tensor is True, but self.use_nested_tensor is False because "
    "encoder_layer.self_attn.batch_first was not True")
for kwargs, flag in (({"batch_first": True}, {}),
                     ({}, {"enable_nested_tensor": False})):
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, 0.0, **kwargs), 2, **flag)
    assert not quiet  # batch_first=True, or enable_nested_tensor=False: no warning

# %% nested-tensor-fast-path
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                   batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2).eval()  # the fast path
slow = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
slow = slow.eval()
slow.load_state_dict(encoder.state_dict())
x = torch.randn(2, 4, 8)
pad = torch.arange(4) >= torch.tensor([4, 2])[:, None]  # True: padding
with warnings.catch_warnings():  # a note that nested tensors are a prototype
    nested = "The PyTorch API of nested tensors"
    warnings.filterwarnings("ignore", message=nested)
    y_fast = encoder(x, src_key_padding_mask=pad)
y_slow = slow(x, src_key_padding_mask=pad)
print(encoder.use_nested_tensor, slow.use_nested_tensor)
# real tokens agree
print(torch.allclose(y_fast[~pad], y_slow[~pad], atol=1e-5))
print(y_fast[pad].abs().sum().item(), y_slow[pad].abs().sum().item() > 0)

# %% nested-tensor-fast-path-checks tags=["remove-cell"]
assert encoder.use_nested_tensor and not slow.use_nested_tensor
assert torch.allclose(y_fast[~pad], y_slow[~pad], atol=1e-5)
assert y_fast[pad].abs().sum() == 0 and y_slow[pad].abs().sum() > 0
# in training mode the fast path is off: padded positions are computed too
encoder.train()
assert encoder(x, src_key_padding_mask=pad)[pad].abs().sum() > 0
encoder.eval()
assert torch.allclose(encoder(x), slow(x), atol=1e-5)  # no padding mask: no nested

# %% nested-prototype-warning
rows = [torch.ones(2), torch.ones(3)]  # two sequences of different lengths
torch.set_warn_always(True)  # PyTorch warns once per process otherwise
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    strided = torch.nested.nested_tensor(rows)  # the default layout
torch.set_warn_always(False)
message = str(caught[0].message).split(" (Triggered")[0]  # no C++ file
print(textwrap.fill(message, 76, break_on_hyphens=False))

# %% nested-prototype-warning-checks tags=["remove-cell"]
assert len(caught) == 1 and caught[0].category is UserWarning
assert message.startswith(
    "The PyTorch API of nested tensors is in prototype stage and will change "
    "in the near future."
)
assert strided.layout == torch.strided and strided.is_nested

# %% nested-jagged
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    jagged = torch.nested.nested_tensor(rows, layout=torch.jagged)
torch.set_warn_always(False)
print(len(caught))  # no warning
print(jagged)
print(jagged.offsets())  # where each sequence starts and ends

# %% nested-jagged-checks tags=["remove-cell"]
assert not caught, [str(w.message) for w in caught]
assert jagged.layout == torch.jagged and jagged.is_nested
assert torch.equal(jagged.offsets(), torch.tensor([0, 2, 5]))
assert [t.shape for t in jagged.unbind()] == [(2,), (3,)]
assert [t.shape for t in strided.unbind()] == [(2,), (3,)]
# the encoder's fast path above builds a strided nested tensor: the same note
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    encoder(x, src_key_padding_mask=pad)
torch.set_warn_always(False)
assert any(str(w.message).startswith("The PyTorch API of nested tensors")
           for w in caught), [str(w.message) for w in caught]

# %% mask-dtypes
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                   batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2).eval()
x = torch.randn(2, 4, 8)
pad = torch.arange(4) >= torch.tensor([4, 2])[:, None]  # bool, True: padding
causal = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)  # bool
square = nn.Transformer.generate_square_subsequent_mask(4)  # float, -inf
pad_float = torch.zeros(2, 4).masked_fill(pad, -math.inf)  # float, -inf
pairs = {"float + bool": (square, pad), "bool + bool": (causal, pad),
         "float + float": (square, pad_float)}
outputs, warned = {}, {}
for name, (mask, padding) in pairs.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outputs[name] = encoder(x, mask=mask, src_key_padding_mask=padding)
    warned[name] = [str(w.message) for w in caught]
    print(f"{name}: {len(warned[name])} warning(s)")
    for message in warned[name]:
        print(textwrap.fill(message, 76))
same = [torch.allclose(y, outputs["bool + bool"], atol=1e-6)
        for y in outputs.values()]
print(same)

# %% mask-dtypes-checks tags=["remove-cell"]
mismatched = warned["float + bool"]
assert len(mismatched) == 1, mismatched
assert mismatched[0].startswith(
    "Support for mismatched src_key_padding_mask and mask is deprecated")
assert warned["bool + bool"] == [] and warned["float + float"] == []
assert all(same)
# no "Converting mask" warning on the fast paths: nested encoder, MultiheadAttention
mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    encoder(x, src_key_padding_mask=pad_float)
    mha(x, x, x, key_padding_mask=pad_float, need_weights=False)
    mha(x, x, x, attn_mask=square, need_weights=False)
torch.set_warn_always(False)
assert not any("Converting mask" in str(w.message) for w in caught), [
    str(w.message) for w in caught]

# %% mask-int raises="AssertionError: only bool and floating types of src_key_padding_mask are supported"
attention_mask = (~pad).long()  # a tokenizer's: 1 keeps, 0 is padding
encoder(x, src_key_padding_mask=attention_mask)

# %% mask-int-fix
padding = attention_mask == 0  # bool, True: padding
y = encoder(x, mask=causal, src_key_padding_mask=padding)
print(padding.dtype, torch.equal(padding, pad))
print(torch.allclose(y, outputs["bool + bool"], atol=1e-6))

# %% mask-int-fix-checks tags=["remove-cell"]
assert padding.dtype == torch.bool and torch.equal(padding, pad)
assert torch.equal(attention_mask.bool(), ~pad)  # .bool(): True at the tokens kept
assert torch.allclose(y, outputs["bool + bool"], atol=1e-6)
