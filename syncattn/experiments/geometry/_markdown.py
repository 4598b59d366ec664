"""The geometry experiment's tables in Markdown (``gaps.md``): docs/experiments.md quotes them."""

from __future__ import annotations

from ._families import BEST


HEAD = (
    "| family | N (vs softmax) | state / token | best lr | test BPC "
    "| gap to softmax, paired 95 % t | p (Holm) "
    "| F − Kuramoto, paired 95 % t | p (Holm) | closes |"
)


def _num(x: float, digits: int = 3) -> str:
    """``+0.180`` with a true minus sign (``−0.036``)."""
    return f"{x:+.{digits}f}".replace("-", "−")


def _ci(d: dict) -> str:
    """``+0.180 [+0.155, +0.205]``, bold where Holm's adjusted p is below 0.05."""
    if d.get("mean") is None:
        return ""
    ci = d.get("ci")
    text = _num(d["mean"]) + (f" [{_num(ci[0])}, {_num(ci[1])}]" if ci else "")
    return (
        f"**{text}**" if (d.get("p_holm") is not None and d["p_holm"] < 0.05) else text
    )


def _p(d: dict) -> str:
    """``0.0017 (0.032)``: the paired t test's p and Holm's adjusted p."""
    if d.get("p") is None:
        return ""
    holm = "" if d.get("p_holm") is None else f" ({d['p_holm']:.2g})"
    return f"{d['p']:.2g}{holm}"


def _closed(c: dict) -> str:
    """``20 % [−34, 74]`` (the interval when there)."""
    if c.get("fraction") is None:
        return ""
    ci = c.get("ci")
    tail = f" [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]" if ci else ""
    return f"{100 * c['fraction']:.0f} %{tail}".replace("-", "−")


def _label(name: str, g: dict, choice: dict | None) -> str:
    if name == "softmax":
        return "softmax (ladder)"
    label = f"{g['number']} {name}"
    if name == "kuramoto":
        return label + " (ladder)"
    if name == BEST and choice and choice.get("components"):
        parts = [c.removeprefix("kuramoto-") for c in choice["components"]]
        return label + f" ({' + '.join(parts)})"
    return label


def _row(name: str, g: dict, best_lr, choice) -> str:
    s = g["shape"]
    refs = name in ("softmax", "kuramoto")
    count = f"{s['params']:,}" + (
        ""
        if name == "softmax"
        else f" ({100 * s['mismatch']:+.1f} %)".replace("-", "−")
    )
    test = g["test"]
    bpc = "" if test.get("mean") is None else f"{test['mean']:.3f}"
    if test.get("std") is not None:
        bpc += f" ± {test['std']:.3f}"
    cells = [
        _label(name, g, choice),
        count,
        str(s["state_size"]),
        "" if best_lr is None else f"{best_lr:g}",
        bpc,
        "" if name == "softmax" else _ci(g["gap"]),
        "" if name == "softmax" else _p(g["gap"]),
        "" if refs else _ci(g["vs_kuramoto"]),
        "" if refs else _p(g["vs_kuramoto"]),
        "" if refs else _closed(g["closed"]),
    ]
    return "| " + " | ".join(cells) + " |"


def markdown(agg: dict) -> str:
    """One table per rung: each family's count, state size, lr, test BPC, paired gap to
    softmax and difference to Kuramoto (mean, 95 % t interval), their p-values with
    Holm's adjustment in brackets (over the ``multiplicity`` tests of each kind, said in
    the heading line), and the fraction of the Kuramoto gap closed; a comparison whose
    adjusted p is below 0.05 is bold."""
    m = agg.get("multiplicity") or {}
    out = [
        f"p: the paired t test's two-sided p-value; in brackets Holm's adjusted p over the "
        f"{m.get('gap', 0)} gaps to softmax and the {m.get('vs_kuramoto', 0)} differences "
        "to Kuramoto the report makes (bold: adjusted p < 0.05).",
    ]
    for e in agg["rungs"]:
        out += ["", f"**{e['name']}**", "", HEAD, "|---" * 10 + "|"]
        names = sorted(e["families"], key=lambda n: n != "softmax")  # softmax first
        rows = [
            _row(n, e["families"][n], e["best_lr"].get(n), agg.get("choice"))
            for n in names
        ]
        out += rows
    return "\n".join(out) + "\n"
