"""The feature-based approach (§5.3, Table 7): BERT frozen, its hidden states read once, and a new
tagger trained on them.

    cache = {}
    feature_based(FinetuneConfig(task="names", model="minilm", lr=1e-3, epochs=4), "concat-last-four", cache=cache)

"We apply the feature-based approach by extracting the activations from one or more layers
without fine-tuning any parameters of BERT. These contextual embeddings are used as input to a
randomly initialized two-layer 768-dimensional BiLSTM before the classification layer." The
combinations are `heads.bilstm.COMBINATIONS`. The BiLSTM is H/2 per direction, so its output has
H dimensions (768 for BERT-BASE; the paper does not say whether its 768 counts one direction or
both). It trains with plain Adam at cfg.lr for cfg.epochs, a choice of ours (the paper gives none).

Features are computed once per model and split and kept in `cache`, so the six combinations and
their seeds cost one pass of the encoder. Letters: B batch, T tokens, H hidden, n states, K tags.
"""

from __future__ import annotations

import time

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

from .. import seeding
from ..heads import COMBINATIONS, FeatureTagger, chosen_layers
from ..hub import resolve
from ..inputs import IGNORE_INDEX
from ..config import BertConfig
from ..model import BertModel
from ..tasks import get_task
from ..tokenizer import Tokenizer
from .kinds import tag_scores
from .features import collate, encode
from .loop import examples
from .recipes import FinetuneConfig, model_folder


@torch.no_grad()
def hidden_states(encoder: BertModel, features: list[dict], pad_token_id: int, batch_size: int = 64) -> list[torch.Tensor]:
    """Every hidden state of every feature, padding cut off: one (T_i, L+1, H) tensor per feature."""
    encoder.eval()
    out = []
    for i in range(0, len(features), batch_size):
        batch = collate(features[i:i + batch_size], pad_token_id)
        states = encoder(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"],
                         output_hidden_states=True).hidden_states
        stacked = torch.stack(states, dim=2)  # L+1 × (B, T, H) -> (B, T, L+1, H)
        out += [s[:n] for s, n in zip(stacked, batch["attention_mask"].sum(1).tolist())]
    return out


def feature_based(cfg: FinetuneConfig, combination: str, *, cache: dict | None = None) -> dict:
    """Train `FeatureTagger` on the frozen `cfg.model`'s states joined by `combination`; return the
    dev metrics after the last epoch, after every epoch (`history`), and the seconds it took."""
    task = get_task(cfg.task)
    if task.kind != "tagging":
        raise ValueError(f"the feature-based approach here is Table 7's tagger; {cfg.task!r} is a {task.kind} task")
    cache = {} if cache is None else cache
    start = time.perf_counter()
    data = _features(cfg, task, cache)
    torch.manual_seed(cfg.seed)  # the tagger's initialisation: this run's seed
    L = data["num_layers"]
    layers = chosen_layers(combination, L)
    tagger = FeatureTagger(data["hidden_size"], len(layers), COMBINATIONS[combination][1],
                           hidden=data["hidden_size"] // 2, num_labels=len(task.labels))
    optimizer = torch.optim.Adam(tagger.parameters(), lr=cfg.lr)
    train, order = data["train"], seeding.generator(cfg.seed, 1)
    history = []
    for epoch in range(1, cfg.epochs + 1):
        tagger.train()
        for batch in torch.randperm(len(train["states"]), generator=order).split(cfg.batch_size):
            states, mask, labels = _batch(train, batch.tolist(), layers)
            logits = tagger(states, mask)  # (B, T, K)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=IGNORE_INDEX)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        history.append({"epoch": epoch, **_score(tagger, task, data["dev"], layers, cfg.batch_size)})
    return {"metrics": {k: v for k, v in history[-1].items() if k != "epoch"}, "history": history,
            "seconds": time.perf_counter() - start, "combination": combination, "layers": layers}


def _features(cfg: FinetuneConfig, task, cache: dict) -> dict:
    key = (cfg.model, cfg.task, cfg.max_train_examples, cfg.sample, cfg.eval_split, cfg.max_eval_examples,
           cfg.max_seq_length, cfg.init, cfg.seed if cfg.init == "random" else None)
    if key not in cache:
        folder = resolve(model_folder(cfg.model))
        tokenizer = Tokenizer.from_pretrained(folder)
        if cfg.init == "random":  # the control: the same architecture, weights drawn by this run's seed
            torch.manual_seed(cfg.seed)
            encoder = BertModel(BertConfig.from_json_file(folder / "config.json"))
        else:
            encoder = BertModel.from_pretrained(folder)
        splits = dict(zip(("train", "dev"), examples(cfg)))
        cache[key] = {"num_layers": encoder.config.num_hidden_layers, "hidden_size": encoder.config.hidden_size}
        for split, rows in splits.items():
            features = encode("tagging", rows, tokenizer, max_seq_length=cfg.max_seq_length)
            cache[key][split] = {"examples": rows, "features": features,
                                 "states": hidden_states(encoder, features, tokenizer.pad_token_id)}
    return cache[key]


def _batch(split: dict, rows: list[int], layers: list[int]):
    """(B, T, n, H) states of the chosen layers, (B, T) attention mask, (B, T) labels (-100 at padding)."""
    states = pad_sequence([split["states"][r][:, layers] for r in rows], batch_first=True)
    lengths = torch.tensor([split["states"][r].shape[0] for r in rows])
    mask = (torch.arange(states.shape[1])[None] < lengths[:, None]).long()
    labels = pad_sequence([torch.tensor(split["features"][r]["labels"]) for r in rows], batch_first=True,
                          padding_value=IGNORE_INDEX)
    return states, mask, labels


@torch.no_grad()
def _score(tagger: FeatureTagger, task, dev: dict, layers: list[int], batch_size: int) -> dict:
    tagger.eval()
    logits = []
    T = max(s.shape[0] for s in dev["states"])
    for i in range(0, len(dev["states"]), batch_size):
        states, mask, _ = _batch(dev, list(range(i, min(i + batch_size, len(dev["states"])))), layers)
        logits.append(F.pad(tagger(states, mask), (0, 0, 0, T - states.shape[1])))  # (B, T, K), one width
    return tag_scores(task, dev["features"], torch.cat(logits), dev["examples"], keep={})
