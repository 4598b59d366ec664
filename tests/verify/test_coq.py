"""The Coq proofs (``proofs/coq``, docs/coq.md) and the Coq column of ``syncattn verify``.

Without ``coqc`` on PATH the tests that compile skip, saying so; the rest (sources,
headers, the axiom audit, the column with a stand-in ``coqc``, the proved numbers
against the library) always run. With ``coqc``: the default run compiles the small
``kuramoto_identity.v`` once per session and rejects its mutant; the full build, its
``Print Assumptions`` audit and every other mutant are ``slow`` (minutes on two cores).
"""

import json
import math
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import verify
from syncattn.verify import _coq


ROOT = Path(__file__).resolve().parents[2]
COQ = ROOT / "proofs" / "coq"
CHEAP = "rotary_phase_drift"
NO_COQC = shutil.which("coqc") is None
needs_coqc = pytest.mark.skipif(
    NO_COQC,
    reason="coqc not on PATH (apt-get install coq libcoq-coquelicot libcoq-interval "
    "libcoq-gappa gappa); the Coq proofs are not compiled",
)

# The Coq files: each statement's companion, plus the Coq-only float32 kernel.
FILES = (
    "kuramoto_identity",
    "rotary_phase_drift",
    "entropic_selection",
    "coherence_gradient",
    "lohe_fixed_query",
    "failure_odds",
    "readout",
    "finite_time_threshold",
    "sincos_float32",
    "lohe_identities",
)
# Files without a sympy statement of the same name (lohe_identities gets one when the
# identities' sympy proof, proofs/proof_lohe_identities.py, lands).
COQ_ONLY = ("lohe_identities",)

# One or two mutants per main theorem: (file, exact text, replacement). Each makes the
# statement false (a flipped sign, a dropped term, a wrong constant), so no proof of it
# can exist and coqc must reject the file.
MUTANTS = (
    (
        "kuramoto_identity",
        "  - sin th * re_G w + cos th * im_G w = coupling th w.",
        "  sin th * re_G w + cos th * im_G w = coupling th w.",
    ),
    (
        "rotary_phase_drift",
        "omega b * (t - u)) + acc) 0 bs.",
        "omega b * (t + u)) + acc) 0 bs.",
    ),
    (
        "rotary_phase_drift",
        "/\\ (forall a v, rot (- a) (rot a v) = v /\\",
        "/\\ (forall a v, rot a (rot a v) = v /\\",
    ),
    (
        "entropic_selection",
        "Definition softmax_i (tau Z s : R) : R := exp (s / tau) / Z.",
        "Definition softmax_i (tau Z s : R) : R := exp (s * tau) / Z.",
    ),
    # the energy without its factor 1/2, i.e. 2E (written - 1 * ...: a bare - sumN sends
    # Coq's unifier into the definitions of the reals for many minutes before it fails)
    ("coherence_gradient", "  - (1 / 2) * sumN (fun i", "  - 1 * sumN (fun i"),
    (
        "lohe_fixed_query",
        "  fun i => h i - dot n z h * z i.",
        "  fun i => h i + dot n z h * z i.",
    ),
    (
        "failure_odds",
        "(forall alpha d, 0 <= alpha <= PI / 2 -> rho alpha ^ d <= exp (- INR d * cos alpha ^ 2 / 2))",
        "(forall alpha d, 0 <= alpha <= PI / 2 -> rho alpha ^ d <= exp (- INR d * cos alpha ^ 2))",
    ),
    (
        "readout",
        "  if fst k then rpow (Rmax 0 (1 + snd k)) p else 0.",
        "  rpow (Rmax 0 (1 + snd k)) p.",
    ),
    (
        "readout",
        "  /\\ (forall ci cj, ci <= cj -> weight p ks (true, ci) <= weight p ks (true, cj))",
        "  /\\ (forall ci cj, cj <= ci -> weight p ks (true, ci) <= weight p ks (true, cj))",
    ),
    (
        "finite_time_threshold",
        "  /\\ a * hit_time a (PI / 2) delta = ln (cot (delta / 2))",
        "  /\\ a * hit_time a (PI / 2) delta = ln (tan (delta / 2))",
    ),
    (
        "finite_time_threshold",
        "  /\\ (forall u, cos (2 * atan (exp u)) = - tanh u /\\",
        "  /\\ (forall u, cos (2 * atan (exp u)) = tanh u /\\",
    ),
    # (sincos_float32's theorems state their specs, sincos_float32_spec.v: these mutants
    # break the proofs of the fused kernel and of the reduction's last step)
    (
        "sincos_float32",
        "  Rabs (sin_kernel_fma (rnd32 x) - sin_poly (rnd32 x)) <= 99 / 2147483648.",
        "  Rabs (sin_kernel_fma (rnd32 x) - sin_poly (rnd32 x)) <= 9 / 2147483648.",
    ),
    (
        "sincos_float32",
        "  /\\ Rabs (rnd32 (b - k * pio2_lo) - (b - k * pio2_lo)) <= 1 / 33554432.",
        "  /\\ Rabs (rnd32 (b - k * pio2_lo) - (b - k * pio2_lo)) <= 1 / 67108864.",
    ),
)
MUTANTS += (
    (
        "lohe_identities",
        "  fun i => G i - dot n z G * z i.",
        "  fun i => G i + dot n z G * z i.",
    ),
    (
        "lohe_identities",
        "        /\\ matrix_update t w = cscale (kuramoto_coupling t w) (cmul (0, 1) (cis t))).",
        "        /\\ matrix_update t w = cscale (kuramoto_coupling t w) (cmul (0, -1) (cis t))).",
    ),
)
# the one mutant the default run compiles (kuramoto_identity.v: about 2 s of CPU)
DEFAULT_MUTANT = MUTANTS[0]


def _source(name):
    return (COQ / f"{name}.v").read_text()


def _statement_names():
    return {p.stem.removeprefix("proof_") for p in (ROOT / "proofs").glob("proof_*.py")}


# --------------------------------------------------------------------------- sources
def test_every_coq_file_is_listed_in_the_coq_project_and_here():
    on_disk = {p.stem for p in COQ.glob("*.v")}
    assert on_disk == set(FILES)
    project = (COQ / "_CoqProject").read_text().split()
    assert project[:2] == ["-Q", "."] and project[2] == _coq.LOGICAL_PREFIX
    assert {Path(p).stem for p in project if p.endswith(".v")} == set(FILES)
    assert set(_coq.coq_files(verify.find_proofs())) == set(FILES)


def test_coq_files_are_named_after_their_statements():
    statements = _statement_names()
    for name in FILES:
        assert name in statements or name in COQ_ONLY, name
    assert "sincos_float32" in statements  # statement 20 (it was Coq-only)


@pytest.mark.parametrize("name", FILES)
def test_each_file_opens_with_its_statement_and_closes_with_its_main_theorem(name):
    src = _source(name)
    assert src.startswith("(** * "), name
    head = src[: src.index("*)")]
    for section in ("Informal statement", "Symbol map", "library:", "Assumes:"):
        assert section in head, f"{name}: header lacks {section!r}"
    if name not in COQ_ONLY:
        assert f"proofs/proof_{name}.py" in head
    # the main theorem is named after the file, and its Print Assumptions ends the file
    assert re.search(rf"^Theorem {name} :", src, re.M), name
    last = [line for line in src.strip().splitlines() if line.strip()][-1]
    assert last == f"Print Assumptions {name}.", name


@pytest.mark.parametrize("name", FILES)
def test_no_admitted_admit_or_axiom(name):
    assert _coq.forbidden_words(_source(name)) == []
    assert not re.search(
        r"\b(Admitted|admit|Axiom)\b", _coq.strip_comments(_source(name))
    )


def test_the_forbidden_word_scan_sees_through_nothing_but_comments():
    assert _coq.forbidden_words("Lemma a : True. Proof. admit. Admitted.") == [
        "Admitted",
        "admit",
    ]
    assert _coq.forbidden_words("Axiom cheat : False.") == ["Axiom"]
    assert _coq.forbidden_words("(* no Axiom, no admit here *) Qed.") == []


def test_the_mutants_apply_and_change_the_main_statement():
    assert {m[0] for m in MUTANTS} == set(FILES)  # every main theorem has a guard
    for name, old, new in MUTANTS:
        src = _source(name)
        assert src.count(old) == 1, (name, old)
        assert old != new


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
    assert _coq.disallowed_axioms(names, "From Coq Require Import Reals.") == [
        "PrimInt63.add",
        "Uint63.add_spec",
    ]
    assert _coq.disallowed_axioms(names, "From Interval Require Import Tactic.") == []
    assert _coq.disallowed_axioms(["cheat", "Classical_Prop.classic"], "") == ["cheat"]
    assert (
        _coq.disallowed_axioms(
            [
                "Classical_Prop.classic",
                "FunctionalExtensionality.functional_extensionality_dep",
            ],
            "",
        )
        == []
    )


# --------------------------------------------------------------------------- the verify column
def _fake_coqc(folder: Path, body: str) -> Path:
    """A stand-in ``coqc`` on a PATH of its own: ``--version`` and a compile."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "coqc"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "The Coq Proof Assistant, version fake"; exit 0; fi\n'
        f'echo run >> "{folder}/calls"\n' + body
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


@pytest.fixture
def no_sympy_checks(monkeypatch):
    """The column tests need no sympy checks: the run returns none (rows say skipped)."""
    monkeypatch.setattr(verify, "run", lambda *args, **kwargs: [])


def _verify(tmp_path, *extra, only=CHEAP):
    out = tmp_path / f"report{len(list(tmp_path.glob('report*')))}"
    rc = verify.main(
        ["--only", only, "--out", str(out), "--no-progress", "--jobs", "1", *extra]
    )
    report = json.loads((out / "report.json").read_text()) if out.exists() else None
    return rc, report


def test_without_coqc_the_column_says_not_installed_and_nothing_fails(
    no_sympy_checks, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    rc, report = _verify(tmp_path)
    assert rc == 0 and report["summary"]["ok"]
    assert report["statements"][0]["coq"] == "not installed"
    assert report["summary"]["coq"]["not_installed"] == 1
    assert "coq: not installed" in capsys.readouterr().out
    assert "coq: not installed" in (tmp_path / "report0" / "report.md").read_text()


def test_coq_flag_requires_coqc(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert verify.main(["--only", CHEAP, "--coq", "--out", str(tmp_path / "r")]) == 2
    assert "--coq needs coqc" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_no_coq_skips_the_column(no_sympy_checks, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(_fake_coqc(tmp_path / "bin", "exit 1\n")))
    rc, report = _verify(tmp_path, "--no-coq")
    assert rc == 0 and report["statements"][0]["coq"] == "-"
    assert not (tmp_path / "bin" / "calls").exists()


def test_a_compiling_file_is_checked_and_cached_by_its_hash(
    no_sympy_checks, tmp_path, monkeypatch
):
    bin_ = _fake_coqc(
        tmp_path / "bin",
        'echo "Axioms:"; echo "Classical_Prop.classic : forall P : Prop, P \\/ ~ P"\n',
    )
    monkeypatch.setenv("PATH", str(bin_))
    monkeypatch.setenv("SYNCATTN_COQ_CACHE", str(tmp_path / "cache"))
    rc, report = _verify(tmp_path, "--coq")
    assert rc == 0 and report["statements"][0]["coq"] == "checked"
    assert report["summary"]["coq"]["checked"] == 1
    assert (bin_ / "calls").read_text().count("run") == 1
    rc, report = _verify(tmp_path, "--coq")  # cached: coqc is not run again
    assert rc == 0 and report["statements"][0]["coq"] == "checked"
    assert (bin_ / "calls").read_text().count("run") == 1
    (cached,) = (tmp_path / "cache").glob("*.json")
    assert json.loads(cached.read_text())["axioms"] == ["Classical_Prop.classic"]


@pytest.mark.parametrize(
    "body, error",
    [
        ('echo "Error: bad proof" >&2; exit 1\n', "coqc exit 1"),
        (
            'echo "Axioms:"; echo "cheat : False"\n',
            "axioms outside the allowlist: cheat",
        ),
        ("exit 0\n", "no Print Assumptions"),
    ],
)
def test_a_rejected_file_fails_the_run(
    no_sympy_checks, tmp_path, monkeypatch, capsys, body, error
):
    monkeypatch.setenv("PATH", str(_fake_coqc(tmp_path / "bin", body)))
    monkeypatch.setenv("SYNCATTN_COQ_CACHE", str(tmp_path / "cache"))
    rc, report = _verify(tmp_path)
    assert rc == 1 and not report["summary"]["ok"]
    row = report["statements"][0]
    assert row["coq"] == "FAIL" and error in row["coq_error"]
    assert "FAIL coq proofs/coq/rotary_phase_drift.v" in capsys.readouterr().out
    assert not list((tmp_path / "cache").glob("*.json"))  # failures are not cached


def test_the_table_lists_the_coq_only_files_when_everything_is_selected():
    rows = [
        dict(
            number=1,
            name="a",
            kind="symbolic",
            passed=1,
            failed=0,
            skipped=0,
            result="pass",
            coq="checked",
            seconds=0.1,
        )
    ]
    only = [
        dict(
            name="sincos_float32",
            result="not installed",
            seconds=0.0,
            file="proofs/coq/sincos_float32.v",
        )
    ]
    table = verify._table(rows, only)
    assert "coq: checked" in table and "sincos_float32" in table
    assert "coq: not installed" in table


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
def _compile(path: Path):
    return _coq.compile_file(path, shutil.which("coqc"), timeout=900)


@pytest.fixture(scope="session")
def small_file_result():
    """kuramoto_identity.v compiled once per session through the verify machinery."""
    if NO_COQC:
        pytest.skip("coqc not on PATH")
    return _coq.check_all({"kuramoto_identity": COQ / "kuramoto_identity.v"})[
        "kuramoto_identity"
    ]


@needs_coqc
def test_the_small_file_compiles_with_only_real_number_axioms(small_file_result):
    r = small_file_result
    assert r.result == "checked", r.error
    assert set(r.axioms) <= _coq.REAL_AXIOMS and r.axioms


def _mutant_rejected(tmp_path, name, old, new):
    mutant = tmp_path / f"{name}.v"
    mutant.write_text(_source(name).replace(old, new, 1))
    rc, output = _compile(mutant)
    assert rc != 0, f"coqc accepted the mutant of {name}: {new!r}"
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
def test_every_coq_file_checks_with_only_allowed_axioms():
    """The full build (minutes on two cores): every file compiles and its Print Assumptions
    lists only the real-number axioms (and, with Interval, the primitive integers)."""
    results = _coq.check_all(
        {n: COQ / f"{n}.v" for n in FILES}, jobs=min(2, os.cpu_count() or 1)
    )
    for name, r in results.items():
        assert r.result == "checked", (name, r.error)
        uses_interval = "From Interval Require" in _source(name)
        for a in r.axioms:
            assert a in _coq.REAL_AXIOMS or (
                uses_interval and a.startswith(_coq.PRIMITIVE_PREFIXES)
            ), (name, a)


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
    assert {p.stem for p in (tmp_path / "build").glob("*.vo")} == set(FILES)
    assert sorted(COQ.iterdir()) == before  # nothing built beside the sources
