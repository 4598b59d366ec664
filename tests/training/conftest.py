"""Fixtures of the run-folder tests: a small text corpus and the stand-in model."""

import pytest

from syncattn import cli, models
from tests.training._standin import TinyLM


@pytest.fixture
def small_text(tmp_path):
    """A UTF-8 file with some structure, loaded as a byte corpus via --data text."""
    lines = [f"line {i % 7} says {'abc'[i % 3] * (i % 5 + 1)}.\n" for i in range(600)]
    path = tmp_path / "corpus.txt"
    path.write_text("".join(lines))
    return path


@pytest.fixture
def tiny_models(monkeypatch):
    """models.build gives the stand-in LM, to keep these tests fast (test_models_smoke
    runs the real models)."""
    monkeypatch.setattr(models, "build", lambda cfg, *, key: TinyLM(cfg.vocab_size, key=key))


def train_cli(out, path, *extra):
    """``syncattn train`` of the tiny softmax preset on the text file `path` into `out`."""
    return cli.main([
        "train", "--model", "softmax", "--config", "tiny", "--data", "text",
        "--data-path", str(path), "--out", str(out), "--quiet", *extra,
    ])
