"""Studies of the Kuramoto family (issue 39 §6): inertia_hysteresis, explosive,
delay_branches, daido_clusters.

Each smoke run compiles and integrates for 10-30 s on the shared 2-core machine, so the
end-to-end runs are slow tests (CI's slow line runs them); the config checks and the
registration are cheap and run by default. Every agreement check is paired with a
deliberately wrong theory that the same criterion rejects.
"""

import csv
import json

import numpy as np
import pytest

from syncattn import cli, kuramoto, studies
from syncattn.studies import (
    daido_clusters,
    delay_branches,
    explosive,
    inertia_hysteresis,
)


MODULES = {
    "inertia_hysteresis": inertia_hysteresis,
    "explosive": explosive,
    "delay_branches": delay_branches,
    "daido_clusters": daido_clusters,
}


@pytest.mark.parametrize("name", list(MODULES))
def test_registered(name):
    assert studies.get(name) is MODULES[name]


def test_configs_refuse_bad_values():
    with pytest.raises(ValueError, match="couplings"):
        inertia_hysteresis.Config(couplings=(2.0, 1.0))
    with pytest.raises(ValueError, match="masses"):
        inertia_hysteresis.Config(masses=(-1.0,))
    with pytest.raises(ValueError, match="couplings"):
        explosive.Config(couplings=(1.0,))
    with pytest.raises(ValueError, match="starts"):
        delay_branches.Config(starts=(0, 0, 0))
    with pytest.raises(ValueError, match="split"):
        daido_clusters.Config(splits=(1.5,))


def _files(out, names):
    for name in names:
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, name
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cfg = json.loads((out / "config.json").read_text())
    assert "seed" in cfg["config"]
    return cfg


@pytest.mark.slow
def test_inertia_hysteresis_smoke_through_the_cli(tmp_path, capsys):
    out = tmp_path / "ih"
    assert cli.main(["study", "inertia_hysteresis", "--smoke", "--out", str(out), "--quiet"]) == 0
    _files(out, ("inertia_hysteresis.png", "branches.csv", "results.json", "config.json"))
    res = json.loads((out / "results.json").read_text())["masses"]
    # m = 0: the two branches coincide up to finite-size noise (N = 200) and follow Kuramoto
    assert res["0"]["max_gap"] < 0.12 and res["0"]["max_error_vs_theory"] < 0.12
    # m = 2: a loop; the down branch stays locked where the up branch is incoherent
    assert res["2"]["max_gap"] > 0.4 and res["2"]["loop_area"] > 0.5
    assert res["2"]["K_down"] < res["2"]["K_up"]
    # the criterion rejects a wrong claim: "m = 2 has no loop" (its gap > the m = 0 bound)
    assert not res["2"]["max_gap"] < 0.12
    rows = list(csv.DictReader(open(out / "branches.csv")))
    assert len(rows) == 2 * len(inertia_hysteresis.Config.smoke().couplings)


@pytest.mark.slow
def test_explosive_smoke_jumps_inside_the_theory_window(tmp_path):
    cfg = explosive.Config.smoke()
    res = explosive.run(cfg, tmp_path)
    _files(tmp_path, ("explosive.png", "branches.csv", "results.json", "config.json"))
    Kf, Kb = res["K_forward"], res["K_backward"]
    assert Kf == pytest.approx(2 * cfg.gamma) and Kb == pytest.approx(
        np.sqrt(8 * cfg.gamma * cfg.triadic) - cfg.triadic)
    # going up the jump comes after K_f, coming down the fall after K_b (grid resolution)
    assert res["K_up"] >= Kf and res["K_down"] >= Kb and res["K_down"] < res["K_up"]
    # settled synchronised points sit on the stable Ott-Antonsen branch (N = 300: 1e-2 seen)
    assert res["max_error_synchronised"] < 0.05
    # a wrong theory (the unstable branch) is rejected by the same criterion
    sim = np.r_[res["r_up"], res["r_down"]]
    steady = np.r_[res["r_up_std"], res["r_down_std"]] < cfg.steady_std
    wrong = np.r_[res["r_unstable"], res["r_unstable"]]
    ok = (sim > 0.5) & np.isfinite(wrong) & steady
    assert ok.any() and np.max(np.abs(sim - wrong)[ok]) > 0.05


@pytest.mark.slow
def test_delay_branches_smoke_lands_on_stable_roots(tmp_path):
    res = delay_branches.run(delay_branches.Config.smoke(), tmp_path)
    _files(tmp_path, ("delay_branches.png", "runs.csv", "branches.csv", "results.json",
                      "config.json"))
    assert res["locked_runs"] == res["total_runs"]
    assert res["max_error"] < 1e-3 and res["on_stable"] == 1.0
    assert res["branches_hit"] >= 3  # tau = 5 holds two stable branches, both reached
    # wrong theory: Omega = omega + K sin(Omega tau) (sign flipped) misses the runs
    runs = res["runs"]
    for tau, Om in zip(runs["tau"], runs["Omega"], strict=True):
        if tau > 0:
            roots, _ = kuramoto.delay_locked_frequencies(1.0, -1.5, tau)
            assert np.min(np.abs(roots - Om)) > 1e-2


@pytest.mark.slow
def test_daido_clusters_smoke_exponents_match(tmp_path):
    res = daido_clusters.run(daido_clusters.Config.smoke(), tmp_path)
    _files(tmp_path, ("daido_clusters.png", "trials.csv", "exponents.csv", "results.json",
                      "config.json"))
    assert res["in_phase_exponent"] > 0  # a_1 + 2 a_2 < 0: in-phase unstable
    lo, hi = res["stable_splits"]
    assert lo == pytest.approx(0.1, abs=0.01) and hi == pytest.approx(0.9, abs=0.01)
    assert res["min_abs_Z2"] > 0.999 and res["max_gap_error"] < 1e-4
    assert all(lo < p < hi for p in res["trials"]["split"])
    assert res["max_relative_exponent_error"] < 1e-2
    # wrong theory: lambda_A and lambda_B swapped, rejected at p = 0.25
    e = res["exponents"]
    i = e["p"].index(0.25)
    assert abs(e["measured_A"][i] - e["lambda_B"][i]) > 0.5
