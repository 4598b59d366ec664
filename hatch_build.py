"""Hatch build hook: ship the repository's ``proofs/`` inside the wheel as ``syncattn/_proofs``.

``syncattn verify`` runs the proof modules; an installed wheel must carry them,
but not as a generic top-level ``proofs`` package in site-packages. The proofs
import each other relatively (``from ._harness import ...``), so they work as
``proofs`` in the source tree and as ``syncattn._proofs`` when installed;
``syncattn.verify.find_proofs`` looks in ``syncattn/_proofs`` first. Only
standard wheels get the copy: an editable install reads ``proofs/`` from the
checkout, so no stale copy lands in site-packages.
"""

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ProofsInWheel(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name == "wheel" and version == "standard":
            build_data["force_include"]["proofs"] = "syncattn/_proofs"
