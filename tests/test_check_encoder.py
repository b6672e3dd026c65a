"""The checkers of chapter 03's exercises accept the solutions, let the stubs' NotImplementedError
through, and reject the mistakes learners make with feedback that names the mistake."""

import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from helpers import exercise_functions

from minibert import check
from minibert.check import ExerciseError

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = exercise_functions(ROOT / "exercises" / "solutions" / "03_encoder.ipynb")
STUBS = exercise_functions(ROOT / "exercises" / "03_encoder.ipynb")

EXERCISES = [("feed_forward", "my_feed_forward"), ("encoder_layer", "my_encoder_layer"),
             ("count_parameters", "my_count_parameters"), ("load_layer", "my_load_layer")]


@pytest.mark.parametrize("checker, function", EXERCISES)
def test_the_solution_passes(checker, function, capsys):
    getattr(check, checker)(SOLUTIONS[function])
    assert capsys.readouterr().out.startswith(f"✓ {checker}:")


@pytest.mark.parametrize("checker, function", EXERCISES)
def test_the_stub_raises_not_implemented(checker, function):
    with pytest.raises(NotImplementedError, match="Exercise 3"):
        getattr(check, checker)(STUBS[function])


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


@pytest.mark.parametrize("bug, message", [
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
