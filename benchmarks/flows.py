"""Benchmark: syncattn.kuramoto.simulate against scipy and jaxkuramoto, at equal accuracy.

Problem (issue 2): all-to-all Kuramoto, K = 2, Lorentzian (Cauchy) frequencies with
gamma = 0.5 (i.i.d., seeded), uniform initial phases, t in [0, 100]. Accuracy is the
time-averaged order parameter r over t in [50, 100] (201 save points), compared
with a tight-tolerance reference solve (syncattn, Dopri8, rtol 1e-9 / atol 1e-11
for N <= 1000, 1e-8 up to N = 5000, 1e-6 above, where tighter
references cost hours). For each method the loosest setting of a ladder (rtol for
adaptive solvers, dt for fixed-step RK4) whose |r - r_ref| <= --target is timed.
All timings in one run, side by side; compile time is reported apart (first call
minus a second, warm call). Everything is float64 except jaxkuramoto, which runs
as published (float32), and the "syncattn f32" column.

Also measures the crossover between coupling forms (mean field, dense matrix,
edge list, BCOO) per vector-field evaluation.

Usage:
    python benchmarks/flows.py                 # N = 100, 1000, 5000, 1e5, 1e6 (about 15 min on 2 cores)
    python benchmarks/flows.py --ns 100 1000   # a subset
    python benchmarks/flows.py --forms-only    # only the coupling-form table (about 2 min)
Writes benchmarks/results/flows.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy.integrate
from tqdm import tqdm


jax.config.update("jax_enable_x64", True)

from syncattn import kuramoto  # noqa: E402


GAMMA, K, T1, NSAVE = 0.5, 2.0, 100.0, 201
TS = np.linspace(0.0, T1, NSAVE)


def problem(n: int, seed: int):
    rng = np.random.default_rng(seed)
    omega = GAMMA * rng.standard_cauchy(n)
    theta0 = rng.uniform(-np.pi, np.pi, n)
    return omega, theta0


def rbar(r):
    r = np.asarray(r)
    return float(r[len(r) // 2 :].mean()) if r.ndim == 1 else float(r.mean())


def timed(fn, repeats=2):
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    best = first
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, first, best


def run_syncattn(omega, theta0, rtol, solver="dopri5", dtype=jnp.float64):
    om, th = jnp.asarray(omega, dtype), jnp.asarray(theta0, dtype)

    def f():
        sol = kuramoto.simulate(
            th,
            om,
            K,
            T1,
            saveat=NSAVE,
            rtol=rtol,
            atol=rtol * 1e-2,
            solver=solver,
            save_phases=False,
        )
        return jax.block_until_ready(sol)

    sol, first, warm = timed(f)
    return rbar(sol.r), first, warm, int(sol.num_steps)


def run_scipy(omega, theta0, rtol):
    def rhs(t, th):
        c, s = np.cos(th), np.sin(th)
        return omega + K * (s.mean() * c - c.mean() * s)

    def f():
        return scipy.integrate.solve_ivp(
            rhs, (0, T1), theta0, method="RK45", t_eval=TS, rtol=rtol, atol=rtol * 1e-2
        )

    sol, first, warm = timed(f, repeats=1)
    r = np.abs(np.exp(1j * sol.y).mean(axis=0))
    return rbar(r), first, warm, int(sol.nfev)


def run_jaxkuramoto(omega, theta0, dt):
    import jaxkuramoto as jk

    model = jk.Kuramoto(jnp.asarray(omega, jnp.float32), K)
    th = jnp.asarray(theta0, jnp.float32)

    def f():
        sol = jk.odeint(
            model.vector_fn,
            jk.solver.runge_kutta,
            0.0,
            T1,
            dt,
            th,
            observable_fn=model.orderparameter,
        )
        return jax.block_until_ready(sol.observables)

    r, first, warm = timed(f)
    return rbar(r), first, warm, int(T1 / dt)


def ladder(run, settings, ref, target):
    """Loosest setting meeting the target; returns a dict (or the last try, flagged)."""
    out = None
    for s in settings:
        r, first, warm, work = run(s)
        out = dict(
            setting=s,
            r=r,
            err=abs(r - ref),
            first_s=first,
            warm_s=warm,
            work=work,
            ok=abs(r - ref) <= target,
        )
        if out["ok"]:
            break
    return out


FORM_NS = (300, 1000, 3000, 30000)


def _forms(n, rng):
    """The coupling forms of one N: name -> coupling (all with mean coupling K)."""
    from jax.experimental import sparse

    forms = {"mean field": jnp.asarray(K)}
    if n <= 4000:
        dense = jnp.full((n, n), K / n)
        forms["dense"] = dense
        forms["edge list (all-to-all)"] = kuramoto.EdgeList.from_dense(
            np.asarray(dense)
        )
    for density in (0.01, 0.1):
        if n * n * density <= 4e6:
            mask = rng.uniform(size=(n, n)) < density
            Kd = jnp.asarray(np.where(mask, K / (n * density), 0.0))
            forms[f"edge list ({density:.0%} edges)"] = kuramoto.EdgeList.from_dense(
                np.asarray(Kd)
            )
            forms[f"BCOO ({density:.0%} edges)"] = sparse.BCOO.fromdense(Kd)
            if n <= 4000:
                forms[f"dense ({density:.0%} edges)"] = Kd
    return forms


def coupling_forms(ns, seed, rounds=7):
    """Time one vector-field evaluation per coupling form (jit, warm).

    The coupling is an *argument* of the jitted function, as it is inside a
    simulation (a traced argument of the ODE right-hand side), never a
    compile-time constant: closing over an N x N matrix makes XLA embed and
    constant-fold it, which timed the compiler's handling of a 72 MB literal
    rather than the product (24-41 ms for the all-to-all matrix at N = 3000 against
    2-8 ms for a same-sized matrix with 1% non-zeros, in earlier runs).

    As diagnostics, "dense, closed over" times that old way for the all-to-all
    matrix, and two rows time the dense product alone: both sums as one product
    ``K @ (cos, sin)`` (what ``vector_field`` does) and as two products. The forms of one N are timed round-robin, ``rounds`` rounds of
    about 20 ms of calls each (at least 3), so load on a shared machine hits them alike; each row
    records the median and the minimum over rounds and the ratio of medians to the
    mean field of the same N, measured side by side.
    """
    rows = []
    for n in tqdm(ns, desc="coupling forms"):
        rng = np.random.default_rng(seed)
        th = jnp.asarray(rng.uniform(-np.pi, np.pi, n))
        forms = _forms(n, rng)
        calls = {}
        for name, c in forms.items():
            f = jax.jit(lambda t, c: kuramoto.vector_field(t, 0.0, c))
            calls[name] = functools.partial(f, th, c)
        if "dense" in forms:
            dense = forms["dense"]
            g = jax.jit(lambda t: kuramoto.vector_field(t, 0.0, dense))
            calls["dense, closed over (jit constant; diagnostic)"] = functools.partial(
                g, th
            )
            # the products alone: vector_field forms both sums with one product
            # K @ (cos, sin), reading the matrix once; two products read it twice
            cs = (jnp.cos(th), jnp.sin(th))
            two = jax.jit(lambda K, c, s: (K @ c, K @ s))
            one = jax.jit(lambda K, c, s: K @ jnp.stack([c, s], -1))
            calls["K cos, K sin as two products (diagnostic)"] = functools.partial(
                two, dense, *cs
            )
            calls["K (cos, sin) as one product (diagnostic)"] = functools.partial(
                one, dense, *cs
            )
        times = {name: [] for name in calls}
        reps = {}
        for name, call in calls.items():
            jax.block_until_ready(call())  # compile
            t0 = time.perf_counter()
            jax.block_until_ready(call())
            # enough calls for about 20 ms per round (at least 3)
            reps[name] = int(np.clip(0.02 / (time.perf_counter() - t0), 3, 1000))
        for _ in range(rounds):
            for name, call in calls.items():
                t0 = time.perf_counter()
                for _ in range(reps[name]):
                    y = call()
                jax.block_until_ready(y)
                times[name].append((time.perf_counter() - t0) / reps[name] * 1e6)
        base = float(np.median(times["mean field"]))
        for name, ts in times.items():
            med = float(np.median(ts))
            rows.append(
                dict(
                    n=n,
                    form=name,
                    us_per_eval=med,
                    us_per_eval_min=float(np.min(ts)),
                    vs_mean_field=med / base,
                )
            )
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--ns", type=int, nargs="+", default=[100, 1000, 5000, 100_000, 1_000_000]
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--target", type=float, default=2e-3, help="max |r - r_ref| (default 2e-3)"
    )
    p.add_argument("--scipy-max-n", type=int, default=100_000)
    p.add_argument("--jaxkuramoto-max-n", type=int, default=5000)
    p.add_argument(
        "--ref-max-n",
        type=int,
        default=100_000,
        help="above this N: no reference or ladder, syncattn alone at --big-rtol (feasibility)",
    )
    p.add_argument("--big-rtol", type=float, default=3e-5)
    p.add_argument(
        "--merge", action="store_true", help="keep rows of other N already in --out"
    )
    p.add_argument(
        "--forms-only",
        action="store_true",
        help="only the coupling-form table (keeps the solver rows already in --out)",
    )
    p.add_argument("--form-ns", type=int, nargs="+", default=list(FORM_NS))
    p.add_argument("--form-rounds", type=int, default=7)
    p.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "flows.json"
    )
    args = p.parse_args(argv)
    try:
        import jaxkuramoto  # noqa: F401

        have_jk = True
    except ImportError:
        have_jk = False
        print(
            "jaxkuramoto not installed (pip install jaxkuramoto): skipping that column."
        )

    rtols = [1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6]
    dts = [0.1, 0.05, 0.02, 0.01, 0.005]
    results = []
    for n in tqdm([] if args.forms_only else args.ns, desc="N"):
        omega, theta0 = problem(n, args.seed)
        if n > args.ref_max_n:
            r, first, warm, work = run_syncattn(omega, theta0, args.big_rtol)
            theory = float(kuramoto.lorentzian_order_parameter(K, GAMMA))
            row = dict(
                n=n,
                feasibility=dict(
                    rtol=args.big_rtol,
                    r=r,
                    r_theory_infinite_n=theory,
                    first_s=first,
                    warm_s=warm,
                    steps=work,
                ),
            )
            results.append(row)
            tqdm.write(json.dumps(row))
            continue
        ref_rtol = 1e-9 if n <= 1000 else 1e-8 if n <= 5000 else 1e-6
        ref_solver = "dopri8"
        ref, _, ref_time, _ = run_syncattn(omega, theta0, ref_rtol, solver=ref_solver)
        row = dict(
            n=n, r_ref=ref, ref=f"{ref_solver} rtol={ref_rtol:g}", ref_s=ref_time
        )
        row["syncattn"] = ladder(
            lambda s: run_syncattn(omega, theta0, s), rtols, ref, args.target
        )
        row["syncattn_f32"] = ladder(
            lambda s: run_syncattn(omega, theta0, s, dtype=jnp.float32),
            rtols[:4],
            ref,
            args.target,
        )
        row["syncattn_tsit5"] = (
            ladder(
                lambda s: run_syncattn(omega, theta0, s, solver="tsit5"),
                rtols,
                ref,
                args.target,
            )
            if n <= 5000
            else None
        )
        row["scipy"] = (
            ladder(lambda s: run_scipy(omega, theta0, s), rtols, ref, args.target)
            if n <= args.scipy_max_n
            else None
        )
        row["jaxkuramoto"] = (
            ladder(lambda s: run_jaxkuramoto(omega, theta0, s), dts, ref, args.target)
            if have_jk and n <= args.jaxkuramoto_max_n
            else None
        )
        results.append(row)
        tqdm.write(json.dumps(row))

    load_before = os.getloadavg()
    t_forms = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    forms = coupling_forms(args.form_ns, args.seed, rounds=args.form_rounds)
    command = "python benchmarks/flows.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    machine = dict(
        platform=platform.platform(),
        cpus=jax.device_count(),
        cpu_count=os.cpu_count(),
        backend=jax.default_backend(),
    )
    forms_meta = dict(
        command=command,
        started=t_forms,
        rounds=args.form_rounds,
        machine=machine,
        # 1-minute load averages before and after: > cpu_count means other jobs ran
        loadavg_1min=[round(load_before[0], 2), round(os.getloadavg()[0], 2)],
    )
    old = json.loads(args.out.read_text()) if args.out.exists() else None
    if (args.merge or args.forms_only) and old is not None:
        done = {r["n"] for r in results}
        results = sorted(
            [r for r in old["results"] if r["n"] not in done] + results,
            key=lambda r: r["n"],
        )
    meta = dict(
        command=command,
        seed=args.seed,
        target=args.target,
        problem=dict(K=K, gamma=GAMMA, t1=T1, nsave=NSAVE),
        machine=machine,
        jax=jax.__version__,
    )
    if args.forms_only and old is not None:
        meta = old["meta"]  # the solver rows are the earlier run's
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            dict(
                meta=meta,
                results=results,
                coupling_forms_meta=forms_meta,
                coupling_forms=forms,
            ),
            indent=2,
        )
    )
    print(markdown(results, forms))
    return 0


def _cell(x):
    if x is None:
        return "-"
    flag = "" if x["ok"] else " (target missed)"
    return f"{x['warm_s']:.3g} s [{x['setting']:g}, err {x['err']:.1e}]{flag}"


def markdown(results, forms):
    lines = [
        "| N | syncattn Dopri5 f64 | syncattn Dopri5 f32 | syncattn Tsit5 f64 | scipy RK45 f64 | jaxkuramoto RK4 f32 | scipy / syncattn (f64, f32) | jaxkuramoto / syncattn (f64, f32) | syncattn compile |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    big = [r for r in results if "feasibility" in r]
    for r in results:
        if "feasibility" in r:
            continue
        s, s32 = r["syncattn"]["warm_s"], r["syncattn_f32"]["warm_s"]
        sp = (
            f"{r['scipy']['warm_s'] / s:.1f}x, {r['scipy']['warm_s'] / s32:.1f}x"
            if r["scipy"]
            else "-"
        )
        jk = (
            f"{r['jaxkuramoto']['warm_s'] / s:.1f}x, {r['jaxkuramoto']['warm_s'] / s32:.1f}x"
            if r["jaxkuramoto"]
            else "-"
        )
        comp = r["syncattn"]["first_s"] - r["syncattn"]["warm_s"]
        lines.append(
            f"| {r['n']:,} | {_cell(r['syncattn'])} | {_cell(r['syncattn_f32'])} | {_cell(r['syncattn_tsit5'])} | {_cell(r['scipy'])} | "
            f"{_cell(r['jaxkuramoto'])} | {sp} | {jk} | {comp:.2f} s |"
        )
    if big:
        lines += [
            "",
            "| N | syncattn Dopri5 f64 (no reference) | steps | r (t in [50, 100]) | infinite-N theory | compile |",
            "|---|---|---|---|---|---|",
        ]
        for r in big:
            f = r["feasibility"]
            lines.append(
                f"| {r['n']:,} | {f['warm_s']:.3g} s [rtol {f['rtol']:g}] | {f['steps']} | {f['r']:.4f} | "
                f"{f['r_theory_infinite_n']:.4f} | {f['first_s'] - f['warm_s']:.2f} s |"
            )
    lines += [
        "",
        "| N | coupling form | µs per vector-field evaluation (median) | min | / mean field |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {f['n']:,} | {f['form']} | {f['us_per_eval']:.1f} | {f.get('us_per_eval_min', f['us_per_eval']):.1f} "
        f"| {f['vs_mean_field']:.1f}x |"
        if "vs_mean_field" in f
        else f"| {f['n']:,} | {f['form']} | {f['us_per_eval']:.1f} | - | - |"
        for f in forms
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
