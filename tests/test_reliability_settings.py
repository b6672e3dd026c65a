"""Every setting of every command has one rule, kept in one place per config and checked the same
way by the Python API (`recipe(...)`, `FinetuneConfig(...)`, `BertConfig(...)`) and the command
line; a refusal names the setting, the value, the rule and a sensible value. Config files are
checked by type; `--help` shows what the README promises."""

import dataclasses
import json

import pytest

from minibert import BertConfig, ConfigError, Tokenizer
from minibert.ablations import __main__ as ablations_cli
from minibert.checkpoint import CheckpointError
from minibert.finetune import __main__ as finetune_cli
from minibert.finetune.recipes import RULES as FINETUNE_RULES
from minibert.finetune.recipes import FinetuneConfig, model_folder
from minibert.heads import BertForSequenceClassification
from minibert.pretrain import __main__ as pretrain_cli
from minibert.pretrain.recipes import RECIPES, PretrainConfig, recipe
from minibert.pretrain.recipes import RULES as PRETRAIN_RULES

from test_finetune import data_dir  # noqa: F401  (the small task files every fine-tuning test uses)


@pytest.fixture
def no_run(monkeypatch):
    """The commands' training entry points, replaced: a refusal that fails to happen fails the test
    at once instead of starting a run."""
    def refuse(*args, **kwargs):
        raise AssertionError("a run started: the settings should have been refused first")
    monkeypatch.setattr(pretrain_cli, "pretrain", refuse)
    monkeypatch.setattr(finetune_cli, "sweep", refuse)
    monkeypatch.setattr(finetune_cli, "selected_sweep", refuse)
    monkeypatch.setattr(ablations_cli, "run_tables", refuse)


def numeric_fields(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if f.type.split(" |")[0] in ("int", "float")
            or f.type.startswith("tuple[float")]


@pytest.mark.parametrize("cls, rules", [(PretrainConfig, PRETRAIN_RULES), (FinetuneConfig, FINETUNE_RULES)],
                         ids=["pretrain", "finetune"])
def test_every_numeric_setting_has_a_rule_that_says_what_it_is(cls, rules):
    missing = [name for name in numeric_fields(cls) if name not in rules]
    assert not missing, f"numeric settings without a rule in {cls.__module__}.RULES: {missing}"
    assert all(rules[name].why for name in numeric_fields(cls))


def test_every_preset_still_validates_in_python_and_on_the_command_line():
    for name in RECIPES:
        assert pretrain_cli.parse(["--config", name])[0] == recipe(name), name
    assert FinetuneConfig() == FinetuneConfig(**FinetuneConfig().to_dict())


# (flag, value, the message's rule and reason): each refused by the command and by Python alike.
PRETRAIN_REFUSALS = [
    ("--max-grad-norm", "-1", r"--max-grad-norm must be > 0 \(got -1.0\): it is the clipping threshold on the "
                              r"gradients' global norm; BERT uses 1.0"),
    ("--max-grad-norm", "0", r"--max-grad-norm must be > 0 \(got 0.0\)"),
    ("--weight-decay", "-5", r"--weight-decay must be >= 0 \(got -5.0\): it is AdamW's decoupled weight decay; "
                             r"BERT uses 0.01"),
    ("--seed", "-1", r"--seed must be an integer in \[0, 2\*\*32\) \(got -1\)"),
    ("--lr", "0", r"--lr must be > 0 \(got 0.0\): it is the peak learning rate; BERT uses 1e-4"),
    ("--adam-eps", "0", r"--adam-eps must be > 0 \(got 0.0\)"),
    ("--short-seq-prob", "1.5", r"--short-seq-prob must be in \[0, 1\] \(got 1.5\)"),
    ("--dupe-factor", "0", r"--dupe-factor must be a positive integer \(got 0\)"),
    ("--eval-batches", "0", r"--eval-batches must be a positive integer or None \(got 0\)"),
    ("--num-workers", "-1", r"--num-workers must be a non-negative integer \(got -1\)"),
    ("--peak-tflops", "-3", r"--peak-tflops must be > 0 or None \(got -3.0\)"),
    ("--objective", "rtl", r"--objective must be one of mlm, ltr \(got 'rtl'\)"),
]


@pytest.mark.parametrize("flag, value, message", PRETRAIN_REFUSALS, ids=[f"{f} {v}" for f, v, _ in PRETRAIN_REFUSALS])
def test_pretraining_refuses_a_bad_value_on_the_command_line_and_in_python(flag, value, message, no_run):
    with pytest.raises(SystemExit, match="^error: " + message):
        pretrain_cli.main(["--config", "tiny", flag, value])
    field, number = flag[2:].replace("-", "_"), json.loads(value) if value[-1].isdigit() else value
    with pytest.raises(ConfigError, match="^" + message.replace(flag, field, 1).split(r" \(got")[0]):
        recipe("tiny", **{field: number})


def test_several_bad_values_are_named_at_once_and_model_overrides_by_their_flag():
    with pytest.raises(ConfigError) as info:
        pretrain_cli.parse(["--max-grad-norm", "0", "--weight-decay", "-5", "--seed", "-1"])
    assert [line.split(" must")[0] for line in str(info.value).splitlines()] == \
        ["--weight-decay", "--max-grad-norm", "--seed"]
    with pytest.raises(ConfigError, match=r"^--model.is_decoder must be true or false \(got 'false', a str\)"):
        pretrain_cli.parse(["--model.is_decoder", '"false"'])
    with pytest.raises(ConfigError, match=r"^model_overrides\['hidden_dropout_prob'\] must be in \[0, 1\) \(got 2\)"):
        recipe("tiny", model_overrides={"hidden_dropout_prob": 2})
    with pytest.raises(ConfigError, match=r"^--mfu must be in \(0, 1\] \(got 0.0\)"):
        pretrain_cli.parse(["--plan", "--mfu", "0"])


def test_python_refuses_values_of_the_wrong_type():
    with pytest.raises(ConfigError, match=r"^max_steps must be a positive integer \(got 1000.0, a float\)"):
        recipe("tiny", max_steps=1e3)
    with pytest.raises(ConfigError, match=r"^nsp must be true or false \(got 'no', a str\)"):
        recipe("tiny", nsp="no")
    with pytest.raises(ConfigError, match=r"^adam_betas must be 2 values, each in \[0, 1\) \(got \(0.9, 1.0\)\)"):
        recipe("tiny", adam_betas=(0.9, 1.0))
    with pytest.raises(ConfigError, match=r"^epochs must be a positive integer \(got '3', a str\)"):
        FinetuneConfig(epochs="3")


FINETUNE_REFUSALS = [
    ("--max-grad-norm", "-1", r"--max-grad-norm must be > 0 \(got -1.0\): it is the clipping threshold"),
    ("--weight-decay", "-5", r"--weight-decay must be >= 0 \(got -5.0\)"),
    ("--max-answer-length", "0", r"--max-answer-length must be a positive integer \(got 0\): it is the most tokens "
                                 r"of a predicted answer; Google uses 30"),
    ("--max-query-length", "-3", r"--max-query-length must be a positive integer \(got -3\): it is the most tokens "
                                 r"of a question that are kept; Google uses 64"),
    ("--seed", "-1", r"--seed must be an integer in \[0, 2\*\*32\) \(got -1\)"),
    ("--warmup-proportion", "1", r"--warmup-proportion must be in \[0, 1\) \(got 1.0\)"),
    ("--doc-stride", "0", r"--doc-stride must be a positive integer \(got 0\)"),
    ("--seeds", "0", r"--seeds must be a positive integer \(got 0\)"),
]


@pytest.mark.parametrize("flag, value, message", FINETUNE_REFUSALS, ids=[f"{f} {v}" for f, v, _ in FINETUNE_REFUSALS])
def test_fine_tuning_refuses_a_bad_value_on_the_command_line_and_in_python(flag, value, message, no_run, tmp_path):
    with pytest.raises(SystemExit, match="^error: " + message):
        finetune_cli.main(["--task", "sentiment", "--model", "course", "--out-dir", str(tmp_path / "run"), flag, value])
    assert not (tmp_path / "run").exists()
    field = flag[2:].replace("-", "_")
    if field in FINETUNE_RULES:
        with pytest.raises(ConfigError, match="^" + message.replace(flag, field, 1).split(r" \(got")[0]):
            FinetuneConfig(**{field: json.loads(value)})


def test_a_config_json_value_of_the_wrong_type_names_the_file_the_key_the_value_and_the_type(tmp_path):
    path = tmp_path / "config.json"
    for change, message in [
        ({"is_decoder": "false"}, r"is_decoder must be true or false \(got 'false', a str\)"),
        ({"num_hidden_layers": "12"}, r"num_hidden_layers must be a positive integer \(got '12', a str\)"),
        ({"num_hidden_layers": 12.5}, r"num_hidden_layers must be a positive integer \(got 12.5, a float\)"),
        ({"hidden_dropout_prob": "0.1"}, r"hidden_dropout_prob must be in \[0, 1\) \(got '0.1', a str\)"),
        ({"layer_norm_eps": 0}, r"layer_norm_eps must be > 0 \(got 0\)"),
        ({"pad_token_id": -1}, r"pad_token_id must be a non-negative integer \(got -1\)"),
    ]:
        path.write_text(json.dumps({**BertConfig().to_dict(), **change}))
        with pytest.raises(ConfigError, match=f"^{path}: {message}"):
            BertConfig.from_json_file(path)
        with pytest.raises(ConfigError, match=f"^{message}"):  # the same rule for a config made in Python
            BertConfig(**{**BertConfig().to_dict(), **change})
    path.write_text(json.dumps({**BertConfig().to_dict(), "is_decoder": False, "hidden_dropout_prob": 0}))
    assert BertConfig.from_json_file(path).is_decoder is False  # an integer is a number


def test_the_config_flag_reads_the_same_with_or_without_equals():
    for name in ("mini", "course"):
        assert pretrain_cli.parse([f"--config={name}"]) == pretrain_cli.parse(["--config", name])
        assert pretrain_cli.parse([f"--config={name}"])[0] == recipe(name)
    for argv in (["--config=nonsense"], ["--config", "nonsense"]):
        with pytest.raises(ConfigError, match=r"^unknown config 'nonsense'; the presets are tiny, mini, base, large, "
                                              r"course, course-128"):
            pretrain_cli.parse(argv)
    with pytest.raises(ConfigError, match=r"unknown config 'mnii' \(did you mean 'mini'\?\)"):
        pretrain_cli.parse(["--config=mnii"])


@pytest.mark.parametrize("seeds", ["0", "-1"])
def test_the_ablations_refuse_fewer_than_one_seed(seeds, no_run, tmp_path):
    with pytest.raises(SystemExit, match=rf"^error: --seeds must be a positive integer \(got {seeds}\): it is the "
                                         r"number of seeds"):
        ablations_cli.main(["5", "--seeds", seeds, "--status", "--results", str(tmp_path)])


def test_the_ablations_take_one_seed(no_run, tmp_path, capsys):
    ablations_cli.main(["5", "--seeds", "1", "--budget", "ci", "--status", "--results", str(tmp_path)])
    assert "0 of 0" not in capsys.readouterr().out


def help_text(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse's line breaks, undone


def test_pretraining_help_shows_the_chosen_presets_values_and_each_rule(capsys):
    for argv in (["--config", "course"], ["--config=course"]):
        text = help_text(pretrain_cli.main, argv, capsys)
        assert "--config CONFIG a preset: tiny, mini" in text and "(default: course)" in text
        assert "--max-steps MAX_STEPS a positive integer: the number of optimizer steps; BERT uses 1,000,000 " \
               "(default: 11000)" in text
        assert "--max-grad-norm MAX_GRAD_NORM > 0: the clipping threshold on the gradients' global norm; BERT " \
               "uses 1.0 (default: 1.0)" in text
        assert "--no-nsp true or false (default: False)" in text
        assert "--model.hidden_dropout_prob MODEL.HIDDEN_DROPOUT_PROB override hidden_dropout_prob; the preset's " \
               "model has 0.0" in text


def test_fine_tuning_help_shows_every_default_and_rule(capsys):
    text = help_text(finetune_cli.main, [], capsys)
    assert "--lr LR > 0: the peak learning rate; A.3 uses 5e-5, 3e-5 or 2e-5 (default: 5e-05)" in text
    assert "--max-answer-length MAX_ANSWER_LENGTH a positive integer" in text and "(default: 30)" in text
    assert "--ignore-mismatched-heads, --no-ignore-mismatched-heads true or false: the switch that gives a fresh " \
           "head to a checkpoint whose classifier has another label count (transformers' ignore_mismatched_sizes) " \
           "(default: False)" in text


def test_the_ablations_help_says_its_whole_description(capsys):
    text = help_text(ablations_cli.main, ["5"], capsys)
    assert ("Pre-trains the variants of the paper's ablation tables (5, 6, 8; Table 7 uses a real BERT) on the "
            "course corpus under one budget and seed set, fine-tunes each on the course's tasks, and writes "
            "results/ablations/table-N.json cell by cell. Run it again to continue a run that was stopped.") in text


@pytest.fixture
def three_label_checkpoint(tmp_path):
    """The course encoder with a classifier fine-tuned for 3 labels, as another task leaves it."""
    course = model_folder("course")
    folder = tmp_path / "three-labels"
    BertForSequenceClassification.from_pretrained(course, num_labels=3).save_pretrained(folder)
    Tokenizer.from_pretrained(course).save(folder)
    return folder


def test_a_checkpoint_for_another_label_count_gets_a_fresh_head_on_request(three_label_checkpoint, data_dir,  # noqa: F811
                                                                           tmp_path):
    base = ["--task", "sentiment", "--model", str(three_label_checkpoint), "--data-dir", str(data_dir),
            "--epochs", "1", "--batch-size", "4", "--max-seq-length", "16", "--no-progress"]
    with pytest.raises(SystemExit, match=r"^error: the checkpoint's classifier was trained for num_labels=3, but the "
                                         r"model has num_labels=2\..*; on the command line, add "
                                         r"--ignore-mismatched-heads$"):
        finetune_cli.main([*base, "--out-dir", str(tmp_path / "refused")])
    finetune_cli.main([*base, "--out-dir", str(tmp_path / "fresh"), "--ignore-mismatched-heads"])
    saved = BertForSequenceClassification.from_pretrained(tmp_path / "fresh" / "run" / "seed-0" / "model")
    assert saved.classifier.weight.shape[0] == 2 and saved.config.id2label == {0: "rotten", 1: "fresh"}


def test_python_fine_tuning_takes_the_same_switch(three_label_checkpoint):
    from minibert.finetune.loop import build_model
    from minibert.tasks import get_task

    with pytest.raises(CheckpointError, match="trained for num_labels=3"):
        build_model(get_task("sentiment"), three_label_checkpoint, "pretrained")
    model = build_model(get_task("sentiment"), three_label_checkpoint, "pretrained", ignore_mismatched_heads=True)
    assert model.classifier.weight.shape[0] == 2
    assert FinetuneConfig(ignore_mismatched_heads=True).ignore_mismatched_heads
