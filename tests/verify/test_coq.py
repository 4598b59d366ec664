"""The Coq development (``proofs/coq``, docs/coq.md) on the real files.

Without ``coqc`` on PATH the tests that compile skip, saying so; the rest (the files
and their headers, the forbidden-word scan, the axiom parser and allowlist, the mutants'
texts, the proved numbers against the library) always run. With ``coqc``: the default run
checks ``kuramoto_identity``'s part through verify's machinery and rejects its mutant;
every statement's parts, ``build.sh`` and one mutant of every statement's specification
(each makes a claim false, so ``coqc`` must reject the proof) are ``slow`` (minutes).
The column itself, on a toy statement: ``test_coq_column.py``; the registry:
``test_parts.py``.
"""

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import verify
from syncattn.verify import _coq
from syncattn.verify._coq_check import check_all


ROOT = Path(__file__).resolve().parents[2]
COQ = ROOT / "proofs" / "coq"
NO_COQC = shutil.which("coqc") is None
needs_coqc = pytest.mark.skipif(
    NO_COQC,
    reason="coqc not on PATH (apt-get install coq libcoq-coquelicot libcoq-interval "
    "libcoq-gappa gappa); the Coq proofs are not compiled",
)
STATEMENTS = verify.load_statements(verify.find_proofs(ROOT / "proofs"))
NAMES = [s.name for s in STATEMENTS]
SHARED = ("CoreSpec", "Core")

# One mutant of every statement's specification: (statement, exact text in
# proofs/coq/<statement>_spec.v, replacement). Each makes a claim false (a flipped sign, a
# dropped hypothesis, a wrong constant), so no proof of it exists and coqc must reject
# the statement's proof file.
MUTANTS = (
    (
        "kuramoto_identity",
        "tangent_update th w = coupling th w.",
        "tangent_update th w = - coupling th w.",
    ),
    (
        "rotary_phase_drift",
        "omega b * (t - u)) + acc) 0 bs.",
        "omega b * (t + u)) + acc) 0 bs.",
    ),
    (
        "entropic_selection",
        "Definition softmax_i (tau Z s : R) : R := exp (s / tau) / Z.",
        "Definition softmax_i (tau Z s : R) : R := exp (s * tau) / Z.",
    ),
    ("coherence_gradient", "  - (1 / 2) * sumN (fun i", "  - 1 * sumN (fun i"),
    (
        "lohe_fixed_query",
        "  fun i => h i - dot n z h * z i.",
        "  fun i => h i + dot n z h * z i.",
    ),
    (
        "failure_odds",
        "exp (- INR d * cos alpha ^ 2 / 2)",
        "exp (- INR d * cos alpha ^ 2)",
    ),
    (
        "readout",
        "  if fst k then rpow (Rmax 0 (1 + snd k)) p else 0.",
        "  rpow (Rmax 0 (1 + snd k)) p.",
    ),
    (
        "lohe_general",
        "= (1 - dot d (x i) (x i)) * sumN",
        "= (1 + dot d (x i) (x i)) * sumN",
    ),
    (
        "ott_antonsen",
        "(2 * gamma < K /\\ r = r_star K gamma)",
        "(gamma < K /\\ r = r_star K gamma)",
    ),
    (
        "hull_degeneracy",
        "sumN (fun j => w j / sumN w m) m = 1 /\\",
        "sumN (fun j => w j / sumN w m) m = 2 /\\",
    ),
    (
        "relative_degeneracy",
        "= sumN (fun j => w j ^ 2) m + offdiag",
        "= sumN (fun j => w j ^ 2) m - offdiag",
    ),
    (
        "finite_time_threshold",
        "a * hit_time a (PI / 2) delta = ln (cot (delta / 2)).",
        "a * hit_time a (PI / 2) delta = ln (tan (delta / 2)).",
    ),
    (
        "noisy_fixed_query",
        "(- (INR d + 1 - 2 * dot d z z) * z i) /\\",
        "(- (INR d - 2 * dot d z z) * z i) /\\",
    ),
    (
        "noisy_kuramoto",
        "<-> kappa = noisy_kappa K r sigma).",
        "<-> kappa = 2 * noisy_kappa K r sigma).",
    ),
    (
        "frequency_locking",
        "= adler omega a (theta - psi) * vec2 (- sin theta) (cos theta) i.",
        "= adler omega a (theta + psi) * vec2 (- sin theta) (cos theta) i.",
    ),
    (
        "lohe_identities",
        "  fun i => G i - dot n z G * z i.",
        "  fun i => G i + dot n z G * z i.",
    ),
    (
        "matrix_lohe",
        "meq n (mmul n (adj (U j)) (U j)) mid -> skew_hermitian n (W j) ->",
        "skew_hermitian n (W j) ->",
    ),
    (
        "matrix_gradient",
        "forall n N F U, meq n (mmul n (adj F) F) mid ->",
        "forall n N F U,",
    ),
    ("matrix_sync", "(msub Vi Vj) Mh) Vi)", "(msub Vi Vj) Mh) Vj)"),
    (
        "sincos_float32",
        "Rabs (sin_kernel r - sin r) <= 5 / 100000000.",
        "Rabs (sin_kernel r - sin r) <= 5 / 1000000000.",
    ),
    (
        "daido",
        "harm M (re_c a al) (im_c a al) phi = harm_amp M a al phi.",
        "harm M (re_c a al) (im_c a al) phi = harm_amp M a al (- phi).",
    ),
    (
        "delay_locking",
        "<-> locking_residual omega k tau Omega = 0).",
        "<-> locking_residual omega k tau Omega = 1).",
    ),
    (
        "inertia",
        "(- dot n (fun i => v i t) (fun i => v i t)).",
        "(dot n (fun i => v i t) (fun i => v i t)).",
    ),
    (
        "higher_order",
        "cos x * (S2 a n * C1 a n - C2 a n * S1 a n)",
        "cos x * (S2 a n * C1 a n + C2 a n * S1 a n)",
    ),
    (
        "watanabe_strogatz",
        "= (nrm2 u - 1) * (1 - nrm2 a)",
        "= (nrm2 u - 1) * (1 + nrm2 a)",
    ),
    (
        "frustrated_attention",
        "(r k * sin (INR (S k) * (th u - th t) + g k))) (S t)) M",
        "(r k * sin (INR (S k) * (th u - th t) - g k))) (S t)) M",
    ),
    (
        "stiefel",
        "fun i => G i - x i * dot n G x.",
        "fun i => G i + x i * dot n G x.",
    ),
)
DEFAULT_MUTANT = MUTANTS[0]  # the one the default run compiles (a few seconds)


def _source(name):
    return (COQ / f"{name}.v").read_text()


# --------------------------------------------------------------------------- sources
def test_every_coq_file_belongs_to_a_statement_or_the_shared_core():
    on_disk = {p.stem for p in COQ.glob("*.v")}
    expected = set(SHARED) | {n for n in NAMES if (COQ / f"{n}.v").exists()}
    expected |= {f"{n}_spec" for n in NAMES if (COQ / f"{n}_spec.v").exists()}
    assert on_disk == expected, on_disk ^ expected
    assert set(_coq.coq_files(verify.find_proofs(ROOT / "proofs"))) == on_disk


@pytest.mark.parametrize("name", sorted(p.stem for p in COQ.glob("*.v")))
def test_each_file_opens_with_what_it_is_and_assumes_nothing(name):
    src = _source(name)
    assert src.startswith("(** * "), name
    assert _coq.forbidden_words(src) == [], name
    assert not re.search(r"\b(Admitted|admit|Axiom)\b", _coq.strip_comments(src))


@pytest.mark.parametrize("name", [n for n in NAMES if (COQ / f"{n}.v").exists()])
def test_each_proof_file_prints_the_assumptions_of_each_part(name):
    theorems = [
        p.coq
        for p in _coq.declared(next(s for s in STATEMENTS if s.name == name)).parts
        if p.kind == "coq"
    ]
    printed = set(re.findall(r"^Print Assumptions (\w+)\.", _source(name), re.M))
    assert set(theorems) <= printed, set(theorems) - printed


def test_the_forbidden_word_scan_sees_through_nothing_but_comments():
    assert _coq.forbidden_words("Lemma a : True. Proof. admit. Admitted.") == [
        "Admitted",
        "admit",
    ]
    assert _coq.forbidden_words("Axiom cheat : False.") == ["Axiom"]
    assert _coq.forbidden_words("Parameter x : R. Hypothesis h : x = 0.") == [
        "Hypothesis",
        "Parameter",
    ]
    assert _coq.forbidden_words("(* no Axiom, no admit here *) Qed.") == []


def test_every_statement_has_a_mutant_and_the_mutants_apply():
    assert {m[0] for m in MUTANTS} == {
        n for n in NAMES if (COQ / f"{n}_spec.v").exists()
    }
    for name, old, new in MUTANTS:
        src = _source(f"{name}_spec")
        assert src.count(old) == 1, (name, old)
        assert old != new


def test_requires_reads_the_projects_modules():
    assert _coq.requires(
        "From Syncattn Require Import Core a_spec.\nFrom Coq Require Import Reals."
    ) == ["Core", "a_spec"]
    assert _coq.requires(
        "(* From Syncattn Require X. *) From Syncattn Require Export CoreSpec."
    ) == ["CoreSpec"]


# --------------------------------------------------------------------------- axiom audit
PRINTED = """Axioms:
ClassicalDedekindReals.sig_not_dec : forall P : Prop, {~ ~ P} + {~ P}
ClassicalDedekindReals.sig_forall_dec
  : forall P : nat -> Prop,
    (forall n : nat, {P n} + {~ P n}) ->
    {n : nat | ~ P n} + {forall n : nat, P n}
Uint63.add_spec
  : forall x y : PrimInt63.int, Uint63.to_Z (PrimInt63.add x y) = 0
PrimInt63.add : PrimInt63.int -> PrimInt63.int -> PrimInt63.int
"""


def test_parse_assumptions_reads_every_printed_name():
    assert _coq.parse_assumptions(PRINTED) == [
        "ClassicalDedekindReals.sig_not_dec",
        "ClassicalDedekindReals.sig_forall_dec",
        "Uint63.add_spec",
        "PrimInt63.add",
    ]
    assert _coq.parse_assumptions("Closed under the global context\n") == []
    assert _coq.parse_assumptions(PRINTED + "Axioms:\ncheat : False\n")[-1] == "cheat"


def test_only_real_number_axioms_and_for_interval_the_primitive_integers():
    names = _coq.parse_assumptions(PRINTED)
    assert not _coq.uses_interval(["From Coq Require Import Reals."])
    assert _coq.uses_interval(["From Interval Require Import Tactic."])
    assert _coq.disallowed_axioms(names, False) == ["PrimInt63.add", "Uint63.add_spec"]
    assert _coq.disallowed_axioms(names, True) == []
    assert _coq.disallowed_axioms(["cheat", "Classical_Prop.classic"], True) == [
        "cheat"
    ]
    assert _coq.disallowed_axioms(sorted(_coq.REAL_AXIOMS), False) == []


# --------------------------------------------------------------------------- proved numbers
_TABLE = re.compile(
    r"^Lemma table_a(\d+)_d(\d+) : ([0-9.e+-]+) <= rho \(PI / (\d)\) \^ (\d+) <= ([0-9.e+-]+)\.",
    re.M,
)


def test_failure_odds_enclosures_hold_the_library_bound():
    """The 21 values the failure study tabulates (docs/studies.md: alpha 30/45/60 degrees,
    d = 2..64): the library's cap_probability_bound lies in each Coq-proved enclosure."""
    from syncattn.sphere import cap_probability_bound

    found = _TABLE.findall(_source("failure_odds"))
    assert len(found) == 21
    assert {(int(a), int(d)) for a, d, *_ in found} == {
        (a, d) for a in (30, 45, 60) for d in (2, 3, 4, 8, 16, 32, 64)
    }
    alphas = jnp.array([math.pi / 6, math.pi / 4, math.pi / 3], jnp.float64)
    values = {
        (deg, d): float(v)
        for d in (2, 3, 4, 8, 16, 32, 64)
        for deg, v in zip((30, 45, 60), cap_probability_bound(alphas, d))
    }
    for deg, d, lo, k, d2, hi in found:
        assert d == d2 and int(deg) * int(k) == 180
        value = values[(int(deg), int(d))]
        assert float(lo) <= value <= float(hi), (deg, d, lo, value, hi)
        assert value <= math.exp(-int(d) * math.cos(math.pi / int(k)) ** 2 / 2)


SIN_BOUND, COS_BOUND = 5e-8, 7.5e-8  # sincos_float32.v's main theorem


def _kernel32(r):
    """The plain operation sequence the Coq spec models, in numpy float32 (no fused
    multiply-add): what an eager call runs."""
    f = np.float32
    r = np.asarray(r, f)
    r2 = r * r

    def horner(coeffs):
        acc = np.full_like(r2, f(coeffs[-1]))
        for c in coeffs[-2::-1]:
            acc = f(c) + r2 * acc
        return acc

    s = r + (r * r2) * horner((-1 / 6, 1 / 120, -1 / 5040, 1 / 362880))
    c = f(1.0) + r2 * horner((-1 / 2, 1 / 24, -1 / 720, 1 / 40320, -1 / 3628800))
    return s, c


def test_sincos_float32_is_the_proved_kernel_within_the_proved_bound():
    """On |x| <= pi/4 (quadrant 0, r = x exactly) the library's float32 sincos, called
    eagerly, equals bit for bit the plain sequence sincos_float32_spec.v models, and stays
    within its proved bounds (the jitted, fused sequence: proofs/proof_sincos_float32.py)."""
    from syncattn import _numerics

    src = _source("sincos_float32_spec")
    assert "Rabs (sin_kernel r - sin r) <= 5 / 100000000" in src
    assert "Rabs (cos_kernel r - cos r) <= 75 / 1000000000" in src
    assert _numerics._SIN_C[:4] == (-1 / 6, 1 / 120, -1 / 5040, 1 / 362880)
    assert _numerics._COS_C[:5] == (-1 / 2, 1 / 24, -1 / 720, 1 / 40320, -1 / 3628800)
    x = np.linspace(-math.pi / 4, math.pi / 4, 20001).astype(np.float32)
    x = x[np.abs(x.astype(np.float64)) <= math.pi / 4]
    s, c = _numerics.sincos(jnp.asarray(x))  # eager
    es, ec = _kernel32(x)
    np.testing.assert_array_equal(np.asarray(s), es)
    np.testing.assert_array_equal(np.asarray(c), ec)
    x64 = x.astype(np.float64)
    assert np.max(np.abs(np.asarray(s, np.float64) - np.sin(x64))) <= SIN_BOUND
    assert np.max(np.abs(np.asarray(c, np.float64) - np.cos(x64))) <= COS_BOUND


# --------------------------------------------------------------------------- with coqc
@needs_coqc
def test_the_kuramoto_identity_checks_through_verify(tmp_path, monkeypatch):
    """Statement 1's part: compiled with the shared core, its theorem's type audited
    against its pinned specification, only real-number axioms."""
    monkeypatch.setenv("SYNCATTN_COQ_CACHE", str(tmp_path / "cache"))
    (statement,) = [s for s in STATEMENTS if s.name == "kuramoto_identity"]
    result = check_all([statement], verify.find_proofs(ROOT / "proofs"))[
        "kuramoto_identity"
    ]
    assert result.result == "checked", result.error
    assert result.cell() == "checked"  # its one part is in Coq
    assert set(result.axioms) <= _coq.REAL_AXIOMS and result.axioms


def _mutant_rejected(tmp_path, name, old, new):
    """Copy the Coq files, make the specification false, and compile the proof: coqc
    must reject it (not run out of time)."""
    folder = tmp_path / "coq"
    shutil.copytree(COQ, folder)
    spec = folder / f"{name}_spec.v"
    spec.write_text(spec.read_text().replace(old, new, 1))
    rc, output = _coq.compile_file(
        folder / f"{name}.v", shutil.which("coqc"), timeout=900
    )
    assert rc != 0, f"coqc accepted the proof of {name} against the mutant {new!r}"
    assert rc != 124, f"coqc ran out of time on the mutant of {name}: {new!r}"
    assert "Error" in output


@needs_coqc
def test_the_kuramoto_identity_mutant_is_rejected(tmp_path):
    _mutant_rejected(tmp_path, *DEFAULT_MUTANT)


@needs_coqc
@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS[1:], ids=lambda m: m[0])
def test_every_mutant_is_rejected(tmp_path, mutant):
    _mutant_rejected(tmp_path, *mutant)


@needs_coqc
@pytest.mark.slow
def test_every_statement_checks_with_only_allowed_axioms(tmp_path, monkeypatch):
    """The full build (minutes on two cores): every part declared Coq checks, with only
    the real-number axioms (and, where Interval is used, the primitive integers).

    A fresh cache, unless ``SYNCATTN_TEST_COQ_CACHE`` names one: CI fills that folder
    with ``syncattn verify --coq`` first, and a success there is keyed by the hash of
    every file involved, coqc's version and the allowlist, so reading it is a check of
    exactly these files (CI compiles everything once, not twice)."""
    shared = os.environ.get("SYNCATTN_TEST_COQ_CACHE")
    monkeypatch.setenv("SYNCATTN_COQ_CACHE", shared or str(tmp_path / "cache"))
    results = check_all(
        STATEMENTS,
        verify.find_proofs(ROOT / "proofs"),
        jobs=min(2, os.cpu_count() or 1),
    )
    for name, r in results.items():
        assert r.result in ("checked", "-"), (name, r.error)
        assert r.result == "checked", (name, "every statement has a Coq part")
        assert r.checked == r.coq_parts, name


@needs_coqc
@pytest.mark.slow
def test_the_build_script_builds_everything(tmp_path):
    before = sorted(COQ.iterdir())
    proc = subprocess.run(
        ["sh", str(COQ / "build.sh"), str(tmp_path / "build")],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {p.stem for p in (tmp_path / "build").glob("*.vo")} == {
        p.stem for p in COQ.glob("*.v")
    }
    assert sorted(COQ.iterdir()) == before  # nothing built beside the sources
