"""mkdocs hooks for the syncattn site.

* Include: a line ``<!-- include: PATH -->`` (PATH from the repository root)
  is replaced by that file, or by the part of it from the first line starting
  with ``start="TEXT"`` up to (not including) the first later line starting
  with ``end="TEXT"``. The home page is README.md this way (one text for GitHub
  and the site), and the theory index reuses the statement table of
  proofs/README.md.
* Relative links are resolved against the file they were written in (README.md
  for the home page). Links that stay inside ``docs/`` are rewritten relative
  to the page (a folder link goes to its ``index.md``); links into the rest of
  the source tree (``proofs/proof_x.py``, ``examples/``) have no page in the site,
  so they become their plain text there, and keep working on GitHub.
* Equations are rendered at build time: every ``pymdownx.arithmatex`` span or
  block (``\\(...\\)``, ``\\[...\\]``) becomes MathML (latex2mathml, pure
  Python, in the ``docs`` extra), so the built site shows its equations with no
  network and no JavaScript. A command that latex2mathml would leave as raw text
  fails the build, naming the page and the expression.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
_INCLUDE = re.compile(
    r'^<!-- include: (?P<path>\S+)(?: start="(?P<start>[^"]*)")?(?: end="(?P<end>[^"]*)")? -->$',
    re.M,
)
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+)\)")
_EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|#|/)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def _rewrite_links(markdown: str, source: Path, page_dir: Path, docs_dir: Path) -> str:
    def link(m: re.Match) -> str:
        bang, text, target = m.groups()
        if _EXTERNAL.match(target):
            return m.group(0)
        path, sep, anchor = target.partition("#")
        resolved = (source.parent / path).resolve()
        if not resolved.is_relative_to(docs_dir):
            return text
        if resolved.is_dir():
            resolved = resolved / "index.md"
        new = Path(os.path.relpath(resolved, page_dir)).as_posix()
        return f"{bang}[{text}]({new}{sep}{anchor})"

    # leave fenced code alone: rewrite only the text between fences
    out, last = [], 0
    for fence in _FENCE.finditer(markdown):
        out += [_LINK.sub(link, markdown[last : fence.start()]), fence.group(0)]
        last = fence.end()
    out.append(_LINK.sub(link, markdown[last:]))
    return "".join(out)


def _excerpt(text: str, start: str | None, end: str | None, where: str) -> str:
    lines = text.splitlines(keepends=True)
    i = 0
    if start is not None:
        i = next((k for k, line in enumerate(lines) if line.startswith(start)), None)
        if i is None:
            raise ValueError(f"{where}: no line starting with {start!r}")
    j = len(lines)
    if end is not None:
        j = next(
            (k for k in range(i + 1, len(lines)) if lines[k].startswith(end)), None
        )
        if j is None:
            raise ValueError(f"{where}: no line starting with {end!r} after {start!r}")
    return "".join(lines[i:j])


def on_page_markdown(markdown, page, config, files):
    docs_dir = Path(config["docs_dir"]).resolve()
    page_path = docs_dir / page.file.src_uri
    out, last = [], 0
    for m in _INCLUDE.finditer(markdown):
        out.append(
            _rewrite_links(
                markdown[last : m.start()], page_path, page_path.parent, docs_dir
            )
        )
        source = ROOT / m["path"]
        text = _excerpt(
            source.read_text(encoding="utf-8"),
            m["start"],
            m["end"],
            f"{page.file.src_uri}: {m['path']}",
        )
        out.append(_rewrite_links(text, source, page_path.parent, docs_dir))
        last = m.end()
    out.append(_rewrite_links(markdown[last:], page_path, page_path.parent, docs_dir))
    return "".join(out)


# ------------------------------------------------------------------ equations at build time
_MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
_DELIMS = {"\\(": "\\)", "\\[": "\\]"}
# commands latex2mathml does not know, written as ones it does
_SPELLINGS = {r"\arg": r"\operatorname{arg}", r"\Vert": r"\|"}
_LEFTOVER = re.compile(r">[^<]*\\[A-Za-z]+[^<]*<")


def tex_to_mathml(tex: str, display: bool) -> str:
    """One TeX expression (without delimiters) as a MathML ``<math>`` element.

    Raises ValueError when the conversion fails or leaves a TeX command as raw text.
    """
    from latex2mathml.converter import convert

    for old, new in _SPELLINGS.items():
        tex = re.sub(re.escape(old) + r"(?![A-Za-z])", lambda _m, n=new: n, tex)
    try:
        out = convert(tex, display="block" if display else "inline")
    except Exception as err:  # latex2mathml raises its own exception types
        raise ValueError(f"cannot render {tex!r}: {err}") from err
    leftover = _LEFTOVER.search(out)
    if leftover:
        raise ValueError(f"cannot render {tex!r}: {leftover.group(0)[1:-1]!r} left raw")
    return out


def render_math(content: str, where: str = "page") -> str:
    """Replace every arithmatex span/block of an HTML fragment by MathML."""

    def one(m: re.Match) -> str:
        tag, body = m.groups()
        tex = html.unescape(body).strip()
        opening = tex[:2]
        if opening not in _DELIMS or not tex.endswith(_DELIMS[opening]):
            raise ValueError(f"{where}: unexpected math markup {tex[:60]!r}")
        try:
            mathml = tex_to_mathml(tex[2:-2], display=opening == "\\[")
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        return f'<{tag} class="arithmatex">{mathml}</{tag}>'

    return _MATH.sub(one, content)


_INLINE_TEX = re.compile(r"\\\((.*?)\\\)|\$(.+?)\$")
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SUP = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_TOKEN = re.compile(r"<(m[ion]|mtext)[^>]*>([^<]*)</\1>")


def plain_title(title: str) -> str:
    """A title with its inline equations as plain Unicode text (for the navigation and
    the browser tab, which show text, not MathML): ``\\(\\|h\\|T = \\log\\cot(\\delta/2)\\)``
    becomes ``‖h‖T = log cot(δ/2)``."""

    def one(m: re.Match) -> str:
        tex = html.unescape(m.group(1) if m.group(1) is not None else m.group(2))
        tex = re.sub(r"_\{?(\d+)\}?", lambda d: d.group(1).translate(_SUB), tex)
        tex = re.sub(r"\^\{?(\d+)\}?", lambda d: d.group(1).translate(_SUP), tex)
        words: list[str] = []
        for tag, text in _TOKEN.findall(tex_to_mathml(tex, display=False)):
            text = html.unescape(text).strip()
            if not text:
                continue
            if tag == "mo" and text in "=<>≤≥≈+−-":
                words.append(f" {text} ")
            elif (
                words and len(text) > 1 and text.isalpha() and words[-1][-1:].isalnum()
            ):
                words.append(" " + text)  # log cot
            elif (
                words
                and len(words[-1]) > 1
                and words[-1].strip().isalpha()
                and text.isalnum()
            ):
                words.append(" " + text)  # cot x
            else:
                words.append(text)
        return " ".join("".join(words).split())

    return _INLINE_TEX.sub(one, title)


def _plain_toc(items) -> None:
    """The table of contents shows text too: its entries' equations as Unicode."""
    for item in items:
        if "\\(" in item.title:
            item.title = plain_title(item.title)
        _plain_toc(item.children)


def on_page_content(html_content, page, config, files):
    title = page.title or ""
    if "\\(" in title or "$" in title:
        page.meta["title"] = plain_title(title)
    _plain_toc(page.toc or [])
    return render_math(html_content, page.file.src_uri)
