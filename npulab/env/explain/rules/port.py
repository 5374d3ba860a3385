"""A network port that is already taken ("bound already", "address already in use", "port conflict", "端口被占用").
In an Ascend log the ports that collide are HCCL's sockets: every communicating process of a card listens on a host
and a device port, and two services, or a leftover process, on one machine collide. That is the catalog's
``hccl_network`` family (its fix: HCCL_HOST_SOCKET_PORT_RANGE, and finding the process that holds the port); the
rule reads the conflict in any wording, not one message (data: npulab/data/explain_rules.yaml ``port``). torch's
rendezvous port (MASTER_PORT), and "Address already in use" in a line that does not name HCCL, are the exception
rule's reading (errno 98: the launcher's --master_port), which comes first."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "port_taken"
# the conflict in the words of bind(2)'s EADDRINUSE, of HCCL/CANN ("bound already", "Bind_Failed") and of people
_TAKEN = re.compile(r"(?i)address already in use|eaddrinuse|\bbound already\b|have been bound|has been bound|"
                    r"\bbind[ _-]?fail|fail(?:s|ed|ure)? to bind\b|\bport\b[^.;:]{0,30}?\b(?:conflicts?|in use|occupied|"
                    r"already (?:used|taken|bound))\b|\bports?[ _-]conflicts?\b|端口[^，。,;；]{0,8}?(?:被占用|占用|冲突|已被使用)")
_OTHER = re.compile(r"(?i)\bnccl\b|\bgloo\b|\bcuda\b")  # another back end's port: not HCCL's
# torch's rendezvous store (MASTER_PORT, 29500 by default): the exception rule's reading (rules/exception.py)
_RENDEZVOUS = re.compile(r"(?i)DistNetworkError|TCPStore|c10d|master[_ ]?port|rendezvous|\b29500\b")


def read(line: str) -> dict | None:
    m = _TAKEN.search(line)
    if m is None or _RENDEZVOUS.search(line) or (_OTHER.search(line) and "hccl" not in line.lower()):
        return None
    return {"focus": m.group(0)}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    note = t("explain.port.note")
    return rule_finding(NAME, t("explain.port.title"), note, note, hits, rules_data()["port"]["sources"],
                        family=rules_data()["port"]["family"], note=note)


RULE = Rule(NAME, (b"bound", b"bind", b"in use", b"eaddrinuse", b"conflict", b"occupied", b"already",
                   "端口".encode()), read, finding)
