"""A small grammar of accepted values, shared by lint-npu's checks of environment variables (npulab/data/env_vars.yaml
``values``) and of command-line flag values (npulab/data/cli_tools.yaml ``values``): :func:`problem` says, in the reader's language,
why a literal value does not fit a spec.

Spec keys (one a spec): ``enum`` (the accepted spellings, exactly; ``case_insensitive`` where the parser says so),
``int: [min, max]`` (unsigned, null: open; ``unit`` for messages; ``multiple_of`` where only multiples of a number
are accepted; ``suffix`` where the unit is written after the number, as msprof's ``200MB``), ``float: [min, max]`` (``open: true`` for an open
interval, ``open: [low, high]`` for an interval open at one end, as pydantic's ``Field(gt=0, le=1)``), ``integer`` / ``number`` (signed, no range), ``ip`` (an IPv4/IPv6 address, not an interface name),
``host`` (an address or host name, not an interface name), ``ifname`` (an interface name, optionally ``^``/``=`` prefixed, not an address), ``list: SPEC`` (items joined by ``,``
without spaces, or by ``separator`` where the parser splits on another, as ``+``; ``count`` where the parser takes
exactly that many items, ``ignore_spaces`` where it drops spaces; ``ascending`` where the order is documented;
``disjoint`` where the items are ``span``s that must not overlap), ``span: [min, max]`` (a number or a range ``a-b``
with ``a <= b``, both in the bounds, as HCCL's port ranges ``60000-60050``), ``kv: {key: SPEC}`` (``key:value`` items joined by ``,``; ``key_patterns`` for families such as
``npu0``; ``head`` for a leading bare item; ``ignore_spaces`` where the parser drops spaces; ``excludes`` for options
that cannot be set together), ``pattern`` (a regular
expression), ``choices`` with ``convert`` (an argparse parser's: the text converted by its ``type``, then tested
with ``in``) and ``any_of: [SPEC, …]`` (both with a ``hint`` sentence; an ``any_of`` without one says why its last
alternative refuses), and ``any``.
"""

from __future__ import annotations

import ast
import difflib
import ipaddress
import re

from npulab.core.i18n import localized, t
from npulab.core.words import joined

_INT = re.compile(r"^[0-9]+$")
# Linux interface names as udev and the kernel give them (eth0, ens33, enp189s0f0, ib0, bond0, lo …)
_INTERFACE = re.compile(r"(eth|ens|enp|eno|enx|ib|bond|wlan|wlp|veth|virbr|docker|br)[0-9][0-9a-z]*|lo")




def problem(value: str, spec: dict) -> str | None:
    """Why ``value`` does not fit ``spec`` (a verb phrase in the reader's language); None when it does."""
    if "any" in spec:
        return None
    if "any_of" in spec:  # without a hint, the last alternative says why (HCCL's port ranges: "auto" or spans)
        whys = [problem(value, s) for s in spec["any_of"]]
        return None if None in whys else localized(spec, "hint") if "hint" in spec else whys[-1]
    if "pattern" in spec:
        if re.fullmatch(spec["pattern"], value):
            return None
        return localized(spec, "hint") if "hint" in spec else t("lint.grammar.pattern", pattern=spec["pattern"])
    if "integer" in spec:
        return None if re.fullmatch(r"-?[0-9]+", value) else t("lint.grammar.integer")
    if "number" in spec:
        return None if re.fullmatch(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", value) else t("lint.grammar.number")
    if "choices" in spec:  # argparse: convert the text with the parser's type, then test `in choices`
        convert = {"int": int, "float": float, "str": str, "ast.literal_eval": ast.literal_eval}[spec["convert"]]
        try:
            fits = convert(value) in spec["choices"]
        except (ValueError, SyntaxError, TypeError):
            fits = False
        return None if fits else t("lint.grammar.only", choices=joined(spec["choices"]))
    if "enum" in spec:
        choices = [str(c) for c in spec["enum"]]
        fits = value.lower() in {c.lower() for c in choices} if spec.get("case_insensitive") else value in choices
        if fits:
            return None
        guess = [c for c in choices if c.lower() == value.lower()] or \
            difflib.get_close_matches(value, choices, n=1, cutoff=0.5)
        return t("lint.grammar.only", choices=joined(choices)) + (t("lint.grammar.guess", name=guess[0]) if guess else "")
    if "int" in spec:
        suffix = spec.get("suffix", "")
        if suffix and not value.endswith(suffix):
            return t("lint.grammar.suffix", suffix=suffix)
        number = value[:len(value) - len(suffix)]
        if not _INT.match(number):
            unit = _unit(spec)
            return t("lint.grammar.integer") + (t("lint.grammar.unit_unwritten", unit=unit) if unit and not suffix else "")
        step = spec.get("multiple_of")
        return _range(int(number), spec["int"], _unit(spec)) or \
            (t("lint.grammar.multiple_of", step=step) if step and int(number) % step else None)
    if "float" in spec:
        try:
            number = float(value)
        except ValueError:
            return t("lint.grammar.number")
        return _range(number, spec["float"], _unit(spec), spec.get("open", False))
    if "span" in spec:
        low, high = _span(value) or (None, None)
        if low is None or low > high:
            return t("lint.grammar.span")
        return _range(low, spec["span"], None) or _range(high, spec["span"], None)
    if "ip" in spec:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return t("lint.grammar.ip_not_interface") if re.match(r"^[A-Za-z]", value) else t("lint.grammar.ip")
        return None
    if "host" in spec:
        if _INTERFACE.fullmatch(value):
            return t("lint.grammar.host_not_interface", value=value)
        if re.fullmatch(r"[0-9]+(\.[0-9]+){3}", value):  # four numbers: an IPv4 address or nothing (RFC 1123 2.1)
            try:
                ipaddress.IPv4Address(value)
            except ValueError:
                return t("lint.grammar.ip")
        return None if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.:_-]*", value) else t("lint.grammar.host")
    if "ifname" in spec:
        name = value.lstrip("^=")
        try:
            ipaddress.ip_address(name)
            return t("lint.grammar.interface_not_ip")
        except ValueError:
            pass
        return None if re.match(r"^[A-Za-z][A-Za-z0-9_.:@-]*$", name) else t("lint.grammar.interface")
    if "list" in spec and "count" in spec:  # exactly ``count`` items, as a parser that splits and counts (NPU_ASD_*)
        separator = spec.get("separator", ",")
        items = (value.replace(" ", "") if spec.get("ignore_spaces") else value).split(separator)
        if len(items) != spec["count"]:
            return t("lint.grammar.list_count", count=spec["count"], separator=separator, given=len(items))
        for item in items:
            why = problem(item, spec["list"])
            if why:
                return t("lint.grammar.list_item_sep", separator=separator, why=why, item=item)
        return None
    if "list" in spec and spec.get("separator", ",") != ",":  # a parser's own separator (``+``), empty items dropped
        for item in (i for i in value.split(spec["separator"]) if i.strip()):
            why = problem(item, spec["list"])
            if why:
                return t("lint.grammar.list_item_sep", separator=spec["separator"], why=why, item=item)
        return None
    if "list" in spec:
        if re.search(r"\s", value):
            return t("lint.grammar.list_spaces")
        items = value.split(",")
        for item in items:
            why = problem(item, spec["list"])
            if why:
                return t("lint.grammar.list_item", why=why, item=item) if item else t("lint.grammar.list_empty")
        if spec.get("disjoint"):  # spans that must not overlap (HCCL_HOST_SOCKET_PORT_RANGE)
            spans = sorted((_span(item), item) for item in items)
            for (before, first), (after, second) in zip(spans, spans[1:], strict=False):
                if after[0] <= before[1]:
                    return t("lint.grammar.list_overlap", item=second, before=first)
        if spec.get("ascending"):  # the documented order (ASCEND_RT_VISIBLE_DEVICES: ascending IDs only)
            for before, item in zip(items, items[1:], strict=False):
                if float(item) <= float(before):
                    return t("lint.grammar.list_order", item=item, before=before)
        return None
    if "kv" in spec:
        return _kv_problem(value, spec)
    return None


def _range(number: float, bounds: list, unit: str | None, open_interval: bool | list = False) -> str | None:
    low, high = bounds
    open_low, open_high = open_interval if isinstance(open_interval, list) else (open_interval, open_interval)
    below = low is not None and (number <= low if open_low else number < low)
    above = high is not None and (number >= high if open_high else number > high)
    if not below and not above:
        return None
    left, right = "(" if open_low else "[", ")" if open_high else "]"
    shown = f"{left}{'' if low is None else low}, {'' if high is None else high}{right}"
    return t("lint.grammar.range", shown=shown) + (t("lint.grammar.unit", unit=unit) if unit else "")


def _span(value: str) -> tuple[int, int] | None:
    """(first, last) of a number ``a`` or a range ``a-b``; None when the text is neither."""
    match = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", value)
    return (int(match.group(1)), int(match.group(2) or match.group(1))) if match else None


def _unit(spec: dict) -> str | None:
    return localized(spec, "unit") if spec.get("unit") else None


def _kv_problem(value: str, spec: dict) -> str | None:
    text = value.replace(" ", "") if spec.get("ignore_spaces") else value
    if not spec.get("ignore_spaces") and re.search(r"\s", text):
        return t("lint.grammar.kv_spaces")
    items = _split_items(text)
    if "head" in spec:
        head, items = (items[0] if items else ""), items[1:]
        why = problem(head, spec["head"])
        if why:
            return t("lint.grammar.kv_head", why=why, head=head)
    keys = spec["kv"]
    for item in items:
        key, sep, val = item.partition(":")
        if not sep:
            return t("lint.grammar.kv_item", item=item)
        item_spec = keys.get(key) or next((s for p, s in spec.get("key_patterns", {}).items() if re.fullmatch(p, key)), None)
        if item_spec is None:
            guess = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.6)
            return t("lint.grammar.kv_key", option=key, keys=joined(keys)) + (t("lint.guess", names=f"`{guess[0]}`") if guess else "")
        why = problem(val, item_spec)
        if why:
            return t("lint.grammar.kv_value", option=key, why=why, value=val)
    return _excluded(dict(item.partition(":")[::2] for item in items), spec.get("excludes", []))


def _excluded(given: dict[str, str], rules: list[dict]) -> str | None:
    """The first ``excludes`` rule the given options break: ``{when: {key: value}, keys: [...]}`` — with ``key``
    set to ``value``, none of ``keys`` may be set (PYTORCH_NPU_ALLOC_CONF's expandable segments)."""
    for rule in rules:
        if all(given.get(k) == str(v) for k, v in rule["when"].items()):
            clash = [k for k in rule["keys"] if k in given]
            if clash:
                when = ",".join(f"{k}:{v}" for k, v in rule["when"].items())
                return t("lint.grammar.kv_excludes", when=when, option=clash[0])
    return None


def _split_items(text: str) -> list[str]:
    """Comma-separated items, commas inside ``[...]`` kept (``roundup_power2_divisions:[256:1,>:8]``)."""
    items, depth, current = [], 0, ""
    for char in text:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    return [*items, current] if current or items else []
