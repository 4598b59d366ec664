"""Griffe extensions for the API reference (loaded by mkdocstrings, see mkdocs.yml)."""

from __future__ import annotations

import re

import griffe


class ExampleSection(griffe.Extension):
    """Read a Google-style ``Example:`` section as ``Examples:``.

    Google style (and Sphinx napoleon) accept both spellings; griffe's parser only the
    plural, and would render the singular as an admonition of plain text, so doctest
    lines such as ``>>> f(x)`` / ``[0.01, 0.707]`` lost their code block.
    """

    _SINGULAR = re.compile(r"^(\s*)Example:[ \t]*$", re.M)

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = self._SINGULAR.sub(
                r"\1Examples:", obj.docstring.value
            )
