"""``KEY=VALUE`` items as written: split into keys and values, stacked in layers, and
the errors a key can have (malformed, unknown, given twice). Part of
`syncattn._overrides`: the standard library only."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


__all__ = ["Items", "OverrideError", "split", "stack", "unknown_key"]


Items = Iterable[str] | Iterable[tuple[str, Any]] | Mapping[str, Any]
"""``"key=value"`` strings, ``(key, value)`` pairs or a ``{key: value}`` mapping."""


class OverrideError(ValueError):
    """A bad ``KEY=VALUE`` override: malformed, unknown key, wrong type, given twice."""

    exit_code = 2


def split(item: str) -> tuple[str, str]:
    """``"key=value"`` as ``(key, value text)``, the key stripped (the value's first
    ``=`` splits: ``train=lr=1e-3`` is key ``train``).

    Raises:
        OverrideError: ``overrides are KEY=VALUE; got ...`` without ``=`` or a key.
    """
    key, sep, value = str(item).partition("=")
    key = key.strip()
    if not sep or not key:
        raise OverrideError(f"overrides are KEY=VALUE; got {item!r}.")
    return key, value


def _pairs(items: Items) -> list[tuple[str, Any, str]]:
    """``(key, value, how it was written)`` for each item."""
    if isinstance(items, Mapping):
        return [(str(k), v, f"{k}={v}") for k, v in items.items()]
    if isinstance(items, str):
        raise OverrideError(
            f"overrides are a list of KEY=VALUE items; got the string {items!r}."
        )
    out = []
    for item in items:
        if isinstance(item, tuple) and len(item) == 2:
            out.append((str(item[0]), item[1], f"{item[0]}={item[1]}"))
        else:
            key, text = split(item)
            out.append((key, text, str(item).strip()))
    return out


def unknown_key(
    key: str, valid: Iterable[str], what: str = "config", listing: str | None = None
) -> OverrideError:
    """``unknown {what} key 'd_os' (did you mean 'd_osc'?); valid keys: ...`` (the
    suggestion only when a field is close, by ``difflib``; `listing` replaces the
    comma-separated `valid`)."""
    valid = list(valid)
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    listing = ", ".join(valid) if listing is None else listing
    return OverrideError(f"unknown {what} key {key!r}{hint}; valid keys: {listing}.")


def _twice(key: str, first: str, second: str) -> OverrideError:
    return OverrideError(
        f"{key} is given twice ({first!r} and {second!r}); give each key once."
    )


def stack(*layers: Items) -> dict[str, Any]:
    """One ``{key: value}`` from layers of overrides, a later layer's key replacing an
    earlier one's; keys stay in the order of first mention. Within one layer a key
    given twice is an error (layers are a program's fixed refinements: a recipe, a
    cell's settings, a user's ``train=``). Values are kept as given (text is parsed
    later, by the target's types).

    Raises:
        OverrideError: a malformed item, or a key given twice within one layer.
    """
    merged: dict[str, Any] = {}
    for layer in layers:
        seen: dict[str, str] = {}
        for key, value, written in _pairs(layer):
            if key in seen:
                raise _twice(key, seen[key], written)
            seen[key] = written
            merged[key] = value
    return merged
