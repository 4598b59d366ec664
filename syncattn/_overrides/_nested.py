"""Sub-configs: a dataclass field whose annotation is itself a dataclass (one level),
set by dotted keys (``sync.sphere_dim=3``). Part of `syncattn._overrides`: the
standard library only."""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping
from typing import Any


__all__ = ["field_types", "is_nested", "merge", "put"]


@functools.cache
def field_types(cls: type) -> dict[str, Any]:
    """``{field: annotation}`` of the dataclass `cls`, in field order."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def is_nested(tp: Any) -> bool:
    """Whether the annotation `tp` is a dataclass: a sub-config, set as ``field.sub=VALUE``."""
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def put(out: dict[str, Any], key: str, value: Any) -> None:
    """``out[key] = value``; a dotted ``field.sub`` goes to ``out[field][sub]`` (a dict
    of the sub-config's changes, merged by [`merge`][syncattn._overrides.merge])."""
    head, dot, sub = key.partition(".")
    if dot:
        out.setdefault(head, {})[sub] = value
    else:
        out[key] = value


def merge(base: Any, changes: Mapping[str, Any], cls: type | None = None) -> dict[str, Any]:
    """`changes` with each nested field's dict of sub-changes applied to the value it
    has in `base` (a dataclass instance or a ``{field: value}`` dict; where `base` lacks
    the field, the field's default): ``merge(cfg, {"sync": {"readout": "vonmises"}})``
    gives ``{"sync": replace(cfg.sync, readout="vonmises")}``."""
    cls = cls or type(base)
    types_ = field_types(cls)
    defaults = {f.name: f for f in dataclasses.fields(cls)}
    out = dict(changes)
    for key, value in changes.items():
        tp = types_.get(key)
        if not is_nested(tp) or not isinstance(value, Mapping):
            continue
        if isinstance(base, Mapping):
            current = base.get(key)
        else:
            current = getattr(base, key, None)
        if current is None:
            f = defaults[key]
            current = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if isinstance(current, Mapping):
            current = tp(**current)
        out[key] = dataclasses.replace(current, **value)
    return out
