"""The checkers of chapter 03's exercises accept the solutions, let the stubs' NotImplementedError
through, and reject the mistakes learners make with feedback that names the mistake."""

import math

import pytest
import torch
import torch.nn.functional as F
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("feed_forward", "my_feed_forward"), ("encoder_layer", "my_encoder_layer"),
             ("count_parameters", "my_count_parameters"), ("load_layer", "my_load_layer"),
             ("forward_flops", "my_forward_flops"), ("tf_to_pytorch", "my_tf_to_pytorch")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "03_encoder", EXERCISES)


# --- 3.1 the feed-forward block: each bug is what a learner writes ---------------------------------

def ffn_relu(x, w1, b1, w2, b2):
    return torch.relu(x @ w1.T + b1) @ w2.T + b2


def ffn_tanh_gelu(x, w1, b1, w2, b2):
    h = x @ w1.T + b1
    return 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3))) @ w2.T + b2


def ffn_not_transposed(x, w1, b1, w2, b2):
    return F.gelu(x @ w1 + b1) @ w2 + b2


def ffn_no_activation(x, w1, b1, w2, b2):
    return (x @ w1.T + b1) @ w2.T + b2


def ffn_no_second_bias(x, w1, b1, w2, b2):
    return F.gelu(x @ w1.T + b1) @ w2.T


def ffn_transposes_in_place(x, w1, b1, w2, b2):
    w1.t_(), w2.t_()  # "fixes" the shape error by transposing the caller's weights
    return F.gelu(x @ w1 + b1) @ w2 + b2


def ffn_unsqueezes_biases(x, w1, b1, w2, b2):
    b1.unsqueeze_(0), b2.unsqueeze_(0)  # right values, but the caller's biases are (1, I) and (1, H) now
    return F.gelu(x @ w1.T + b1) @ w2.T + b2


def ffn_in_float32(x, w1, b1, w2, b2):  # "to be safe": float64 inputs come back as float32
    x, w1, b1, w2, b2 = (t.float() for t in (x, w1, b1, w2, b2))
    return F.gelu(x @ w1.T + b1) @ w2.T + b2


def ffn_flattened_with_view(x, w1, b1, w2, b2):  # .view refuses a transposed (non-contiguous) x
    B, T, H = x.shape
    return (F.gelu(x.view(B * T, H) @ w1.T + b1) @ w2.T + b2).view(B, T, H)


def ffn_einsum_and_erfc(x, w1, b1, w2, b2):  # correct: einsum, and Φ(z) = erfc(-z/√2) / 2
    h = torch.einsum("bth,ih->bti", x, w1) + b1
    return torch.einsum("bti,hi->bth", h * 0.5 * torch.erfc(-h / math.sqrt(2)), w2) + b2


def test_feed_forward_accepts_einsum_and_erfc(capsys):
    check.feed_forward(ffn_einsum_and_erfc)
    assert capsys.readouterr().out.startswith("✓ feed_forward:")


@pytest.mark.parametrize("bug, message", [
    (ffn_in_float32, r"in float64.*expected a torch.float64 result, received torch.float32"),
    (ffn_flattened_with_view, r"not contiguous.*raised RuntimeError: view size(.|\n)*use .reshape"),
    (ffn_transposes_in_place, r"hand case .*changed its argument w1 in place \(shape \(3, 2\) -> \(2, 3\)\)"),
    (ffn_unsqueezes_biases, r"hand case .*changed its argument b1 in place \(shape \(3,\) -> \(1, 3\)\)"),
    (ffn_relu, r"hand case x = \[\[\[1, -1\]\]\].*expected .*0\.68.*\n.*matches ReLU"),
    (ffn_tanh_gelu, r"hand case .*differ by up to 0\.0003.*\n.*tanh approximation .*erf"),
    (ffn_not_transposed, r"hand case .*raised RuntimeError.*\n.*hint: .*\(out_features, in_features\)"),
    (ffn_no_activation, r"without its non-linearity"),
    (ffn_no_second_bias, r"without b2"),
])
def test_feed_forward_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.feed_forward(bug)


def test_feed_forward_catches_the_tanh_gelu_at_realistic_scales():
    """The hand cases aside, the random cases alone must fail the tanh approximation too."""
    from minibert.check.encoder import ffn as encoder
    hand = encoder._FFN_HAND
    try:
        encoder._FFN_HAND = []
        with pytest.raises(ExerciseError, match=r"random case .*\n.*tanh approximation"):
            check.feed_forward(ffn_tanh_gelu)
    finally:
        encoder._FFN_HAND = hand


# --- 3.2 a post-LN encoder layer ---------------------------------------------------------------

def attn(layer, x, key_mask):
    return layer.attention(x, key_mask)[0]


def layer_pre_ln(x, key_mask, layer):
    x = x + attn(layer, layer.attention_norm(x), key_mask)
    return x + layer.ffn(layer.ffn_norm(x))


def layer_norm_before_residual(x, key_mask, layer):
    x = layer.attention_norm(attn(layer, x, key_mask)) + x
    return layer.ffn_norm(layer.ffn(x)) + x


def layer_norms_swapped(x, key_mask, layer):
    x = layer.ffn_norm(x + attn(layer, x, key_mask))
    return layer.attention_norm(x + layer.ffn(x))


def layer_no_ffn_residual(x, key_mask, layer):
    x = layer.attention_norm(x + attn(layer, x, key_mask))
    return layer.ffn_norm(layer.ffn(x))


def layer_calls_the_layer(x, key_mask, layer):
    return layer(x, key_mask)[0]


def layer_returns_the_tuple(x, key_mask, layer):
    a = layer.attention(x, key_mask)
    x = layer.attention_norm(x + a[0])
    return layer.ffn_norm(x + layer.ffn(x)), a[1]


def layer_ignores_the_mask(x, key_mask, layer):
    x = layer.attention_norm(x + attn(layer, x, None))
    return layer.ffn_norm(x + layer.ffn(x))


@pytest.mark.parametrize("bug, message", [
    (layer_pre_ln, r"hand case.*\n  hint: this matches pre-LN: x \+ sublayer\(LayerNorm\(x\)\)"),
    (layer_norm_before_residual, r"hint: this matches LayerNorm\(sublayer\(x\)\) \+ x"),
    (layer_norms_swapped, r"hint: this matches the two LayerNorms swapped"),
    (layer_no_ffn_residual, r"hint: this matches no residual around the feed-forward block"),
    (layer_calls_the_layer, r"hand case.*: do not call layer\(\.\.\.\) itself"),
    (layer_returns_the_tuple, r"received a tuple of 2; return only the \(B, T, H\) tensor"),
    (layer_ignores_the_mask, r"layer 0 of all-MiniLM-L6-v2, input: the real hidden states .* of a padded batch: "
                             r"values differ.*\n  hint: .*ignores the padding: pass key_mask on"),
])
def test_encoder_layer_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.encoder_layer(bug)


def test_encoder_layer_recognises_pre_ln_on_real_weights():
    """Past the hand case, on MiniLM's real layers, pre-LN is still named."""
    def pre_ln_except_on_the_hand_case(x, key_mask, layer):
        if x.shape[-1] == 3:  # the hand case's H
            return SOLUTIONS["my_encoder_layer"](x, key_mask, layer)
        return layer_pre_ln(x, key_mask, layer)

    with pytest.raises(ExerciseError, match=r"layer 0 of all-MiniLM-L6-v2, input: the real hidden states.*\n"
                                            r"  hint: this matches pre-LN"):
        check.encoder_layer(pre_ln_except_on_the_hand_case)


# --- 3.3 counting the parameters ---------------------------------------------------------------

def linear(n_in, n_out):
    return n_in * n_out + n_out


def count_no_biases(c):
    H, I = c.hidden_size, c.intermediate_size
    layer = 4 * H * H + H * I + I * H + 4 * H
    return (c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * H + 2 * H + \
        c.num_hidden_layers * layer + H * H


def count_no_layer_norms(c):
    H, I = c.hidden_size, c.intermediate_size
    layer = 4 * linear(H, H) + linear(H, I) + linear(I, H)
    return (c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * H + c.num_hidden_layers * layer + \
        linear(H, H)


def count_no_pooler(c):
    H, I = c.hidden_size, c.intermediate_size
    layer = 4 * linear(H, H) + linear(H, I) + linear(I, H) + 4 * H
    return (c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * H + 2 * H + c.num_hidden_layers * layer


def count_512_positions(c):
    H, I = c.hidden_size, c.intermediate_size
    layer = 4 * linear(H, H) + linear(H, I) + linear(I, H) + 4 * H
    return (c.vocab_size + 512 + c.type_vocab_size) * H + 2 * H + c.num_hidden_layers * layer + linear(H, H)


def count_four_h(c):
    H = c.hidden_size
    I = 4 * H
    layer = 4 * linear(H, H) + linear(H, I) + linear(I, H) + 4 * H
    return (c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * H + 2 * H + \
        c.num_hidden_layers * layer + linear(H, H)


def count_one_layer(c):
    H, I = c.hidden_size, c.intermediate_size
    layer = 4 * linear(H, H) + linear(H, I) + linear(I, H) + 4 * H
    return (c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * H + 2 * H + layer + linear(H, H)


def count_right_for_bert_only(c):
    """I = 4H, but right on the tiny hand configs: BASE and LARGE have I = 4H, so only the random
    configs (other ratios) can catch it."""
    return count_four_h(c) if c.vocab_size > 10 else SOLUTIONS["my_count_parameters"](c)


@pytest.mark.parametrize("bug, message", [
    (count_no_biases, r"tiny config .*L=1.*\n  expected 262\n  received 232\n"
                      r".*short by 30, exactly the number of biases of the linear maps"),
    (count_no_layer_norms, r"expected 262\n  received 238\n"
                           r".*short by 24, exactly the number of parameters of the LayerNorms"),
    (count_no_pooler, r"expected 262\n  received 242\n.*the pooler"),
    (count_512_positions, r"hint: this is the count with 512 positions: use config.max_position_embeddings"),
    (count_four_h, r"hint: this is the count with I = 4H.*intermediate_size=6"),
    (count_one_layer, r"L=3.*\n  expected 570\n  received 262\n.*one-layer model"),
    (count_right_for_bert_only, r"BertConfig\(vocab_size=.*\n.*\n.*\n  hint: this is the count with I = 4H"),
])
def test_count_parameters_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.count_parameters(bug)


# --- 3.4 loading one layer's real weights ------------------------------------------------------

TABLE = {"attention.query": "attention.self.query", "attention.key": "attention.self.key",
         "attention.value": "attention.self.value", "attention.output": "attention.output.dense",
         "attention_norm": "attention.output.LayerNorm", "ffn.intermediate": "intermediate.dense",
         "ffn.output": "output.dense", "ffn_norm": "output.LayerNorm"}


def loader(table=TABLE, transpose=False, offset=0, no_grad=True):
    def load(state_dict, i, layer):
        with torch.set_grad_enabled(not no_grad):
            for ours, theirs in table.items():
                module = layer.get_submodule(ours)
                for param in ("weight", "bias"):
                    t = state_dict[f"encoder.layer.{i + offset}.{theirs}.{param}"]
                    square = t.dim() == 2 and t.shape[0] == t.shape[1]
                    flip = t.dim() == 2 and (transpose is True or (transpose == "square" and square))
                    getattr(module, param).copy_(t.T if flip else t)
    return load


def swapped(a, b):
    return {**TABLE, a: TABLE[b], b: TABLE[a]}


def load_into_a_new_layer(state_dict, i, layer):
    import copy
    layer = copy.deepcopy(layer)
    loader()(state_dict, i, layer)
    return layer


@pytest.mark.parametrize("bug, message", [
    (loader(swapped("attention.query", "attention.key")),
     r"layer.attention.query.weight \(layer 0\) should hold the checkpoint's encoder.layer.0.attention.self.query."
     r"weight, but it holds encoder.layer.0.attention.self.key.weight\n  hint: attention.self.query goes to"),
    (loader(transpose=True),
     r"raised RuntimeError: The size of tensor a \(384\) must match .*\n  hint: .*no transposing"),
    (loader(transpose="square"), r"attention.query.weight \(layer 0\) .* but it holds that tensor transposed"
                                 r"\n  hint: the checkpoint stores"),
    (loader(swapped("attention_norm", "ffn_norm")),
     r"layer.attention_norm.weight \(layer 0\) should hold the checkpoint's "
     r"encoder.layer.0.attention.output.LayerNorm.weight, but it holds encoder.layer.0.output.LayerNorm.weight"
     r"\n  hint: attention.output.LayerNorm is the norm after the attention sub-layer"),
    (loader(offset=1), r"but it holds encoder.layer.1.attention.self.query.weight\n  hint: that is layer 1's tensor"),
    (loader(swapped("ffn.output", "attention.output")), r"my_load_layer\(state_dict, 0, layer\).*raised RuntimeError"),
    (loader(no_grad=False), r"raised RuntimeError.*\n  hint: copy into parameters under `with torch.no_grad\(\):`"),
    (load_into_a_new_layer, r"still holds its random initialisation\n  hint: change the layer you receive in place"),
])
def test_load_layer_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.load_layer(bug)


def test_load_layer_names_the_last_layer_off_by_one():
    def off_by_one_from_the_end(state_dict, i, layer):  # layers 1..6 instead of 0..5
        loader()(state_dict, i + 1 if i == 5 else i, layer)

    message = r"KeyError.*encoder.layer.6.*\n  hint: the checkpoint has no such key.*with i from 0 to 5"
    with pytest.raises(ExerciseError, match=message):
        check.load_layer(off_by_one_from_the_end)


# --- hardening: more realistic bugs, and correct code in other styles ----------------------------

def layer_in_place_residual(x, key_mask, layer):
    x += attn(layer, x, key_mask)  # changes the caller's tensor
    x = layer.attention_norm(x)
    return layer.ffn_norm(x + layer.ffn(x))


def layer_train_mode_dropout(x, key_mask, layer):
    h = layer.attention_norm(x + F.dropout(attn(layer, x, key_mask), 0.1))  # training=True by default
    return layer.ffn_norm(h + F.dropout(layer.ffn(h), 0.1))


def layer_ffn_norm_twice(x, key_mask, layer):
    h = layer.ffn_norm(x + attn(layer, x, key_mask))
    return layer.ffn_norm(h + layer.ffn(h))


def layer_ffn_residual_from_input(x, key_mask, layer):
    h = layer.attention_norm(x + attn(layer, x, key_mask))
    return layer.ffn_norm(x + layer.ffn(h))


def _by_hand_ffn(layer, h, act):
    return layer.ffn.output(act(layer.ffn.intermediate(h)))


def layer_relu(x, key_mask, layer):
    h = layer.attention_norm(x + attn(layer, x, key_mask))
    return layer.ffn_norm(h + _by_hand_ffn(layer, h, torch.relu))


def layer_tanh_gelu(x, key_mask, layer):
    h = layer.attention_norm(x + attn(layer, x, key_mask))
    return layer.ffn_norm(h + _by_hand_ffn(layer, h, lambda z: F.gelu(z, approximate="tanh")))


def layer_no_gamma_beta(x, key_mask, layer):
    h = F.layer_norm(x + attn(layer, x, key_mask), (x.shape[-1],), eps=1e-12)
    return F.layer_norm(h + layer.ffn(h), (x.shape[-1],), eps=1e-12)


def layer_no_output_projection(x, key_mask, layer):
    a = layer.attention
    B, T, H = x.shape
    q, k, v = (a.split_heads(f(x)) for f in (a.query, a.key, a.value))
    context = F.scaled_dot_product_attention(q, k, v, attn_mask=key_mask).transpose(1, 2).reshape(B, T, H)
    h = layer.attention_norm(x + context)  # a.output forgotten
    return layer.ffn_norm(h + layer.ffn(h))


def layer_inverted_mask(x, key_mask, layer):
    mask = None if key_mask is None else ~key_mask
    h = layer.attention_norm(x + attn(layer, x, mask))
    return layer.ffn_norm(h + layer.ffn(h))


def layer_unmasked_single_sequence(x, key_mask, layer):  # "padding only lines up sequences of several lengths"
    return SOLUTIONS["my_encoder_layer"](x, None if x.shape[0] == 1 else key_mask, layer)


def layer_detached_residual(x, key_mask, layer):  # the same values, but no gradient back to x through the residual
    h = layer.attention_norm(x.detach().clone() + attn(layer, x, key_mask))
    return layer.ffn_norm(h + layer.ffn(h))


@pytest.mark.parametrize("bug, message", [
    (layer_in_place_residual, r"changed its input x in place"),
    (layer_detached_residual, r"gradient reaching the input x differs(.|\n)*x.detach\(\)"),
    (layer_train_mode_dropout, r"(two calls on the same input gave different outputs|values differ)"),
    (layer_ffn_norm_twice, r"layer.ffn_norm used for both sub-layers"),
    (layer_ffn_residual_from_input, r"feed-forward residual adding the layer's input"),
    (layer_relu, r"feed-forward block with ReLU"),
    (layer_tanh_gelu, r"tanh approximation of GELU"),
    # On the hand case (attention_norm's γ = 1, β = 0) this equals attention_norm used twice; both are named.
    (layer_no_gamma_beta, r"(LayerNorms without their scale γ and shift β|layer.attention_norm used for both)"),
    (layer_no_output_projection, r"attention without its output projection"),
    (layer_inverted_mask, r"(mask inverted|values differ)"),
    (layer_unmasked_single_sequence, r"a batch of one padded sequence \(B = 1(.|\n)*attention that ignores the "
                                     r"padding: pass key_mask on"),
])
def test_encoder_layer_rejects_more(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.encoder_layer(bug)


def layer_default_eps(x, key_mask, layer):
    H = x.shape[-1]
    norm1, norm2 = layer.attention_norm, layer.ffn_norm
    h = F.layer_norm(x + attn(layer, x, key_mask), (H,), norm1.weight, norm1.bias)  # eps left at 1e-5
    return F.layer_norm(h + layer.ffn(h), (H,), norm2.weight, norm2.bias)


def layer_float32_residuals(x, key_mask, layer):
    h = layer.attention_norm(x.float() + attn(layer, x, key_mask).float())
    return layer.ffn_norm(h + layer.ffn(h)).float()


def layer_returns_float32(x, key_mask, layer):
    h = layer.attention_norm(x + attn(layer, x, key_mask))
    return layer.ffn_norm(h + layer.ffn(h)).float()


@pytest.mark.parametrize("bug, message", [
    (layer_default_eps, r"x scaled by 1e-3(.|\n)*LayerNorms with eps = 1e-5, the default"),
    (layer_float32_residuals, r"in float64(.|\n)*mixed dtype"),
    (layer_returns_float32, r"in float64.*received a torch.float32 tensor from a torch.float64 input"),
])
def test_encoder_layer_rejects_eps_and_dtype_mistakes(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.encoder_layer(bug)


def test_encoder_layer_names_missing_gamma_beta_on_real_layers():
    def no_gamma_beta_past_the_hand_case(x, key_mask, layer):
        if x.shape[-1] == 3:
            return SOLUTIONS["my_encoder_layer"](x, key_mask, layer)
        return layer_no_gamma_beta(x, key_mask, layer)

    with pytest.raises(ExerciseError, match=r"layer 0 of all-MiniLM-L6-v2.*\n.*LayerNorms without their scale"):
        check.encoder_layer(no_gamma_beta_past_the_hand_case)


def test_encoder_layer_names_train_mode_dropout_on_real_layers():
    def dropout_past_the_hand_case(x, key_mask, layer):
        if x.shape[-1] == 3:
            return SOLUTIONS["my_encoder_layer"](x, key_mask, layer)
        return layer_train_mode_dropout(x, key_mask, layer)

    with pytest.raises(ExerciseError, match=r"two calls on the same input gave different outputs.*\n.*dropout"):
        check.encoder_layer(dropout_past_the_hand_case)


def layer_eval_dropout(x, key_mask, layer):  # correct: the layer's own dropout follows its (eval) mode
    h = layer.attention_norm(x + layer.dropout(attn(layer, x, key_mask)))
    return layer.ffn_norm(h + layer.dropout(layer.ffn(h)))


def layer_by_hand_norms(x, key_mask, layer):  # correct: LayerNorm written out, in float64
    def norm(v, ln):
        v = v.double()
        mu, var = v.mean(-1, keepdim=True), v.var(-1, unbiased=False, keepdim=True)
        return (v - mu) / torch.sqrt(var + ln.eps) * ln.weight.double() + ln.bias.double()
    h = norm(x + attn(layer, x, key_mask), layer.attention_norm).to(x.dtype)
    return norm(h + layer.ffn(h), layer.ffn_norm)


@pytest.mark.parametrize("style", [layer_eval_dropout, layer_by_hand_norms])
def test_encoder_layer_accepts_other_styles(style, capsys):
    check.encoder_layer(style)
    assert capsys.readouterr().out.startswith("✓ encoder_layer:")


def count_numpy(c):  # correct, numpy style: returns a numpy integer
    import numpy as np
    H, I = np.int64(c.hidden_size), np.int64(c.intermediate_size)
    layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 4 * H
    return (np.int64(c.vocab_size) + c.max_position_embeddings + c.type_vocab_size) * H + 2 * H + \
        c.num_hidden_layers * layer + H * H + H


def count_torch_scalar(c):  # correct: a 0-d torch integer
    return torch.tensor(SOLUTIONS["my_count_parameters"](c))


def count_numpy_0d(c):  # correct: a 0-d numpy array
    import numpy as np
    return np.array(SOLUTIONS["my_count_parameters"](c))


@pytest.mark.parametrize("style", [count_numpy, count_torch_scalar, count_numpy_0d])
def test_count_parameters_accepts_other_styles(style, capsys):
    check.count_parameters(style)
    assert capsys.readouterr().out.startswith("✓ count_parameters:")


def count_one_norm_per_layer(c):
    return SOLUTIONS["my_count_parameters"](c) - c.num_hidden_layers * 2 * c.hidden_size


def count_tied_twice(c):
    return SOLUTIONS["my_count_parameters"](c) + c.vocab_size * c.hidden_size


def count_with_heads(c):
    from minibert import BertForPreTraining
    with torch.device("meta"):
        return sum(p.numel() for p in BertForPreTraining(c).parameters())


def count_first_bias_h(c):
    return SOLUTIONS["my_count_parameters"](c) - c.num_hidden_layers * (c.intermediate_size - c.hidden_size)


def count_two_segments(c):
    return SOLUTIONS["my_count_parameters"](c) + (2 - c.type_vocab_size) * c.hidden_size


def count_pooler_per_layer(c):
    return SOLUTIONS["my_count_parameters"](c) + (c.num_hidden_layers - 1) * (c.hidden_size ** 2 + c.hidden_size)


def count_as_string(c):
    return f"{SOLUTIONS['my_count_parameters'](c):,}"


def count_as_float(c):  # hs = H / nh per head: the right number, as a float
    H, nh = c.hidden_size, c.num_attention_heads
    return float(SOLUTIONS["my_count_parameters"](c)) + 4 * nh * (H / nh * H + H / nh) - 4 * (H * H + H)


@pytest.mark.parametrize("bug, message", [
    (count_one_norm_per_layer, r"one LayerNorm per layer"),
    (count_tied_twice, r"word embeddings counted twice"),
    (count_with_heads, r"MLM and NSP heads"),
    (count_first_bias_h, r"first feed-forward map's bias has I numbers"),
    (count_two_segments, r"type_vocab_size=2"),
    (count_pooler_per_layer, r"L=3.*\n.*\n.*\n.*pooler counted once per layer"),
    (count_as_string, r"expected an integer count, received '262' \(str\)"),
    (count_as_float, r"tiny config.*expected an int, received 262\.0 \(float\)(.|\n)*/ always gives a float"),
])
def test_count_parameters_rejects_more(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.count_parameters(bug)


def load_frozen(state_dict, i, layer):
    for p in layer.parameters():
        p.requires_grad_(False)
    loader(no_grad=False)(state_dict, i, layer)


def load_unregistered(state_dict, i, layer):
    for ours, theirs in TABLE.items():
        module = layer.get_submodule(ours)
        for param in ("weight", "bias"):
            delattr(module, param)
            setattr(module, param, state_dict[f"encoder.layer.{i}.{theirs}.{param}"].clone())


def load_into_clones(state_dict, i, layer):
    for ours, theirs in TABLE.items():
        module = layer.get_submodule(ours)
        for param in ("weight", "bias"):
            getattr(module, param).data.clone().copy_(state_dict[f"encoder.layer.{i}.{theirs}.{param}"])


def load_as_new_parameters(state_dict, i, layer):
    for ours, theirs in TABLE.items():
        module = layer.get_submodule(ours)
        for param in ("weight", "bias"):  # registered, trainable, right values: but new objects
            setattr(module, param, torch.nn.Parameter(state_dict[f"encoder.layer.{i}.{theirs}.{param}"].clone()))


def load_by_data_assignment(state_dict, i, layer):
    for ours, theirs in TABLE.items():
        module = layer.get_submodule(ours)
        for param in ("weight", "bias"):  # the old parameters, pointed at the checkpoint's memory
            getattr(module, param).data = state_dict[f"encoder.layer.{i}.{theirs}.{param}"]


def load_layer_zero_always(state_dict, i, layer):
    loader()(state_dict, 0, layer)


def load_strict_false(state_dict, i, layer):
    prefix = f"encoder.layer.{i}."
    layer.load_state_dict({k[len(prefix):]: v for k, v in state_dict.items() if k.startswith(prefix)}, strict=False)


def load_gamma_beta_swapped(state_dict, i, layer):
    loader()(state_dict, i, layer)
    with torch.no_grad():
        for norm, name in ((layer.attention_norm, "attention.output.LayerNorm"), (layer.ffn_norm, "output.LayerNorm")):
            norm.weight.copy_(state_dict[f"encoder.layer.{i}.{name}.bias"])
            norm.bias.copy_(state_dict[f"encoder.layer.{i}.{name}.weight"])


def load_transposing_in_place(state_dict, i, layer):
    key = f"encoder.layer.{i}.attention.self.query.weight"
    state_dict[key].t_()  # "fixes" a layout that needed no fixing, in the caller's dict
    state_dict[key].t_()
    state_dict[key].mul_(1.0 + 1e-3)
    loader()(state_dict, i, layer)


def load_converting_the_checkpoint(state_dict, i, layer):  # right on a float32 checkpoint, where .to returns it as is
    for key in [k for k in state_dict if k.startswith(f"encoder.layer.{i}.")]:
        state_dict[key] = state_dict[key].to(layer.attention.query.weight.dtype)
    loader()(state_dict, i, layer)


def load_by_prefix_without_dot(state_dict, i, layer):  # right on MiniLM's 6 layers; layer 1 of 12 takes 10's and 11's
    with torch.no_grad():
        for ours, theirs in TABLE.items():
            for param in ("weight", "bias"):
                keys = [k for k in state_dict
                        if k.startswith(f"encoder.layer.{i}") and k.endswith(f".{theirs}.{param}")]
                getattr(layer.get_submodule(ours), param).copy_(state_dict[keys[-1]])


def load_dense_maps_by_shape(state_dict, i, layer):  # right on MiniLM (I = 4H); wrong where I = H
    dense = [k for k in state_dict if k.startswith(f"encoder.layer.{i}.") and k.endswith("dense.weight")]
    loader()(state_dict, i, layer)
    with torch.no_grad():
        for ours in ("attention.output", "ffn.intermediate", "ffn.output"):
            module = layer.get_submodule(ours)
            key = next(k for k in dense if state_dict[k].shape == module.weight.shape)  # the first that fits
            module.weight.copy_(state_dict[key])
            module.bias.copy_(state_dict[key.removesuffix("weight") + "bias"])


@pytest.mark.parametrize("bug, message", [
    (load_dense_maps_by_shape, r"(?s)12-layer checkpoint.*H = I = 32.*layer.ffn.intermediate.weight \(layer 1\) "
                               r"should hold .*intermediate.dense.weight, "
                               r"but it holds .*attention.output.dense.weight"),
    (load_by_prefix_without_dot, r"(?s)state_dict, 1, layer\), state_dict a 12-layer checkpoint.*holds "
                                 r"encoder.layer.11.*layer 11's tensor, not layer 1's.*with its dot"),
    (load_frozen, r"requires_grad=False: the layer would not train"),
    (load_unregistered, r"is no longer a parameter of the layer \(it is now a plain Tensor\)"),
    (load_into_clones, r"still holds its random initialisation.*\n.*param.data.clone"),
    (load_as_new_parameters, r"layer.attention.query.weight is a new nn.Parameter.*\n.*param.copy_"),
    (load_by_data_assignment, r"shares its memory with the checkpoint's tensor encoder.layer.0.attention.self.query"),
    (load_layer_zero_always, r"(?s)my_load_layer\(state_dict, 1, layer\).*holds encoder.layer.0.*\n.*layer 0's tensor"),
    (load_strict_false, r"still holds its random initialisation.*\n.*strict=False"),
    (load_gamma_beta_swapped, r"weight and bias swapped"),
    (load_transposing_in_place, r"changed the checkpoint's tensor encoder.layer.0.attention.self.query.weight in place"),
    (load_converting_the_checkpoint, r"(?s)checkpoint in float16.*caller's checkpoint holds "
                                     r"encoder.layer.1.*as torch.float32; it was "
                                     r"torch.float16"),
])
def test_load_layer_rejects_more(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.load_layer(bug)


def load_with_state_dict(state_dict, i, layer):  # correct: one load_state_dict, strict
    prefix = f"encoder.layer.{i}."
    layer.load_state_dict({ours + "." + p: state_dict[f"{prefix}{theirs}.{p}"]
                           for ours, theirs in TABLE.items() for p in ("weight", "bias")})


def load_with_data(state_dict, i, layer):  # correct: .data assignment keeps the Parameter objects
    for ours, theirs in TABLE.items():
        module = layer.get_submodule(ours)
        for param in ("weight", "bias"):
            getattr(module, param).data = state_dict[f"encoder.layer.{i}.{theirs}.{param}"].clone()


@pytest.mark.parametrize("style", [load_with_state_dict, load_with_data])
def test_load_layer_accepts_other_styles(style, capsys):
    check.load_layer(style)
    assert capsys.readouterr().out.startswith("✓ load_layer:")


# --- 3.5 FLOPs of a forward pass -------------------------------------------------------------------

def _flops_parts(c, T):
    H, I = c.hidden_size, c.intermediate_size
    return 8 * T * H * H, 4 * T * T * H, 4 * T * H * I, 2 * H * H


def flops_multiply_adds(c, T):
    return SOLUTIONS["my_forward_flops"](c, T) // 2


def flops_no_attention(c, T):
    proj, _, ffn, pooler = _flops_parts(c, T)
    return c.num_hidden_layers * (proj + ffn) + pooler


def flops_ffn_once(c, T):  # one of the feed-forward block's two products
    proj, scores, ffn, pooler = _flops_parts(c, T)
    return c.num_hidden_layers * (proj + scores + ffn // 2) + pooler


def flops_heads_times(c, T):
    proj, scores, ffn, pooler = _flops_parts(c, T)
    return c.num_hidden_layers * (proj + c.num_attention_heads * scores + ffn) + pooler


def flops_pooler_every_token(c, T):
    proj, scores, ffn, pooler = _flops_parts(c, T)
    return c.num_hidden_layers * (proj + scores + ffn) + T * pooler


def flops_one_layer(c, T):
    return sum(_flops_parts(c, T))


def flops_four_h(c, T):
    import dataclasses
    return SOLUTIONS["my_forward_flops"](dataclasses.replace(c, intermediate_size=4 * c.hidden_size), T)


def flops_one_hot_embeddings(c, T):
    return SOLUTIONS["my_forward_flops"](c, T) + 2 * T * c.vocab_size * c.hidden_size


def flops_only_scores(c, T):
    proj, scores, ffn, pooler = _flops_parts(c, T)
    return c.num_hidden_layers * (proj + scores // 2 + ffn) + pooler


def flops_as_float_rate(c, T):
    return SOLUTIONS["my_forward_flops"](c, T) / 1e9  # GFLOPs, not FLOPs


def flops_head_size_as_float(c, T):  # hs = H / nh: the right count, as a float
    H, nh = c.hidden_size, c.num_attention_heads
    return SOLUTIONS["my_forward_flops"](c, T) * (H / nh) / (H // nh)


@pytest.mark.parametrize("bug, message", [
    (flops_multiply_adds, r"expected 848\n  received 424\n.*multiply-add is 2 FLOPs"),
    (flops_no_attention, r"attention products are missing"),
    (flops_ffn_once, r"(?s)tiny config H=4, I=6, L=1.*feed-forward block is counted once"),  # not "attention"
    (flops_heads_times, r"once per head"),
    (flops_pooler_every_token, r"pooler counted for every token"),
    (flops_one_layer, r"L=2.*\n.*\n.*\n.*this is one layer"),
    (flops_four_h, r"I = 4H"),
    (flops_one_hot_embeddings, r"embedding lookup counted as a matrix product"),
    (flops_only_scores, r"only one of attention's two products"),
    (flops_as_float_rate, r"expected an integer number of FLOPs"),
    (flops_head_size_as_float, r"tiny config H=4, I=6, L=1, A=2, T=3: expected an int, received 848\.0 \(float\)"
                               r"(.|\n)*/ always gives a float"),
])
def test_forward_flops_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.forward_flops(bug)


def test_forward_flops_accepts_numpy(capsys):
    import numpy as np
    check.forward_flops(lambda c, T: np.int64(SOLUTIONS["my_forward_flops"](c, T)))
    assert capsys.readouterr().out.startswith("✓ forward_flops:")


# --- 3.6 TensorFlow names ----------------------------------------------------------------------------

def tf_solution(name, value):
    return SOLUTIONS["my_tf_to_pytorch"](name, value)


def tf_no_transpose(name, value):
    got = tf_solution(name, value)
    return got if got is None or not name.endswith("kernel") else (got[0], torch.tensor(value))


def tf_transpose_tables(name, value):
    got = tf_solution(name, value)
    return got if got is None or not name.endswith("_embeddings") else (got[0], got[1].T)


def tf_gamma_beta_swapped(name, value):
    got = tf_solution(name, value)
    if got is None or "LayerNorm" not in name:
        return got
    key = got[0].rsplit(".", 1)[0] + (".bias" if name.endswith("gamma") else ".weight")
    return key, got[1]


def tf_keeps_underscore(name, value):
    got = tf_solution(name, value)
    return got if got is None else (got[0].replace("layer.", "layer_"), got[1])


def tf_keeps_bert(name, value):
    got = tf_solution(name, value)
    return got if got is None else ("bert." + got[0], got[1])


def tf_keeps_adam(name, value):
    return tf_solution(name.replace("/adam_m", "").replace("/adam_v", ""), value) if name != "global_step" else None


def tf_tables_without_weight(name, value):
    got = tf_solution(name, value)
    return got if got is None or not name.endswith("_embeddings") else (got[0][:-len(".weight")], got[1])


def tf_transposes_in_place(name, value):
    if name.endswith("kernel"):
        value.shape = value.shape[::-1]  # reshapes the caller's array, keeps its memory
    return tf_solution(name, value)


def tf_cast_to_float32(name, value):  # "weights are float32": a float64 array changes dtype
    got = tf_solution(name, value)
    return got if got is None else (got[0], got[1].to(torch.float32))


@pytest.mark.parametrize("bug, message", [
    (tf_cast_to_float32, r"output/dense/bias.*expected a torch.float64 tensor \(the array's dtype\), received "
                         r"torch.float32\n.*keep the array's dtype"),
    (tf_no_transpose, r"query/kernel.*expected a tensor of shape \(3, 2\), received shape \(2, 3\).*\n.*transpose"),
    (tf_transpose_tables, r"word_embeddings.*\n.*do not transpose"),
    (tf_gamma_beta_swapped, r"gamma and beta swapped"),
    (tf_keeps_underscore, r"`layer_3` is PyTorch's `layer.3`"),
    (tf_keeps_bert, r"drop the `bert/` scope"),
    (tf_keeps_adam, r"(?s)adam_m.*expected None.*\n  hint: Adam's moments"),
    (tf_tables_without_weight, r"key ends in `.weight`"),
    (tf_transposes_in_place, r"changed the array it was given"),
])
def test_tf_to_pytorch_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.tf_to_pytorch(bug)


def tf_numpy_style(name, value):  # correct: regexes, and a numpy array back
    import re
    import numpy as np
    if re.search(r"(adam_[mv]|global_step)$", name):
        return None
    key = re.sub(r"layer_(\d+)", r"layer.\1", name.removeprefix("bert/")).replace("/", ".")
    if key.endswith(".kernel"):
        return key[:-len("kernel")] + "weight", np.ascontiguousarray(value.T)
    key = re.sub(r"\.gamma$", ".weight", re.sub(r"\.beta$", ".bias", key))
    return (key + ".weight" if key.endswith("_embeddings") else key), value.copy()


def test_tf_to_pytorch_accepts_numpy(capsys):
    check.tf_to_pytorch(tf_numpy_style)
    assert capsys.readouterr().out.startswith("✓ tf_to_pytorch:")


def test_forward_flops_agrees_with_the_flop_counter_on_a_real_model():
    from torch.utils.flop_counter import FlopCounterMode
    from helpers import small_config
    from minibert import BertModel
    config = small_config()
    model = BertModel(config).eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(torch.randint(5, config.vocab_size, (1, 11)), output_attentions=True)
    assert counter.get_total_flops() == SOLUTIONS["my_forward_flops"](config, 11)


# --- the layer and the session left as they were; errors of backward() named ---------------------------------

def layer_norms_converted_to_float64(x, key_mask, layer):  # Module.double() converts the caller's LayerNorms
    h = layer.attention_norm.double()((x + attn(layer, x, key_mask)).double()).to(x.dtype)
    return layer.ffn_norm.double()((h + layer.ffn(h)).double()).to(x.dtype)


def layer_ffn_residual_in_place(x, key_mask, layer):  # layer.ffn saved h for its backward pass
    h = layer.attention_norm(x + attn(layer, x, key_mask))
    h += layer.ffn(h)
    return layer.ffn_norm(h)


@pytest.mark.parametrize("bug, message", [
    (layer_norms_converted_to_float64, r"hand case.*: after your function the layer's attention_norm.weight is "
                                       r"torch.float64; it was torch.float32\n  hint: Module.double\(\)"),
    (layer_ffn_residual_in_place, r"loss \(out \* w\).sum\(\): backward\(\) through your output raised RuntimeError: "
                                  r"one of the variables(.|\n)*hint: a tensor autograd saved"),
])
def test_encoder_layer_rejects_a_converted_layer_and_a_failing_backward(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.encoder_layer(bug)


def load_with_grad_switched_off(state_dict, i, layer):
    torch.set_grad_enabled(False)
    loader()(state_dict, i, layer)  # its no_grad block restores the state it found: off


def load_through_float32(state_dict, i, layer):
    loader()({k: v.float() for k, v in state_dict.items()}, i, layer)


def load_by_renaming_into_the_checkpoint(state_dict, i, layer):
    for ours, theirs in TABLE.items():
        for kind in ("weight", "bias"):
            state_dict[f"{ours}.{kind}"] = state_dict[f"encoder.layer.{i}.{theirs}.{kind}"]
    layer.load_state_dict({name: state_dict[name] for name in layer.state_dict()})


def load_through_numpy(state_dict, i, layer):
    loader()({k: torch.from_numpy(v.numpy().copy()) for k, v in state_dict.items()}, i, layer)


@pytest.mark.parametrize("bug, message", [
    (load_with_grad_switched_off, r"state_dict, 0, layer\).*: after your function autograd is off for the whole "
                                  r"session.*\n  hint: .*`with torch.no_grad\(\):`"),
    (load_through_float32, r"in float64 .*layer a float64 EncoderLayer:\n.*its values are that tensor's rounded to "
                           r"float32.*\n  hint: copy the tensor as it is stored"),
    (load_by_renaming_into_the_checkpoint, r"state_dict, 0, layer\).*: your function wrote 16 new key\(s\) into "
                                           r"the caller's checkpoint"),
    (load_through_numpy, r"checkpoint in bfloat16 .*: your function raised TypeError"),
])
def test_load_layer_rejects_session_checkpoint_and_dtype_mistakes(bug, message):
    try:
        with pytest.raises(ExerciseError, match=message):
            check.load_layer(bug)
    finally:
        torch.set_grad_enabled(True)  # the checker restores it; a failing test must not leave it off either
