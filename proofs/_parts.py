"""The registry of what each statement claims and what proves each claim.

Every ``proof_<name>.py`` module lists its claims as ``PARTS``, a tuple of
:class:`Part`. A part is proved by exactly one of:

* ``"coq"``: the theorem ``<coq>`` of ``proofs/coq/<name>.v``, whose type must be
  *exactly* the specification ``<coq>_spec`` of ``proofs/coq/<name>_spec.v``
  (``syncattn verify --coq`` compiles ``Check (<name>.<coq> : <name>_spec.<coq>_spec)``);
* ``"sympy"``: an exact symbolic computation with float64 checks of the library and
  mutants (the ``test_*`` checks of the module);
* ``"measured"``: a numerical check only (a simulation, a Monte Carlo estimate).

A part that is not ``"coq"`` says in ``why`` why it is not formalised.

A module with Coq parts pins its specification file: ``COQ_SPEC_SHA256`` is the
SHA-256 of ``proofs/coq/<name>_spec.v``. The shared definitions
``proofs/coq/CoreSpec.v`` are pinned here, in :data:`CORE_SPEC_SHA256`. A changed
specification fails ``verify --coq`` with "specification changed: review it, then
update the pin"; ``python -m syncattn.verify --pins`` prints the current hashes.

Both ``verify``'s table and ``docs/coq.md``'s coverage table are generated from these
declarations.
"""

from __future__ import annotations

import dataclasses


KINDS = ("coq", "sympy", "measured")

# SHA-256 of proofs/coq/CoreSpec.v (the definitions every specification imports).
CORE_SPEC_SHA256 = "4dc22acb759a65cffc1a2fec25b20b58e10920acfc9e426360ea582a904444c1"


@dataclasses.dataclass(frozen=True)
class Part:
    """One claim of a statement.

    Args:
        label: short label, unique in the statement (``"a"``, ``"b(ii)"``).
        claim: the claim in one sentence, as a reader would check it.
        kind: ``"coq"``, ``"sympy"`` or ``"measured"`` (what proves it).
        coq: for ``kind="coq"``: the theorem name in ``proofs/coq/<statement>.v``; its
            specification is ``<coq>_spec`` in ``proofs/coq/<statement>_spec.v``.
        why: for the other kinds: why this claim is not proved in Coq.
    """

    label: str
    claim: str
    kind: str
    coq: str | None = None
    why: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"Part {self.label!r}: kind must be one of {KINDS}, got {self.kind!r}"
            )
        if not self.label or not self.claim.strip():
            raise ValueError("Part needs a non-empty label and claim")
        if self.kind == "coq":
            if not self.coq or not self.coq.isidentifier():
                raise ValueError(
                    f"Part {self.label!r}: a coq part names its theorem (coq='name'), got {self.coq!r}"
                )
        else:
            if self.coq is not None:
                raise ValueError(
                    f"Part {self.label!r}: only a coq part names a theorem"
                )
            if not (self.why and self.why.strip()):
                raise ValueError(
                    f"Part {self.label!r} ({self.kind}): say why it is not in Coq (why='...')"
                )
