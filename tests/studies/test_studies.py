"""Studies at small size: theory against simulation, with stated tolerances.

Every agreement test also feeds a deliberately wrong theory through the same
criterion and asserts that it is rejected, so the criterion can fail.
Each study runs once per module (fixtures); the failure study runs through the
command line (``syncattn study failure --smoke``).
"""

import csv
import json
import math
import re

import jax.numpy as jnp
import numpy as np
import pytest
from scipy import optimize, special, stats

from syncattn import cli, kuramoto, lohe, stats as stats_mod, studies
from syncattn.studies import (
    _common,
    convergence,
    failure,
    kuramoto_transition as kt,
    lohe_sync,
)

from ..helpers import approx, assert_close


def _read_csv(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([_num(r[k]) for r in rows]) for k in rows[0]}


def _num(s):
    try:
        return float(s)
    except ValueError:
        return s


def _assert_outputs(out, names, study):
    for name in names:
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, name
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["study"] == study and "seed" in cfg["config"]
    return cfg


# --------------------------------------------------------------------------- _common


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (17, 1000), (250, 600)])
def test_intervals_match_scipy(k, n):
    ref = stats.binomtest(k, n)
    for method, fn in (("exact", _common.clopper_pearson), ("wilson", _common.wilson)):
        lo, hi = fn(k, n, 0.95)
        want = ref.proportion_ci(0.95, method=method)
        assert_close([lo, hi], [want.low, want.high])


def test_clopper_pearson_coverage_monte_carlo():
    # exact intervals are conservative: coverage >= nominal for every p
    rng = np.random.default_rng(0)
    for p in (0.02, 0.3):
        k = rng.binomial(60, p, size=4000)
        lo, hi = _common.clopper_pearson(k, 60, 0.9)
        assert np.mean((lo <= p) & (p <= hi)) >= 0.9 - 3 * math.sqrt(0.09 / 4000)


def test_intervals_reject_bad_input():
    for args in ((5, 3), (-1, 3), (0, 0)):
        with pytest.raises(ValueError, match="0 <= k <= n"):
            _common.clopper_pearson(*args)
    with pytest.raises(ValueError, match="confidence"):
        _common.wilson(1, 3, 1.0)


def test_fit_exponential_rate_is_the_stats_function():
    """The studies' rate fit is syncattn.stats.exponential_rate_fit (tested there)."""
    assert _common.fit_exponential_rate is stats_mod.exponential_rate_fit


def test_outdir_writers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = _common.make_outdir("demo"), _common.make_outdir("demo")
    assert re.fullmatch(r"syncattn-study-demo-\d{8}-\d{6}(-\d+)?", a.name) and a != b
    assert a.is_dir() and b.is_dir()
    with pytest.raises(ValueError, match="equal lengths"):
        _common.write_csv(tmp_path / "x.csv", {"a": [1, 2], "b": [1]})
    _common.write_json(
        tmp_path / "x.json", {"x": np.float64("nan"), "y": np.arange(2), "z": (1.5,)}
    )
    assert json.loads((tmp_path / "x.json").read_text()) == {
        "x": None,
        "y": [0, 1],
        "z": [1.5],
    }


# --------------------------------------------------------------------------- command line


def test_cli_usage_errors(capsys):
    assert studies.main(["--help"]) == 0
    assert "--full" in capsys.readouterr().out
    assert studies.main(["nonsense"]) == 2
    assert studies.main(["lohe", "--full", "--size", "small"]) == 2
    assert "--full contradicts --size small" in capsys.readouterr().err
    assert studies.main(["lohe", "--smoke", "--full"]) == 2
    capsys.readouterr()
    # the experiments' and train's messages: unknown key with the closest, twice, type
    assert studies.main(["lohe", "--smoke", "no_such_field=1"]) == 2
    assert "unknown config key 'no_such_field'; valid keys: seed, n, dims," in (
        capsys.readouterr().err)
    assert studies.main(["lohe", "--smoke", "dim=2,3"]) == 2
    assert "(did you mean 'dims'?)" in capsys.readouterr().err
    assert studies.main(["lohe", "--smoke", "n=3", "n=4"]) == 2
    assert "n is given twice ('n=3' and 'n=4')" in capsys.readouterr().err
    assert studies.main(["lohe", "--smoke", "n=many"]) == 2
    assert "n must be an int; got 'many'." in capsys.readouterr().err
    assert studies.main(["lohe", "--smoke", "--seed", "2", "seed=3"]) == 2
    assert "seed is given twice" in capsys.readouterr().err
    # --set stays as a deprecated alias, with the same parser
    assert studies.main(["lohe", "--size", "small", "--set", "no_such_field=1"]) == 2
    err = capsys.readouterr().err
    assert "--set is deprecated" in err and "--size small is deprecated" in err
    assert "unknown config key 'no_such_field'" in err
    assert cli.main(["study", "--help"]) == 0


def test_apply_overrides():
    with pytest.warns(DeprecationWarning, match="smoke"):
        small = failure.Config.small()
    assert small == failure.Config.smoke()
    cfg = studies._apply_overrides(small, ["eps=0.5", "dims=(2, 3)"])
    assert cfg.eps == 0.5 and cfg.dims == (2, 3)
    assert studies._apply_overrides(small, ["dims=2-4"]).dims == (2, 3, 4)
    with pytest.raises(ValueError, match="KEY=VALUE"):
        studies._apply_overrides(cfg, ["eps"])


def test_configs_validate():
    for cls, bad in (
        (failure.Config, dict(dims=(1,))),
        (convergence.Config, dict(delta=0.0)),
        (kt.Config, dict(frequencies="sorted")),
        (lohe_sync.Config, dict(dims=())),
    ):
        with pytest.raises(ValueError):
            cls(**bad)
        for size in ("smoke", "default", "full"):
            getattr(cls, size)()


# --------------------------------------------------------------------------- failure


@pytest.fixture(scope="module")
def failure_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("failure")
    rc = studies.main(["failure", "--smoke", "--out", str(out), "--seed", "1", "--quiet"])
    assert rc == 0
    return out


def test_a_finished_study_folder_is_reused(failure_out, capsys):
    before = {p.name: p.stat().st_mtime_ns for p in failure_out.iterdir()}
    cfg = json.loads((failure_out / "config.json").read_text())
    assert cfg["revision"] and cfg["study"] == "failure"
    # the same command: nothing is recomputed or rewritten
    assert studies.main(["failure", "--smoke", "--out", str(failure_out), "--seed", "1",
                         "--quiet"]) == 0
    assert "already holds this run" in capsys.readouterr().err
    assert {p.name: p.stat().st_mtime_ns for p in failure_out.iterdir()} == before
    # another config into the same folder is refused, naming the field
    assert studies.main(["failure", "--smoke", "--out", str(failure_out), "--seed", "2",
                         "--quiet"]) == 2
    assert "seed: 1 in the folder, 2 now" in capsys.readouterr().err
    assert studies.main(["lohe", "--smoke", "--out", str(failure_out)]) == 2
    assert "holds a run of study 'failure'" in capsys.readouterr().err


def _binom_p(k, n, p):
    return stats.binomtest(int(k), int(n), float(p)).pvalue


def test_failure_outputs(failure_out):
    cfg = _assert_outputs(
        failure_out,
        [
            "failure.png",
            "antipodal.csv",
            "degenerate.csv",
            "scale_free.csv",
            "threshold.csv",
            "results.json",
            "config.json",
        ],
        "failure",
    )
    assert cfg["config"]["seed"] == 1 and cfg["config"]["dims"] == [2, 5]


def test_failure_antipodal_matches_theory(failure_out):
    """Tolerance: each count inside the two-sided 99.9% binomial acceptance region of the theory."""
    a = _read_csv(failure_out / "antipodal.csv")
    # the theory column is the cap formula 1/2 I_{sin^2 alpha}((d-1)/2, 1/2) (scipy, independent)
    want = 0.5 * special.betainc((a["d"] - 1) / 2, 0.5, np.sin(a["alpha"]) ** 2)
    assert_close(a["p_theory"], want)
    pv = [
        _binom_p(k, n, p)
        for k, n, p in zip(a["count"], a["n"], a["p_theory"], strict=True)
    ]
    assert min(pv) > 1e-3
    # a wrong theory (the cap on S^d instead of S^{d-1}) is rejected
    wrong = 0.5 * special.betainc(a["d"] / 2, 0.5, np.sin(a["alpha"]) ** 2)
    assert (
        min(
            _binom_p(k, n, p) for k, n, p in zip(a["count"], a["n"], wrong, strict=True)
        )
        < 1e-6
    )


def test_failure_degenerate_matches_exact(failure_out):
    """The Monte Carlo counts (lohe.degenerate_probability) within 99.9% of the exact value;
    a threshold 15% off is rejected."""
    g = _read_csv(failure_out / "degenerate.csv")
    assert np.all(g["count"] > 0)
    n = g["n"]
    assert min(_binom_p(*a) for a in zip(g["count"], n, g["p_theory"], strict=True)) > 1e-3
    # the standard error reported beside each count is the binomial one
    assert_close(g["se_mc"], np.sqrt(g["p_mc"] * (1 - g["p_mc"]) / n))
    cfg = failure.Config.smoke()
    wrong = [
        failure.degenerate_probability_exact(int(d), cfg.n_anchors, 1.15 * cfg.eps)
        for d in g["d"]
    ]
    assert (
        min(_binom_p(k, ni, p) for k, ni, p in zip(g["count"], n, wrong, strict=True))
        < 1e-6
    )


def test_failure_rates(failure_out):
    """Fitted exponential rates: Monte Carlo within 0.05 of the theory's (per unit of d)."""
    res = json.loads((failure_out / "results.json").read_text())
    a, g = res["antipodal"], res["degenerate"]
    np.testing.assert_allclose(a["rate_mc"], a["rate_theory_mc_points"], atol=0.05)
    assert abs(g["rate_mc"] - g["rate_theory_mc_points"]) < 0.05
    # the rate decreases with the cap angle, and exceeds its d -> infinity limit -log sin(alpha)
    assert np.all(np.diff(a["rate_theory"]) < 0)
    assert np.all(np.array(a["rate_theory"]) > np.array(a["rate_asymptotic"]))


def test_failure_scale_free_events(failure_out):
    """Hull counts (lohe.hull_contains_origin) inside the 99.9% region of Wendel's law;
    the relative event decays in d and stays below its proved bound; the absolute event
    stays above its plateau P(||w||_2 < eps)."""
    sf = _read_csv(failure_out / "scale_free.csv")
    res = json.loads((failure_out / "results.json").read_text())
    cfg = failure.Config.smoke()
    m = cfg.n_anchors
    # Wendel's law, independently: P(Bin(m-1, 1/2) >= d)
    assert_close(sf["hull_exact"], stats.binom.sf(sf["d"] - 1, m - 1, 0.5), scale=0.01)
    hulls = sf["hull_count"] >= 0
    assert hulls.sum() == len(res["scale_free"]["hull_dims"]) >= 1
    for k, p in zip(sf["hull_count"][hulls], sf["hull_exact"][hulls], strict=True):
        assert _binom_p(k, cfg.n_hull, p) > 1e-3
    assert np.all(np.diff(sf["p_relative"]) < 0)
    bound = np.interp(sf["d"], res["scale_free"]["d_curve"], res["scale_free"]["relative_bound"])
    se = np.sqrt(sf["p_relative"] * (1 - sf["p_relative"]) / sf["n"])
    assert np.all(sf["p_relative"] <= bound + 4 * se)
    lo, hi = res["degenerate"]["plateau"]
    assert 0 < lo <= hi < 1.1 * lo
    assert min(res["degenerate"]["p_theory"]) > hi


def test_failure_plateau_is_lohe_weight_norm_probability():
    """The study's plateau is lohe's (moved into the core; tested in tests/lohe/test_weight_norm.py)."""
    assert failure.weight_norm_probability is lohe.weight_norm_probability


def test_failure_threshold_regimes(failure_out):
    """Finite-time counts inside the 99.9% region of the exact law on both sides of the
    threshold; the same counts reject a threshold 15% too large."""
    th = _read_csv(failure_out / "threshold.csv")
    cfg = failure.Config.smoke()
    assert (
        min(
            _binom_p(k, n, p)
            for k, n, p in zip(th["count"], th["n"], th["p_theory"], strict=True)
        )
        > 1e-3
    )
    at = th["ratio"] == 1.0
    assert_close(th["p_theory"][at], 0.5, scale=0.1)
    for d in np.unique(th["d"]):
        sel = th["d"] == d
        r, p = th["ratio"][sel], th["p_theory"][sel]
        assert np.all(np.diff(p[np.argsort(r)]) < 0)
    wrong = [
        float(lohe.finite_time_failure_probability(1.0, T / 1.15, cfg.delta, int(d)))
        for T, d in zip(th["T"], th["d"], strict=True)
    ]
    assert (
        min(
            _binom_p(k, n, p)
            for k, n, p in zip(th["count"], th["n"], wrong, strict=True)
        )
        < 1e-6
    )


def test_degenerate_exact_is_lohes():
    """The study's exact value is the library's (checked against the m = 2 closed form
    in tests/lohe/test_failure.py), not a copy."""
    from syncattn import lohe

    assert failure.degenerate_probability_exact is lohe.degenerate_probability_exact


# --------------------------------------------------------------------------- convergence


@pytest.fixture(scope="module")
def conv(tmp_path_factory):
    out = tmp_path_factory.mktemp("convergence")
    return convergence.run(convergence.Config.smoke(), out), out


def test_convergence_outputs(conv):
    _assert_outputs(
        conv[1],
        ["convergence.png", "times.csv", "failure.csv", "results.json", "config.json"],
        "convergence",
    )


def test_convergence_times_match_closed_form(conv):
    """Tolerance: relative error of the event time <= 1e-6 (diffrax rtol 1e-10, Newton 1e-12)."""
    res = conv[0]
    assert res["max_rel_error"] < 1e-6
    assert res["classification_mismatches"] == 0
    timed = np.isfinite(res["t_measured"]) & (res["t_measured"] > 0)
    assert timed.sum() > 100
    # a drive misread by 1% moves every closed-form time by ~1%: rejected
    wrong = np.asarray(
        lohe.time_to_converge(
            jnp.asarray(res["phi0"]), 1.01 * jnp.asarray(res["norm_h"]), res["delta"]
        )
    )
    rel = np.abs(res["t_measured"][timed] - wrong[timed]) / wrong[timed]
    assert rel.max() > 1e-3


def test_convergence_failure_fraction_and_distribution(conv):
    """Tolerance: |z| < 4 (Poisson-binomial) for the fraction not converged by T, and
    Kolmogorov distance < 0.08 (the 1% critical value is 1.63/sqrt(600) = 0.067)."""
    res = conv[0]
    cfg = convergence.Config.smoke()
    for p in res["per_d"]:
        assert abs(p["z_score"]) < 4
        assert p["ks_distance"] < 0.08
    # wrong theory: a drive 30% weaker than it is
    zs, ks = [], []
    for p in res["per_d"]:
        sel = res["d"] == p["d"]
        nh = 0.7 * jnp.asarray(res["norm_h"][sel])
        q = np.asarray(
            lohe.finite_time_failure_probability(nh, cfg.horizon, cfg.delta, p["d"])
        )
        zs.append((p["not_converged"] - q.sum()) / math.sqrt(np.sum(q * (1 - q))))
        grid = res["grid"]
        cdf = 1 - np.asarray(
            lohe.finite_time_failure_probability(
                nh[:, None], jnp.asarray(grid)[None, :], cfg.delta, p["d"]
            )
        ).mean(0)
        ks.append(np.max(np.abs(p["cdf_empirical"] - cdf)))
    assert max(abs(z) for z in zs) > 4 and max(ks) > 0.08


def test_convergence_rate_flat_and_saturation_limit(conv):
    """E||h||^2 = E||w||_2^2 at every d (within 5 standard errors): the linear rate ||h|| does
    not grow with d; the saturation limit P(||w||_2 < log cot(delta/2)/T) lies below the
    measured fractions and inside its interval."""
    res = conv[0]
    cfg = convergence.Config.smoke()
    lim = res["limit"]
    assert lim["critical_norm"] == approx(
        math.log(1 / math.tan(cfg.delta / 2)) / cfg.horizon, scale=0.01
    )
    assert lim["ci_lo"] <= lim["p"] <= lim["ci_hi"]
    for p in res["per_d"]:
        nh2 = res["norm_h"][res["d"] == p["d"]] ** 2
        se = nh2.std() / math.sqrt(nh2.size)
        assert abs(nh2.mean() - lim["mean_norm_w_sq"]) < 5 * se
        assert p["mean_norm_h_sq"] == approx(nh2.mean(), scale=0.01)
        assert p["ci_hi"] > lim["p"]


# --------------------------------------------------------------------------- kuramoto


@pytest.fixture(scope="module")
def kur(tmp_path_factory):
    out = tmp_path_factory.mktemp("kuramoto")
    return kt.run(kt.Config.smoke(), out), out


def test_kuramoto_outputs(kur):
    _assert_outputs(
        kur[1],
        [
            "kuramoto.png",
            "transition.csv",
            "ott_antonsen.csv",
            "results.json",
            "config.json",
        ],
        "kuramoto",
    )


def test_self_consistency_solver_against_closed_forms():
    dens = kt.densities(kt.Config())
    # r solved by brentq on an integral from quad (epsrel 1e-10): r to about 1e-8, the
    # quadrature's accuracy, not rounding
    quad_atol = 1e-8
    for K in (1.01, 1.5, 3.0):  # Lorentzian gamma = 0.5: sqrt(1 - 2 gamma / K)
        assert kt.self_consistent_r(K, dens["lorentzian"]) == pytest.approx(
            math.sqrt(1 - 1 / K), abs=quad_atol
        )
    # uniform on [-1, 1]: with s = 1/(K r) <= 1, 1 = (K/2)(asin s + s sqrt(1 - s^2))
    Kc = 4 / math.pi
    for K in (1.3, 2.0, 4.0):
        s = optimize.brentq(
            lambda s: K / 2 * (math.asin(s) + s * math.sqrt(1 - s * s)) - 1, 1e-12, 1.0
        )
        assert kt.self_consistent_r(K, dens["uniform"]) == pytest.approx(
            1 / (K * s), abs=quad_atol
        )
    # r jumps to pi/4 at K_c (flat density): that limit, approached from 1e-9 above
    # K_c, to 1e-6 (a method band: the offset and the quadrature, not rounding)
    assert kt.self_consistent_r(Kc * (1 + 1e-9), dens["uniform"]) == pytest.approx(
        math.pi / 4, abs=1e-6
    )
    assert kt.self_consistent_r(0.99 * Kc, dens["uniform"]) == 0.0
    assert (
        kt.self_consistent_r(1.5, dens["gaussian"]) == 0.0
    )  # K_c = 2 sqrt(2 pi)/pi = 1.596


def test_kuramoto_transition_matches_theory(kur):
    """Tolerance (N = 2000): |r_sim - r_theory| <= 0.04 above K_c, r_sim <= 0.08 below."""
    res = kur[0]
    for name, p in res["distributions"].items():
        K, r, rt = np.array(p["K"]), np.array(p["r"]), np.array(p["r_theory"])
        above = K > 1.2 * p["K_c"]
        assert above.any() and (~above).any()
        assert np.max(np.abs(r - rt)[above]) <= 0.04, name
        assert np.max(r[~above]) <= 0.08, name
        # wrong theories: a 30% wider Lorentzian; the square-root law for the others
        if name == "lorentzian":
            wrong = np.asarray(kuramoto.lorentzian_order_parameter(K, 1.3 * 0.5))
        else:
            wrong = np.sqrt(np.clip(1 - p["K_c"] / K, 0, None))
        assert np.max(np.abs(r - wrong)[above]) > 0.04, name


def test_kuramoto_ott_antonsen(kur):
    """Tolerance: max_t |r_sim(t) - r_OA(t)| <= 0.05 (N = 2000); OA with 0.8 K is rejected."""
    oa = kur[0]["oa"]
    assert oa["max_abs_error"] <= 0.05
    wrong = np.asarray(
        kuramoto.ott_antonsen(
            oa["r0"], 0.8 * oa["K"], oa["gamma"], jnp.asarray(oa["t"])
        )
    )
    assert np.max(np.abs(oa["r_sim"] - wrong)) > 0.05


# --------------------------------------------------------------------------- lohe


@pytest.fixture(scope="module")
def loh(tmp_path_factory):
    out = tmp_path_factory.mktemp("lohe")
    cfg = lohe_sync.Config.smoke()
    return lohe_sync.run(cfg, out), out, cfg


def test_lohe_outputs(loh):
    _assert_outputs(
        loh[1],
        [
            "lohe.png",
            "order_parameter.csv",
            "d2_match.csv",
            "results.json",
            "config.json",
        ],
        "lohe",
    )


def test_lohe_d2_is_kuramoto(loh):
    """Tolerance: order parameters within 1e-7 and phases within 1e-6 (both solvers at rtol 1e-10);
    the mirrored map Omega_i = -omega_i J is rejected."""
    res, _, cfg = loh
    mt = res["match"]
    assert mt["max_order_deviation"] < 1e-7 and mt["max_phase_deviation"] < 1e-6
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    x0 = np.stack([np.cos(mt["theta0"]), np.sin(mt["theta0"])], -1)
    sol = lohe.simulate(
        jnp.asarray(x0),
        jnp.asarray(-mt["omega"][:, None, None] * J),
        cfg.match_coupling,
        cfg.match_t1,
        saveat=jnp.asarray(mt["t"]),
        rtol=cfg.match_rtol,
        atol=cfg.match_rtol * 1e-2,
    )
    assert np.max(np.abs(np.asarray(sol.rho) - mt["r_kuramoto"])) > 1e-2


def test_lohe_d2_sweep_matches_gaussian_theory(loh):
    """Tolerance (n = 400, random frequencies): |rho - r_theory| <= 0.06 for K >= 1.25 K_c, rho <= 0.12 below K_c."""
    res = loh[0]
    th, sw = res["theory_d2"], res["sweep"][2]
    K, rho, rt = np.array(sw["K"]), np.array(sw["rho"]), np.array(th["rho"])
    above, below = K >= 1.25 * th["K_c"], K < th["K_c"]
    assert above.any() and below.any()
    assert np.max(np.abs(rho - rt)[above]) <= 0.06
    assert np.max(rho[below]) <= 0.12
    wrong = np.sqrt(
        np.clip(1 - th["K_c"] / K, 0, None)
    )  # square-root law with the right K_c
    assert np.max(np.abs(rho - wrong)[above]) > 0.06


def test_lohe_odd_dimension_synchronises_at_weak_coupling(loh):
    """d = 3 (odd): the order parameter is already large at K = 0.5 < K_c(d=2)
    (Chandra, Girvan & Ott, PRX 9, 011002 (2019): no continuous onset in odd d)."""
    res = loh[0]
    sw2, sw3 = res["sweep"][2], res["sweep"][3]
    i = sw3["K"].index(0.5)
    assert sw3["rho"][i] > 0.3 > sw2["rho"][sw2["K"].index(0.5)]
