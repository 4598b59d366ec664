r"""``KEY=VALUE`` overrides of a frozen config, typed by the dataclass's field annotations.

The one parser of ``syncattn train``, ``syncattn experiment`` and ``syncattn study``
(and of [`syncattn.models.get_config`][] / [`syncattn.training.parse_overrides`][]).
A leaf: it imports only the standard library.

* A value is parsed from its text by the field's annotation
  ([`parse_value`][syncattn._overrides.parse_value]): ``int``, ``float``, ``bool``
  (``true/false``, ``1/0``, ``yes/no``, ``on/off``), ``str``, ``X | None`` (``none``
  or ``null``), ``Literal[...]``, ``tuple[X, ...]`` (``0,1,2``; an int range ``0-4``,
  both ends included; an empty text is ``()``) and ``tuple[X, Y]``. A Python value
  (not text) is checked against the same annotation instead (an ``int`` for a
  ``float`` field becomes a ``float``).
* An unknown key is an error that suggests the closest field and lists them all;
  a key given twice is an error.
* A field whose annotation is a dataclass is a sub-config, set one field at a time by
  a dotted key (``sync.sphere_dim=3``; one level): the parsed result holds
  ``{"sync": {"sphere_dim": 3}}``, which [`merge`][syncattn._overrides.merge] applies
  to the current sub-config. An unknown sub-key is an error like an unknown key.
* Keys may carry a group prefix (``train.lr``, ``model.d_osc``, ``data.vocab_size``,
  [`parse_grouped`][syncattn._overrides.parse_grouped]).

Every error is an [`OverrideError`][syncattn._overrides.OverrideError] (a
``ValueError``, exit status 2) with one of these messages::

    overrides are KEY=VALUE; got 'd_osc'.
    unknown model key 'd_os' (did you mean 'd_osc'?); valid keys: name, task, ...
    d_osc must be an int; got 'eight'.
    d_osc is given twice ('d_osc=4' and 'd_osc=8'); give each key once.
"""

from __future__ import annotations

import dataclasses
import types
import typing
import warnings
from collections.abc import Mapping
from typing import Any

from ._items import Items, OverrideError, _pairs, _twice, split, stack, unknown_key
from ._nested import field_types, is_nested, merge, put


__all__ = [
    "OverrideError",
    "apply",
    "check_value",
    "deprecated_item",
    "field_types",
    "is_nested",
    "lookup",
    "merge",
    "parse_grouped",
    "parse_items",
    "parse_value",
    "split",
    "stack",
    "unknown_key",
]

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_NONE = ("none", "null")


# --------------------------------------------------------------------------- types


def _describe(tp: Any) -> str:
    if tp is Any:
        return "a value"
    if tp is bool:
        return "a bool (true/false)"
    if tp in (int, float, str):
        return {int: "an int", float: "a float", str: "a str"}[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return f"one of {', '.join(map(str, args))}"
    if _is_union(tp):
        return " or ".join("None" if a is type(None) else _describe(a) for a in args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a comma-separated list of {_plain(args[0])}"
        return f"{len(args)} comma-separated values ({', '.join(map(_plain, args))})"
    return getattr(tp, "__name__", str(tp))


def _plain(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


def _is_union(tp: Any) -> bool:
    return isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union


def _bad(key: str, tp: Any, value: Any) -> OverrideError:
    return OverrideError(f"{key} must be {_describe(tp)}; got {value!r}.")


def _guess(text: str) -> Any:
    """An untyped value (an open group's option): None, a bool, an int, a float, else
    the text."""
    s = text.strip()
    low = s.lower()
    if low in _NONE:
        return None
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(s)
        except ValueError:
            pass
    return s


def parse_value(key: str, tp: Any, value: Any) -> Any:
    """`value` as a value of annotation `tp` for field `key`: parsed when it is text,
    checked (see [`check_value`][syncattn._overrides.check_value]) otherwise.

    Raises:
        OverrideError: ``"{key} must be {type}; got {value!r}."``
    """
    if not isinstance(value, str):
        return check_value(key, tp, value)
    return _from_text(key, tp, value)


def _from_text(key: str, tp: Any, text: str) -> Any:
    s = text.strip()
    if tp is Any:
        return _guess(s)
    if tp is str:
        return s
    if tp is bool:
        if s.lower() in _TRUE:
            return True
        if s.lower() in _FALSE:
            return False
        raise _bad(key, tp, text)
    if tp in (int, float):
        try:
            return tp(s)
        except ValueError:
            raise _bad(key, tp, text) from None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        for a in args:
            if str(a) == s:
                return a
        raise _bad(key, tp, text)
    if _is_union(tp):
        if type(None) in args and s.lower() in _NONE:
            return None
        return _first_member(_from_text, key, tp, s, text)
    if origin is tuple:
        return _tuple_from_text(key, tp, args, s)
    if is_nested(tp):
        names = ", ".join(f"{key}.{f}" for f in field_types(tp))
        raise OverrideError(
            f"{key} is a group of fields; set them one by one: {names}."
        )
    raise OverrideError(f"{key}: a field of type {_plain(tp)} cannot be set from text.")


def _first_member(convert, key: str, tp: Any, value: Any, shown: Any) -> Any:
    """``convert(key, member, value)`` for the first member of the union `tp` (other
    than ``None``) that accepts `value`."""
    for member in typing.get_args(tp):
        if member is type(None):
            continue
        try:
            return convert(key, member, value)
        except OverrideError:
            pass
    raise _bad(key, tp, shown)


def _tuple_from_text(key: str, tp: Any, args: tuple, s: str) -> tuple:
    s = s.strip("()[] ")
    parts = [p.strip().strip("'\"") for p in s.split(",") if p.strip()]
    if len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if item is int and len(parts) == 1 and "-" in parts[0][1:]:
            lo_text, hi_text = (
                parts[0].rsplit("-", 1)
                if not parts[0].startswith("-")
                else (parts[0], "")
            )
            try:
                lo, hi = int(lo_text), int(hi_text)
            except ValueError:
                raise _bad(key, tp, s) from None
            if hi < lo:
                raise OverrideError(f"{key}: the range {s!r} is empty.")
            return tuple(range(lo, hi + 1))
        try:
            return tuple(_from_text(key, item, p) for p in parts)
        except OverrideError:
            raise _bad(key, tp, s) from None
    if len(parts) != len(args):
        raise _bad(key, tp, s)
    try:
        return tuple(_from_text(key, a, p) for a, p in zip(args, parts, strict=True))
    except OverrideError:
        raise _bad(key, tp, s) from None


def check_value(key: str, tp: Any, value: Any) -> Any:
    """A Python value checked against annotation `tp`, as a dataclass's
    ``__post_init__`` needs it: returned as it is, except an ``int`` for a ``float``
    (returned as ``float``), an integral ``float`` for an ``int`` and a list for a
    tuple.

    Raises:
        OverrideError: ``"{key} must be {type}; got {value!r}."``
    """
    if tp is Any:
        return value
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _bad(key, tp, value)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise _bad(key, tp, value)
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _bad(key, tp, value)
    if tp is str:
        if isinstance(value, str):
            return value
        raise _bad(key, tp, value)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        if value in args:
            return value
        raise _bad(key, tp, value)
    if _is_union(tp):
        if value is None and type(None) in args:
            return None
        return _first_member(check_value, key, tp, value, value)
    if origin is tuple:
        if not isinstance(value, (tuple, list)):
            raise _bad(key, tp, value)
        try:
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(check_value(key, args[0], v) for v in value)
            if len(value) != len(args):
                raise _bad(key, tp, value)
            return tuple(
                check_value(key, a, v) for a, v in zip(args, value, strict=True)
            )
        except OverrideError:
            raise _bad(key, tp, value) from None
    if is_nested(tp) and isinstance(value, Mapping):
        # a sub-config given as the dict of a config.json: parsed and checked by its fields
        return tp(**parse_items(value, tp, key))
    if isinstance(tp, type) and not isinstance(value, tp):
        raise _bad(key, tp, value)
    return value


# --------------------------------------------------------------------------- keys


def _fields(target: type | Mapping[str, Any]) -> dict[str, Any]:
    return dict(target) if isinstance(target, Mapping) else field_types(target)


def parse_items(
    items: Items, target: type | Mapping[str, Any], what: str = "config"
) -> dict[str, Any]:
    """``{field: typed value}`` from `items` for the dataclass `target` (or a
    ``{field: annotation}`` mapping).

    Raises:
        OverrideError: a malformed item, an unknown key (with the closest field and
            the list), a value of the wrong type, a key given twice.
    """
    fields = _fields(target)
    out: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for key, value, written in _pairs(items):
        tp = lookup(fields, key, what)
        if key in seen:
            raise _twice(key, seen[key], written)
        # a whole sub-config and one of its fields: given twice
        head, dot, _ = key.partition(".")
        other = (
            (head if head in seen else None)
            if dot
            else next((k for k in seen if k.startswith(key + ".")), None)
        )
        if other is not None:
            raise _twice(head, seen[other], written)
        seen[key] = written
        put(out, key, _parse(key, tp, value, what))
    return out


def _parse(key: str, tp: Any, value: Any, what: str) -> Any:
    # a sub-config given as a mapping: its parsed changes (merged onto the current one)
    if is_nested(tp) and isinstance(value, Mapping):
        return parse_items(value, tp, f"{what} {key}")
    return parse_value(key, tp, value)


def lookup(fields: Mapping[str, Any], key: str, what: str = "config") -> Any:
    """The annotation of `key` in `fields`: a field, or ``field.sub`` of a nested
    dataclass field (one level).

    Raises:
        OverrideError: an unknown key, or an unknown sub-key of a nested field (with
            the closest sub-field and the list of them).
    """
    head, dot, sub = key.partition(".")
    if not dot:
        if key not in fields:
            raise unknown_key(key, fields, what)
        return fields[key]
    if head not in fields or not is_nested(fields[head]):
        nested = [f for f, t in fields.items() if is_nested(t)]
        listing = ", ".join(list(fields) + [f"{f}.FIELD" for f in nested])
        raise unknown_key(
            key,
            list(fields) + [f"{f}.{s}" for f in nested for s in field_types(fields[f])],
            what,
            listing,
        )
    subfields = field_types(fields[head])
    if sub not in subfields:
        raise unknown_key(sub, subfields, f"{what} {head}")
    return subfields[sub]


def apply(config: Any, items: Items, what: str = "config") -> Any:
    """``dataclasses.replace(config, **parse_items(items, type(config)))``: `config`
    with `items` applied (the dataclass's ``__post_init__`` then checks the whole)."""
    changes = parse_items(items, type(config), what)
    return dataclasses.replace(config, **merge(config, changes)) if changes else config


def parse_grouped(
    items: Items, groups: Mapping[str, type | Mapping[str, Any] | None]
) -> dict[str, dict[str, Any]]:
    """Per-group ``{field: typed value}`` from `items` whose keys may carry a group
    prefix (``train.lr=1e-3``, ``model.d_model=64``).

    A bare key goes to the one group that has such a field; a group given as
    ``None`` is open (any option, always prefixed, typed by
    [`parse_value`][syncattn._overrides.parse_value]'s guess: None, bool, int, float,
    else the text).

    Raises:
        OverrideError: a malformed item, a key no group knows (with the closest key
            and every valid one), a bare key two groups share (the message says which
            prefix to add), a wrong type, a key given twice (also as ``lr`` and
            ``train.lr``).
    """
    fields = {g: None if f is None else _fields(f) for g, f in groups.items()}
    out: dict[str, dict[str, Any]] = {g: {} for g in groups}
    seen: dict[tuple[str, str], str] = {}
    for key, value, written in _pairs(items):
        group, dot, field = key.partition(".")
        if dot and group in fields:
            known = fields[group]
            if known is not None:
                lookup(known, field, group)
        else:
            owners = [
                g for g, fs in fields.items() if fs is not None and _knows(fs, key)
            ]
            if not owners and dot:  # an unknown field of a sub-config: its own message
                for fs in fields.values():
                    if fs is not None and is_nested(fs.get(group)):
                        lookup(fs, key)
            if not owners:
                valid = [f for fs in fields.values() if fs is not None for f in fs]
                listing = "; ".join(
                    f"{g}: {', '.join(fs)}" if fs is not None else f"{g}.OPTION"
                    for g, fs in fields.items()
                )
                raise unknown_key(key, dict.fromkeys(valid), "config", listing)
            if len(owners) > 1:
                raise OverrideError(
                    f"key {key!r} is a field of {' and '.join(owners)}; write it with a "
                    f"prefix, e.g. {owners[0]}.{key}={value}."
                )
            group, field = owners[0], key
        if (group, field) in seen:
            raise _twice(f"{group}.{field}", seen[group, field], written)
        seen[group, field] = written
        tp = Any if fields[group] is None else lookup(fields[group], field, group)
        if fields[group] is None:
            out[group][field] = parse_value(field, tp, value)
        else:
            put(out[group], field, _parse(field, tp, value, group))
    return out


def _knows(fields: Mapping[str, Any], key: str) -> bool:
    try:
        lookup(fields, key)
    except OverrideError:
        return False
    return True


def deprecated_item(config: Any, key: str) -> Any:
    """``getattr(config, key)`` with a ``DeprecationWarning``: the ``config[key]`` of
    [`syncattn.training.TrainConfig`][] and `syncattn.models.ModelConfig`, from when a
    run's configs were dicts.

    Raises:
        KeyError: `key` is not a field of `config`.
    """
    name = type(config).__name__
    warnings.warn(
        f"{name}[{key!r}] is deprecated (RunSpec holds typed configs now); use the "
        f"attribute .{key}.",
        DeprecationWarning,
        stacklevel=3,
    )
    if key not in field_types(type(config)):
        raise KeyError(key)
    return getattr(config, key)
