"""A small grammar of accepted values, shared by lint-npu's checks of environment variables (npulab/data/env_vars.yaml
``values``) and of command-line flag values (npulab/data/cli_tools.yaml ``values``): :func:`problem` says, in Chinese,
why a literal value does not fit a spec.

Spec keys (one a spec): ``enum`` (the accepted spellings, exactly; ``case_insensitive`` where the parser says so),
``int: [min, max]`` (unsigned, null: open; ``unit`` for messages), ``float: [min, max]`` (``open: true`` for an open
interval), ``integer`` / ``number`` (signed, no range), ``ip`` (an IPv4/IPv6 address, not an interface name),
``host`` (an address or host name, not an interface name), ``ifname`` (an interface name, optionally ``^``/``=`` prefixed, not an address), ``list: SPEC`` (items joined by ``,``
without spaces), ``kv: {key: SPEC}`` (``key:value`` items joined by ``,``; ``key_patterns`` for families such as
``npu0``; ``head`` for a leading bare item; ``ignore_spaces`` where the parser drops spaces), ``pattern`` (a regular
expression), ``choices`` with ``convert`` (an argparse parser's: the text converted by its ``type``, then tested
with ``in``) and ``any_of: [SPEC, …]`` (both with a ``hint`` sentence), and ``any``.
"""

from __future__ import annotations

import ast
import difflib
import ipaddress
import re

_INT = re.compile(r"^[0-9]+$")
# Linux interface names as udev and the kernel give them (eth0, ens33, enp189s0f0, ib0, bond0, lo …)
_INTERFACE = re.compile(r"(eth|ens|enp|eno|enx|ib|bond|wlan|wlp|veth|virbr|docker|br)[0-9][0-9a-z]*|lo")




def problem(value: str, spec: dict) -> str | None:
    """Why ``value`` does not fit ``spec``, in Chinese; None when it does."""
    if "any" in spec:
        return None
    if "any_of" in spec:
        return None if any(problem(value, s) is None for s in spec["any_of"]) else spec["hint"]
    if "pattern" in spec:
        return None if re.fullmatch(spec["pattern"], value) else spec["hint"]
    if "integer" in spec:
        return None if re.fullmatch(r"-?[0-9]+", value) else "应为整数"
    if "number" in spec:
        return None if re.fullmatch(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", value) else "应为数"
    if "choices" in spec:  # argparse: convert the text with the parser's type, then test `in choices`
        convert = {"int": int, "float": float, "str": str, "ast.literal_eval": ast.literal_eval}[spec["convert"]]
        try:
            fits = convert(value) in spec["choices"]
        except (ValueError, SyntaxError, TypeError):
            fits = False
        return None if fits else f"只接受 {'、'.join(str(c) for c in spec['choices'])}"
    if "enum" in spec:
        choices = [str(c) for c in spec["enum"]]
        fits = value.lower() in {c.lower() for c in choices} if spec.get("case_insensitive") else value in choices
        if fits:
            return None
        guess = [c for c in choices if c.lower() == value.lower()] or \
            difflib.get_close_matches(value, choices, n=1, cutoff=0.5)
        return f"只接受 {'、'.join(choices)}" + (f"（是不是 `{guess[0]}`？）" if guess else "")
    if "int" in spec:
        if not _INT.match(value):
            unit = spec.get("unit")
            return "应为整数" + (f"（单位{unit}，不写单位）" if unit else "")
        return _range(int(value), spec["int"], spec.get("unit"))
    if "float" in spec:
        try:
            number = float(value)
        except ValueError:
            return "应为数"
        return _range(number, spec["float"], spec.get("unit"), spec.get("open", False))
    if "ip" in spec:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return "应为 IP 地址（IPv4 或 IPv6），不是网卡名" if re.match(r"^[A-Za-z]", value) else "应为 IP 地址（IPv4 或 IPv6）"
        return None
    if "host" in spec:
        if _INTERFACE.fullmatch(value):
            return f"应为 IP 地址或主机名，`{value}` 像是网卡名（网卡名给 *_SOCKET_IFNAME）"
        return None if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.:_-]*", value) else "应为 IP 地址或主机名"
    if "ifname" in spec:
        name = value.lstrip("^=")
        try:
            ipaddress.ip_address(name)
            return "应为网卡名（如 eth0），不是 IP 地址"
        except ValueError:
            pass
        return None if re.match(r"^[A-Za-z][A-Za-z0-9_.:@-]*$", name) else "应为网卡名（如 eth0）"
    if "list" in spec:
        if re.search(r"\s", value):
            return "是逗号分隔的列表，不能有空格"
        for item in value.split(","):
            why = problem(item, spec["list"])
            if why:
                return f"逗号分隔的每一项都{why}，`{item}` 不是" if item else "逗号分隔的列表里有空项"
        return None
    if "kv" in spec:
        return _kv_problem(value, spec)
    return None


def _range(number: float, bounds: list, unit: str | None, open_interval: bool = False) -> str | None:
    low, high = bounds
    below = low is not None and (number <= low if open_interval else number < low)
    above = high is not None and (number >= high if open_interval else number > high)
    if not below and not above:
        return None
    left, right = ("(", ")") if open_interval else ("[", "]")
    shown = f"{left}{'' if low is None else low}, {'' if high is None else high}{right}"
    return f"取值范围是 {shown}" + (f"（单位{unit}）" if unit else "")


def _kv_problem(value: str, spec: dict) -> str | None:
    text = value.replace(" ", "") if spec.get("ignore_spaces") else value
    if not spec.get("ignore_spaces") and re.search(r"\s", text):
        return "是逗号分隔的 key:value 列表，不能有空格"
    items = _split_items(text)
    if "head" in spec:
        head, items = (items[0] if items else ""), items[1:]
        why = problem(head, spec["head"])
        if why:
            return f"第一项（模式）{why}，`{head}` 不是"
    keys = spec["kv"]
    for item in items:
        key, sep, val = item.partition(":")
        if not sep:
            return f"每一项应写成 key:value，`{item}` 不是"
        item_spec = keys.get(key) or next((s for p, s in spec.get("key_patterns", {}).items() if re.fullmatch(p, key)), None)
        if item_spec is None:
            guess = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.6)
            return f"没有选项 `{key}`（可用：{'、'.join(keys)}）" + (f"；是不是 `{guess[0]}`？" if guess else "")
        why = problem(val, item_spec)
        if why:
            return f"`{key}` 的值{why}，`{val}` 不是"
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
