r"""How the robustness experiment perturbs one trained model: the substrate of each
non-ideality alone (the noise and disorder schedules from the model's own drives), the
softmax analogues, and the measurement of those numerical choices against finer ones."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from . import _models, _sweep, _theory
from ._sweep import substrate


SOFTMAX = {
    "noise": {
        "run": False,
        "analogue": (
            "none: softmax has no state that settles; noise on its scores would be a "
            "different perturbation, which the substrate does not model"
        ),
    },
    "coupling_mismatch": {
        "run": True,
        "analogue": (
            "the unnormalised weights exp(s_ij)(1 + eps xi_ij), xi drawn as the "
            "oscillator's (_models.PerturbedSoftmax); one device per draw"
        ),
    },
    "frequency_disorder": {"run": False, "analogue": "none: softmax has no dynamics"},
    "settle_time": {
        "run": False,
        "analogue": "none: softmax has no dynamics (one exact step)",
    },
    "readout_bits": {
        "run": True,
        "analogue": (
            "the query's direction read with the same b-bit quantiser, its length kept "
            "(_models.PerturbedSoftmax)"
        ),
    },
}
"""What each non-ideality means for the softmax model, and whether it is run (mismatch
and bits, through [`PerturbedSoftmax`][syncattn.experiments.robustness._models.PerturbedSoftmax];
the other three have no softmax analogue)."""


def applies(model: str):
    return (
        (lambda kind: True)
        if model == "oscillator"
        else (lambda kind: SOFTMAX[kind]["run"])
    )


def _schedule(config, h, sigma: float, t1: float) -> dict:
    sch = _theory.noise_schedule(
        h,
        float(sigma),
        horizon=config.noise_horizon,
        quantile=config.noise_quantile,
        step=config.noise_drift_step,
        noise_step=config.noise_diffusion_step,
        t_max=t1,
    )
    snapped = _theory.snap_schedule(sch)
    return {
        **snapped,
        "settle_time": min(snapped["settle_time"], t1),
        "steps": math.ceil(min(snapped["settle_time"], t1) / snapped["dt"] - 1e-9),
    }


def _disorder_horizon(config, h, s: float, t1: float) -> dict:
    if config.disorder_horizon is None:
        return {"settle_time": t1}
    sch = _theory.disorder_schedule(
        h,
        float(s),
        horizon=config.disorder_horizon,
        quantile=config.disorder_quantile,
        t_max=t1,
    )
    snapped = _theory.snap_schedule(sch)
    return {**snapped, "settle_time": min(snapped["settle_time"], t1)}


def perturber(config, kind_of_model: str, model, h, task: str = "agreement"):
    """``perturb(model, kind, strength, key) -> (perturbed, settings)`` of one trained model.

    Oscillator: [`syncattn.nn.with_substrate`][] with the non-ideality alone; noise on
    the schedule of its drives (`_theory.noise_schedule`); disorder at
    ``disorder_rtol``/``disorder_atol`` to the layer's `ode_t1` (the classifier), or at
    ``lm_disorder_rtol``/``lm_disorder_atol`` to the horizon of its locking rates (the
    LMs; `_theory.disorder_schedule`), times `horizon_factor`. Softmax: the analogue of mismatch or bits
    ([`perturb_softmax`][syncattn.experiments.robustness._models.perturb_softmax]).
    """
    from ... import nn

    if kind_of_model == "softmax":

        def perturb(m, kind, s, key):
            kw = (
                {"mismatch": float(s)}
                if kind == "coupling_mismatch"
                else {"bits": int(s)}
            )
            perturbed = _models.perturb_softmax(m, key, **kw)
            return perturbed, {"analogue": SOFTMAX[kind]["analogue"]}

        return perturb
    t1 = _models.ode_t1(model)
    horizons: dict = {}  # per strength: one horizon for every draw
    lm = task == "lm"
    rtol, atol = (
        (config.lm_disorder_rtol, config.lm_disorder_atol)
        if lm
        else (config.disorder_rtol, config.disorder_atol)
    )

    def perturb(m, kind, s, key, *, horizon_factor: float = 1.0):
        settings = {}
        if kind == "noise":
            settings = _schedule(config, h, s, t1)
            sub = nn.Substrate(
                noise=float(s), settle_time=settings["settle_time"], dt=settings["dt"]
            )
        elif kind == "frequency_disorder":
            if s not in horizons:
                horizons[s] = (
                    _disorder_horizon(config, h, s, t1) if lm else {"settle_time": t1}
                )
            settings = dict(horizons[s])
            settings["settle_time"] = horizon_factor * settings["settle_time"]
            sub = nn.Substrate(
                frequency_disorder=float(s), settle_time=settings["settle_time"]
            )
        else:
            sub = substrate(kind, s)
        out = nn.with_substrate(m, sub)
        if kind == "frequency_disorder" and rtol is not None:
            out = _models.with_tolerances(out, rtol, atol)
            settings.update(rtol=rtol, atol=atol)
        return out, settings

    return perturb


def measure_checks(config, path: Path, model, scorer, h, perturb) -> dict:
    """The sweep's numerical choices measured against finer ones on the first batch, same keys.

    noise at ``check_noise``: the schedule $(T_\\sigma, \\Delta t_\\sigma)$ against
    $(2T_\\sigma, \\Delta t_\\sigma/2)$; disorder at ``check_disorder``: for the
    classifier ``disorder_rtol`` against the layer's own tolerances (both to $T = 30$), for
    the LMs the horizon $T_\\Omega$ against $2T_\\Omega$ (same tolerances, on the first
    ``check_rows`` rows). Written to `path` (resumable).
    """
    import jax

    from ... import nn

    out = _sweep._load(path)
    first = dataclasses.replace(scorer, data=scorer.data[:1])
    few = first  # the disorder check's data (the LMs: the first check_rows rows)
    if scorer.task == "lm" and config.check_rows is not None:
        few = dataclasses.replace(
            first, data=[b[: config.check_rows] for b in first.data]
        )
    key = jax.random.key(config.substrate_seed)
    if (
        config.check_noise is not None
        and "noise" in config.nonidealities
        and "noise" not in out
    ):
        s = float(config.check_noise)
        m, sch = perturb(model, "noise", s, key)
        finer = nn.with_substrate(
            model,
            nn.Substrate(noise=s, settle_time=2 * sch["settle_time"], dt=sch["dt"] / 2),
        )
        out["noise"] = {
            "sigma": s,
            "schedule": sch,
            "value": first(m, key),
            "finer": {
                "settle_time": 2 * sch["settle_time"],
                "dt": sch["dt"] / 2,
                "value": first(finer, key),
            },
        }
        _sweep._save(path, out)
    if (
        config.check_disorder is not None
        and "frequency_disorder" in config.nonidealities
        and "frequency_disorder" not in out
    ):
        s = float(config.check_disorder)
        m, st = perturb(model, "frequency_disorder", s, key)
        entry = {"strength": s, "value": few(m, key), **st}
        # lm: the horizon against twice it (T = 30: the cost it avoids)
        if scorer.task == "lm":
            longer, lt = perturb(
                model, "frequency_disorder", s, key, horizon_factor=2.0
            )
            entry["longer"] = {
                "settle_time": lt["settle_time"],
                "value": few(longer, key),
            }
        elif config.disorder_rtol is not None:  # the tolerances against the layer's
            # the layer's own horizon, T = ode_t1
            own = nn.with_substrate(model, substrate("frequency_disorder", s))
            is_layer = lambda a: isinstance(a, nn.OscillatorAttention)
            leaves = jax.tree_util.tree_leaves(own, is_leaf=is_layer)
            layer = next(a for a in leaves if is_layer(a))
            entry["layer_tolerances"] = {
                "settle_time": layer.ode_t1,
                "rtol": layer.ode_rtol,
                "atol": layer.ode_atol,
                "value": first(own, key),
            }
        out["frequency_disorder"] = entry
        _sweep._save(path, out)
    rows = (
        f" (the disorder check: its first {config.check_rows} rows)"
        if scorer.task == "lm" and config.check_rows
        else ""
    )
    out["data"] = "the first validation batch of the sweep" + rows
    return out
