"""Benchmark: the Kuramoto family (classical, delayed, inertial, higher-order) against oscillatools.

oscillatools 0.1.0 (AGPL-3.0, https://pypi.org/project/oscillatools/; a benchmark-only
dependency in the `bench` extra) ships the same four models as NumPy integrators. Both
libraries integrate the same mean-field problem on the same CPU, in one process, with the
repeats interleaved (syncattn, oscillatools, syncattn, ...), so load from other jobs hits
both alike.

**Equal step counts, not a tolerance ladder.** oscillatools integrates every model with
the fixed-step classical RK4 (its delayed model with linear interpolation of the past; it
has no adaptive integrator for delays or inertia). Each pair below takes the same number
of fixed steps of the same size:

* classical, inertial, higher-order: syncattn's `simulate` / `inertial_simulate` with
  `solver="dopri5", rtol=None, dt0=dt` (fixed Dormand-Prince 5(4): 6 field evaluations a
  step and order 5) against oscillatools' RK4 (4 evaluations, order 4). syncattn does 1.5x
  the field evaluations per step and is the more accurate of the two at the same step;
* delayed: `delay_simulate` (RK4, cubic Hermite history: order 4) against
  `integrate_delayed_kuramoto` (RK4, linear history interpolation: order 2 at the half steps).

So at equal steps syncattn is at least as accurate (each row records both errors against a
tight reference: max over oscillators of the wrapped phase error at t1, and |r - r_ref|).

oscillatools' entry points, as documented in its source: classical `KuramotoSystem.mean_field(
..., dt=dt).step(n=steps)`; inertial `integrate_inertial(theta, v, omega, F, mass, dt=, n_steps=)`
with `F = mean_field_force(., K)`; delayed `integrate_delayed_kuramoto(history, omega, F,
delay=, dt=, n_steps=)` with its shipped `delayed_mean_field_force` (which forms the N x N
matrix of phase differences: O(N^2) time and memory, 80 GB at N = 1e5; it took 0.14 s a
step at N = 1e3 here, so it runs at N = 1e3 only: column "oscillatools"); column "O(N) force" passes the same integrator a
mean-field delayed force written here (K (S~ cos - C~ sin), ten lines), the best case of its
integrator; higher-order: `KuramotoSystem` with a custom rule omega + mean_field_force(K1) +
triadic_mean_field_force(K2) (its pairwise + 2-simplex mean fields). **The triadic terms are
different models**: syncattn's `simplicial_simulate` has Skardal and Arenas' (2019)
(K2/N^2) sum_jl sin(2 theta_j - theta_l - theta_i) = K2 Im(Z2 conj(Z1) e^{-i theta_i});
oscillatools' `triadic_mean_field_force` is K2 r^2 sin(2 psi - 2 theta_i) = K2 Im(Z1^2
e^{-2 i theta_i}), the symmetric (K2/N^2) sum_jl sin(theta_j + theta_l - 2 theta_i). oscillatools
has no form of the first. Both are O(N) mean fields of the same cost class, so that row is
timed at equal steps only (`--mode steps`), each library integrating its own model. Its delayed and inertial
integrators record every step (an (steps+1, N) array), as the API has it.

syncattn runs in float64 with XLA pinned to one thread (`--threads 1`, the default), so
both sides use one core of the 2-core machine; compile time (first call minus warm) is
reported apart and not in the ratio.

Usage:
    python benchmarks/family.py            # N = 1e3, 1e4, 1e5, 3 repeats (about 15-25 min loaded)
    python benchmarks/family.py --quick    # N = 1e3, 1e4, fewer steps, 2 repeats (about 1-2 min)
Writes benchmarks/results/family/{family.json, family.csv, family.png} (--out) and prints a
markdown table.
"""

from __future__ import annotations

import argparse
import os
import sys


def _pin_threads(argv):
    """XLA to one thread (before jax is imported): both libraries on one core."""
    if "--threads" in argv and argv[argv.index("--threads") + 1] != "1":
        return
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = (
        flags + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    ).strip()


_pin_threads(sys.argv)

import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402


jax.config.update("jax_enable_x64", True)

from syncattn import kuramoto  # noqa: E402


OUT = Path(__file__).parent / "results" / "family"
SIGMA = 0.5  # Gaussian frequencies
K = 2.0  # pairwise coupling
TAU = 0.5  # delay
MASS = 1.0  # inertia
K_TRIADIC = 1.0  # 2-simplex coupling of the higher-order model
# the shipped O(N^2) delayed force runs where its N x N float64 matrix stays below this
SHIPPED_DELAY_MAX_BYTES = 1e7  # N <= 1118: at N = 1e3 it took 0.14 s a step (loaded)


def problem(n, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, n), SIGMA * rng.standard_normal(n)


def order(theta):
    return float(np.abs(np.mean(np.exp(1j * np.asarray(theta)))))


METRIC = "rms"  # set by --metric


def phase_error(a, b, metric=None):
    """Phase error at t1 against the reference: RMS over oscillators (default) or max."""
    d = np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b))))
    if (metric or METRIC) == "max":
        return float(np.max(np.abs(d)))
    return float(np.sqrt(np.mean(d * d)))


# ----------------------------------------------------------------- higher-order hook
def _higher_order():
    """syncattn's higher-order simulator, or None in a tree without it."""
    return getattr(kuramoto, "simplicial_simulate", None)


# --------------------------------------------------------------------------- syncattn
def syncattn_runner(model, theta0, omega, t1, setting):
    """`setting`: ("dt", dt) fixed steps (Dopri5; delays RK4) or ("rtol", rtol) adaptive."""
    th, om = jnp.asarray(theta0), jnp.asarray(omega)
    kind, x = setting
    if kind == "dt":
        opts = dict(solver="dopri5", rtol=None, dt0=x, saveat=None, save_phases=False)
    else:
        opts = dict(solver="dopri5", rtol=x, atol=x * 1e-2, saveat=None, save_phases=False)
    if model == "classical":
        def f():
            return kuramoto.simulate(th, om, K, t1, **opts)
    elif model == "inertial":
        def f():
            return kuramoto.inertial_simulate(th, om, K, t1, mass=MASS, **opts)
    elif model == "delayed":
        def f():
            return kuramoto.delay_simulate(th, om, K, TAU, t1, dt=x, saveat=None,
                                           save_phases=False)
    elif model == "higher-order":
        sim = _higher_order()

        def f():
            return sim(th, om, K, K_TRIADIC, t1, **opts)
    else:
        raise ValueError(model)

    def g():
        sol = jax.block_until_ready(f())
        return np.asarray(sol.final), int(sol.num_steps)

    return g


def reference(model, theta0, omega, t1):
    """A tight solve of the same problem: Dopri8 rtol 1e-10 (delays: RK4, dt = 1/1000)."""
    th, om = jnp.asarray(theta0), jnp.asarray(omega)
    tight = dict(solver="dopri8", rtol=1e-10, atol=1e-12, saveat=None, save_phases=False)
    if model == "classical":
        return np.asarray(kuramoto.simulate(th, om, K, t1, **tight).final)
    if model == "inertial":
        return np.asarray(kuramoto.inertial_simulate(th, om, K, t1, mass=MASS, **tight).final)
    if model == "delayed":
        return np.asarray(
            kuramoto.delay_simulate(th, om, K, TAU, t1, dt=1e-3, saveat=None,
                                    save_phases=False).final
        )
    return np.asarray(_higher_order()(th, om, K, K_TRIADIC, t1, **tight).final)


# ------------------------------------------------------------------------ oscillatools
def _delayed_force_linear(current, delayed, coupling):
    """O(N) delayed mean field K (S~ cos theta - C~ sin theta), S~, C~ of theta(t - tau)."""
    c, s = np.mean(np.cos(delayed)), np.mean(np.sin(delayed))
    return coupling * (s * np.cos(current) - c * np.sin(current))


def oscillatools_runner(model, theta0, omega, t1, dt, variant="shipped"):
    from oscillatools.accel import kuramoto_delayed as kd, kuramoto_inertial as ki
    from oscillatools.accel.kuramoto_mean_field import mean_field_force
    from oscillatools.accel.kuramoto_system import KuramotoParameters, KuramotoSystem

    steps = int(round(t1 / dt))
    if model == "classical":
        def f():
            return KuramotoSystem.mean_field(theta0, omega, K, dt=dt).step(n=steps)
    elif model == "inertial":
        def f():
            return ki.integrate_inertial(
                theta0, np.zeros_like(theta0), omega, lambda th: mean_field_force(th, K),
                MASS, dt=dt, n_steps=steps,
            ).terminal_phases
    elif model == "delayed":
        lag = int(round(TAU / dt))
        force = kd.delayed_mean_field_force if variant == "shipped" else _delayed_force_linear

        def f():
            hist = np.broadcast_to(theta0, (lag + 1, theta0.size)).copy()
            return kd.integrate_delayed_kuramoto(
                hist, omega, lambda a, b: force(a, b, K), delay=TAU, dt=dt, n_steps=steps,
            ).terminal_phases
    elif model == "higher-order":
        from oscillatools.accel.triadic_mean_field import triadic_mean_field_force

        def rule(u, p, t):
            return p.natural_frequencies + mean_field_force(u, K) + triadic_mean_field_force(
                u, K_TRIADIC
            )

        def f():
            return KuramotoSystem(rule, theta0, KuramotoParameters(omega, K), dt=dt).step(n=steps)
    else:
        raise ValueError(model)
    return lambda: (np.asarray(f()), steps)


# -------------------------------------------------------------------------------- run
# equal accuracy: loosest first; every dt divides t1 = 10 and the delay 0.5
DTS = (0.25, 0.125, 0.1, 0.0625, 0.05, 0.025, 0.02, 0.0125, 0.01, 0.005, 0.0025)
RTOLS = (1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 1e-9)


def _ladder(make, settings, ref, target):
    """The loosest setting whose max phase error at t1 is <= target: (setting, runner, err)."""
    for x in settings:
        fn = make(x)
        final, _ = fn()
        err = phase_error(final, ref)
        if err <= target:
            return x, fn, err
    return x, fn, err  # the tightest, target missed (recorded as such)


def measure(model, n, mode, repeats, seed, t1, dt, target):
    theta0, omega = problem(n, seed)
    ref = reference(model, theta0, omega, t1)
    names = ["syncattn"]
    if model == "delayed":
        if 8.0 * n * n <= SHIPPED_DELAY_MAX_BYTES:
            names.append("oscillatools")
        names.append("oscillatools O(N) force")
    else:
        names.append("oscillatools")

    def maker(name):
        if name == "syncattn":
            if model == "delayed" or mode == "steps":
                return lambda x: syncattn_runner(model, theta0, omega, t1, ("dt", x))
            return lambda x: syncattn_runner(model, theta0, omega, t1, ("rtol", x))
        variant = "shipped" if name == "oscillatools" else "linear"
        return lambda x: oscillatools_runner(model, theta0, omega, t1, x, variant)

    runners, settings = {}, {}
    t0 = time.perf_counter()
    for name in names:
        make = maker(name)
        if name == "oscillatools" and model == "delayed":
            continue  # the O(N^2) shipped force: timed below at the O(N) force's setting
        if mode == "steps":
            settings[name] = dt
            runners[name] = make(dt)
            if name == "syncattn":
                t0 = time.perf_counter()
                runners[name]()
                compile_s = time.perf_counter() - t0
        else:
            grid = RTOLS if name == "syncattn" and model != "delayed" else DTS
            settings[name], runners[name], _ = _ladder(make, grid, ref, target)
    if "oscillatools" in names and model == "delayed":
        # the same integrator and, up to rounding, the same force as the O(N) variant: the
        # same setting meets the same accuracy; one timed run (0.1-0.5 s a step at N = 1e3)
        settings["oscillatools"] = settings["oscillatools O(N) force"]
        runners["oscillatools"] = maker("oscillatools")(settings["oscillatools"])
    if mode == "accuracy":
        t0 = time.perf_counter()
        runners["syncattn"]()
        compile_s = time.perf_counter() - t0  # warm by now: first-call cost is in the ladder
    times = {k: [] for k in runners}
    finals, steps = {}, {}
    for rep in range(repeats):  # interleaved: every implementation once per round
        for name, fn in runners.items():
            if rep and name == "oscillatools" and model == "delayed":
                continue  # the O(N^2) shipped force: one run
            t0 = time.perf_counter()
            finals[name], steps[name] = fn()
            times[name].append(time.perf_counter() - t0)
    r_ref = order(ref)
    row = dict(model=model, n=n, mode=mode, t1=t1, target=target if mode == "accuracy" else None,
               r_ref=r_ref, loadavg_1min=round(os.getloadavg()[0], 2))
    for name in runners:
        kind = "rtol" if name == "syncattn" and mode == "accuracy" and model != "delayed" else "dt"
        err = phase_error(finals[name], ref)
        other_model = model == "higher-order" and name != "syncattn"  # not our equation
        row[name] = dict(
            setting={kind: settings[name]}, steps=steps[name], times_s=times[name],
            median_s=float(np.median(times[name])), min_s=float(np.min(times[name])),
            phase_err=float("nan") if other_model else err,
            phase_err_max=float("nan") if other_model else phase_error(finals[name], ref, "max"),
            r_err=float("nan") if other_model else abs(order(finals[name]) - r_ref),
            met_target=None if mode == "steps" else bool(err <= target),
        )
    base = row["syncattn"]["median_s"]
    for name in runners:
        if name != "syncattn":
            row[name]["speedup"] = row[name]["median_s"] / base
    if mode == "steps":
        row["syncattn"]["compile_s"] = max(compile_s - base, 0.0)
    return row


def _fmt_setting(x):
    (k, v), = x["setting"].items()
    return f"{k} {v:g}, {x['steps']} steps"


def markdown(rows):
    lines = [
        "| model | N | syncattn | oscillatools | speed-up | oscillatools, O(N) force | speed-up | phase error at t1: syncattn / oscillatools | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s = r["syncattn"]
        o, lin = r.get("oscillatools"), r.get("oscillatools O(N) force")

        def cell(x):
            if x is None:
                return "-"
            miss = "" if x.get("met_target") in (None, True) else " (target missed)"
            return f"{x['median_s']:.3g} s [{_fmt_setting(x)}]{miss}"

        sp = lambda x: "-" if x is None else f"{x['speedup']:.1f}x"  # noqa: E731
        other = o or lin
        lines.append(
            f"| {r['model']} | {r['n']:,} | {cell(s)} | {cell(o)} | {sp(o)} | {cell(lin)} | {sp(lin)} | "
            f"{s['phase_err']:.1e} / {other['phase_err']:.1e} | {r['loadavg_1min']} |"
        )
    return "\n".join(lines)


def plot(rows, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, len(models), figsize=(3.5 * len(models), 3.5), squeeze=False)
    for ax, m in zip(axes[0], models, strict=True):
        rs = [r for r in rows if r["model"] == m]
        ns = [r["n"] for r in rs]
        for name, marker, color, ls in (("syncattn", "o", "C0", "-"),
                                        ("oscillatools", "s", "C3", "-"),
                                        ("oscillatools O(N) force", "^", "C1", "--")):
            pts = [(r["n"], r[name]["median_s"]) for r in rs if name in r]
            if pts:
                x, y = zip(*pts, strict=True)
                ax.loglog(x, y, marker=marker, color=color, ls=ls, label=name, ms=5)
        for r in rs:
            best = min(r[k]["speedup"] for k in r if isinstance(r[k], dict) and "speedup" in r[k])
            ax.annotate(f"{best:.1f}x", (r["n"], r["syncattn"]["median_s"]),
                        textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8,
                        color="C0")
        ax.set(title=m, xlabel="N", xticks=ns)
        ax.set_xticklabels([f"$10^{{{int(round(np.log10(n)))}}}$" for n in ns])
        ax.set_xlim(min(ns) / 2, max(ns) * 2)
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("seconds (median of interleaved repeats)")
    seen = {}
    for ax in axes[0]:
        for hd, lb in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lb, hd)
    handles, labels = list(seen.values()), list(seen)
    loc = "center right" if rows[0].get("mode") == "accuracy" else "lower right"
    axes[0][min(1, len(models) - 1)].legend(handles, labels, fontsize=7, loc=loc)
    axes[0][-1].text(0.98, 0.02, "labels: speed-up against\nthe fastest oscillatools column",
                     transform=axes[0][-1].transAxes, ha="right", va="bottom", fontsize=7)
    load = sorted({r["loadavg_1min"] for r in rows})
    fig.suptitle(f"{title}; one core each, 2-core machine under 1-min load "
                 f"{load[0]:g}-{load[-1]:g}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="N = 1e3, 1e4; t1 = 2; 2 repeats (a minute or two)")
    p.add_argument("--mode", choices=("accuracy", "steps"), default="accuracy",
                   help="accuracy: each side's loosest setting meeting --target (default); "
                   "steps: the same fixed step --dt on both sides")
    p.add_argument("--ns", type=int, nargs="+")
    p.add_argument("--models", nargs="+",
                   default=["delayed", "inertial", "classical", "higher-order"])
    p.add_argument("--t1", type=float,
                   help="final time (default 10, --mode steps 4; --quick 2)")
    p.add_argument("--dt", type=float, default=0.02, help="--mode steps: the step")
    p.add_argument("--target", type=float, default=1e-6,
                   help="--mode accuracy: the phase error at t1 (--metric) to reach")
    p.add_argument("--metric", choices=("rms", "max"), default="rms",
                   help="phase error at t1 over oscillators: RMS (what an adaptive solver's "
                   "RMS norm controls; default) or max")
    p.add_argument("--repeats", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1,
                   help="XLA threads (1: both libraries on one core; read before jax loads)")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--merge", action="store_true",
                   help="keep the rows of other (model, N) already in the output JSON")
    p.add_argument("--replot", action="store_true",
                   help="only redraw the PNG (and print the table) from the output JSON")
    args = p.parse_args(argv)
    global METRIC
    METRIC = args.metric
    if args.replot:
        stem = "family" if args.mode == "accuracy" else "family_steps"
        data = json.loads((args.out / f"{stem}.json").read_text())
        meta = data["meta"]
        title = (f"syncattn vs oscillatools 0.1.0 at equal accuracy ({meta.get('metric', 'max')} "
                 f"phase error <= {args.target:g})" if args.mode == "accuracy"
                 else f"syncattn vs oscillatools 0.1.0, equal steps dt={args.dt:g}")
        plot(data["rows"], args.out / f"{stem}.png", title)
        print(markdown(data["rows"]))
        print(f"load average (1, 5, 15 min): start {meta['loadavg_start']}, end "
              f"{meta['loadavg_end']}")
        return 0
    ns = args.ns or ([1000, 10_000] if args.quick else [1000, 10_000, 100_000])
    t1 = args.t1 or (2.0 if args.quick else 4.0 if args.mode == "steps" else 10.0)
    repeats = args.repeats or (2 if args.quick else 3)
    import oscillatools

    models = [m for m in args.models if m != "higher-order" or (
        _higher_order() is not None and args.mode == "steps")]
    skipped = sorted(set(args.models) - set(models))
    if skipped:
        print(f"skipping {skipped}: the two libraries' triadic couplings are different models "
              "(see the docstring), so there is no shared reference: --mode steps only")
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    load0 = os.getloadavg()
    rows = []
    for model in models:
        for n in ns:
            row = measure(model, n, args.mode, repeats, args.seed, t1, args.dt, args.target)
            rows.append(row)
            print(json.dumps({k: row[k] for k in ("model", "n", "loadavg_1min")}
                             | {k: [round(v["median_s"], 4), v["steps"]] for k, v in row.items()
                                if isinstance(v, dict)}), flush=True)
    load1 = os.getloadavg()
    meta = dict(
        command="python benchmarks/family.py " + " ".join(sys.argv[1:] if argv is None else argv),
        started=started, finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"), mode=args.mode,
        metric=args.metric,
        comparison=(f"equal accuracy: each side's loosest setting with {args.metric} phase error "
                    f"at t1 <= {args.target:g} against a tight reference" if args.mode == "accuracy"
                    else f"equal fixed step dt = {args.dt:g} on both sides"),
        problem=dict(sigma=SIGMA, K=K, tau=TAU, mass=MASS, K_triadic=K_TRIADIC, t1=t1,
                     repeats=repeats, seed=args.seed),
        machine=dict(platform=platform.platform(), cpu_count=os.cpu_count(),
                     processor=platform.processor(), python=platform.python_version()),
        loadavg_start=[round(x, 2) for x in load0], loadavg_end=[round(x, 2) for x in load1],
        xla_flags=os.environ.get("XLA_FLAGS", ""), jax=jax.__version__,
        numpy=np.__version__, oscillatools=oscillatools.__version__, skipped=skipped,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "family" if args.mode == "accuracy" else "family_steps"
    old = args.out / f"{stem}.json"
    if args.merge and old.exists():
        prev = json.loads(old.read_text())
        done = {(r["model"], r["n"]) for r in rows}
        kept = [r for r in prev["rows"] if (r["model"], r["n"]) not in done]
        order_ = {m: i for i, m in enumerate(["classical", "delayed", "inertial", "higher-order"])}
        rows = sorted(kept + rows, key=lambda r: (order_.get(r["model"], 9), r["n"]))
        meta["merged_from"] = prev["meta"] | {"rows_kept": len(kept)}
    (args.out / f"{stem}.json").write_text(json.dumps(dict(meta=meta, rows=rows), indent=2))
    impls = ("syncattn", "oscillatools", "oscillatools O(N) force")
    with open(args.out / f"{stem}.csv", "w") as f:
        f.write("model,n,mode,implementation,setting,value,steps,median_s,min_s,speedup,"
                "phase_err,r_err,met_target,loadavg_1min\n")
        for r in rows:
            for name in impls:
                if name in r:
                    x = r[name]
                    (k, v), = x["setting"].items()
                    f.write(f"{r['model']},{r['n']},{r['mode']},{name},{k},{v:g},{x['steps']},"
                            f"{x['median_s']:.6g},{x['min_s']:.6g},{x.get('speedup', 1.0):.4g},"
                            f"{x['phase_err']:.3e},{x['r_err']:.3e},{x['met_target']},"
                            f"{r['loadavg_1min']}\n")
    title = (f"syncattn vs oscillatools 0.1.0 at equal accuracy ({args.metric} phase error "
             f"<= {args.target:g})"
             if args.mode == "accuracy" else f"syncattn vs oscillatools 0.1.0, equal steps dt={args.dt:g}")
    plot(rows, args.out / f"{stem}.png", title)
    print(markdown(rows))
    print(f"load average (1, 5, 15 min): start {meta['loadavg_start']}, end {meta['loadavg_end']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
