"""Train the stand-in model on the toy corpus (run as a subprocess by the tests).

    python -m tests.training._train_script OUT [--devices N] [--steps S] [--compare]

``--compare``: train twice into OUT/one and OUT/all, on the first device and on
all devices, and print both loss curves as JSON.
"""

import argparse
import json
import sys

import jax
import numpy as np

from syncattn import training as T
from tests.training._standin import DATA, TinyLM, toy_corpus


def config(steps):
    return T.TrainConfig(
        steps=steps, batch_size=8, seq_len=16, lr=1e-2, warmup_steps=5,
        eval_every=10, ckpt_every=10, log_every=1, eval_batches=2, keep=2,
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--compare", action="store_true")
    a = p.parse_args()
    corpus = toy_corpus()
    model = TinyLM(corpus.vocab_size, key=jax.random.PRNGKey(0), dropout=0.1)
    if not a.compare:
        T.fit(model, config(a.steps), corpus, a.out, progress=False, **DATA)
        return 0
    curves = {}
    for name, devices in (("one", jax.devices()[:1]), ("all", jax.devices())):
        T.fit(model, config(a.steps), corpus, f"{a.out}/{name}", devices=devices,
              progress=False, **DATA)
        log = T.read_log(f"{a.out}/{name}/log.jsonl")
        curves[name] = [r["loss"] for r in log if r["kind"] == "train"]
        curves[name + "_eval"] = [r["loss"] for r in log if r["kind"] == "eval"]
    curves["n_devices"] = len(jax.devices())
    try:
        T.shard_batch(np.zeros((3, 5), np.int32), T.data_mesh())
        curves["uneven_batch_error"] = ""
    except ValueError as e:
        curves["uneven_batch_error"] = str(e)
    print(json.dumps(curves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
