"""Timeouts and hangs of collectives (HCCL) and of device synchronisation. A collective that times out while the
ranks connect is the HCCL_CONNECT_TIMEOUT case, one that times out while they wait for each other the
HCCL_EXEC_TIMEOUT case (meanings and defaults from npulab/data/hccl_settings.yaml); both are the catalog's
``hccl_timeout`` family. A synchronisation that times out is ACL_DEVICE_SYNC_TIMEOUT's (torch_npu docs),
reported as the ``hccl_timeout`` family too: in real logs it is most often a rank waiting in a collective."""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.root import rank
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data
from npulab.env.hccl import hccl_setting

NAME = "communication_timeout"
_TIMEOUT = re.compile(r"(?i)(?<![\w])(?:time[ds]?[ _-]?out|timed out|times out|timing out)(?![a-z_])|超时")
_TIMED_EVENT = re.compile(r"(?i)timed out|times out|timing out|timeout occurred|timeout\s*detect|wait\w*\s+\w*\s*timeout|超时")
_COLLECTIVE = re.compile(r"(?i)hccl|collective|all_?reduce|all_?gather|broadcast|reduce_?scatter|all_?to_?all|notify|"
                         r"\bsocket|rank\b|建链|通信")
_SYNC = re.compile(r"(?i)synchroniz|sync\s*stream|syncstream|stream\s*sync")
_NCCL_ONLY = re.compile(r"(?i)nccl")
# the runtime's codes for a synchronisation that did not finish in time, with no "timeout" word in the line:
# ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046 and ACL_ERROR_RT_EVENT_SYNC_TIMEOUT 507047 (torch_npu NPUErrorCodes.h;
# npulab/data/error_codes.yaml), as torch_npu prints a failed call ("aclrtSynchronizeDevice, error code is 507046")
_SYNC_CODE = re.compile(r"(?i)(?:error ?code(?: is)?|result\s*=|ret\s*=)\s*(50704[67])\b")
SYNC_PRIORITY = 1  # below every catalog family


def read(line: str) -> dict | None:
    code = _SYNC_CODE.search(line)
    if code and rank(line):
        return {"what": "sync", "focus": code.group(1)}
    if not _TIMEOUT.search(line) or (_NCCL_ONLY.search(line) and "hccl" not in line.lower()):
        return None
    if not (rank(line) or _TIMED_EVENT.search(line)):
        return None
    if _COLLECTIVE.search(line):
        connect = any(w in line.lower() for w in rules_data()["communication"]["connect_words"])
        return {"what": "connect" if connect else "exec", "focus": _TIMEOUT.search(line).group(0)}
    if _SYNC.search(line):
        return {"what": "sync", "focus": _TIMEOUT.search(line).group(0)}
    return None


def _setting_text(name: str) -> str:
    s = hccl_setting(name)
    default = t("explain.communication.default", value=s["default"], unit=s["unit"]).strip()
    return t("explain.communication.setting", name=name, what=localized(s, "what"), default=default,
             when=localized(s, "when"))


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    data = rules_data()["communication"]
    kinds = [h.facts["what"] for h in hits]
    if "connect" in kinds or "exec" in kinds:
        names = [n for n in data["settings"] if ("CONNECT" in n) == ("connect" in kinds) or ("exec" in kinds and "EXEC" in n)]
        settings = t("explain.separator").join(_setting_text(n) for n in names)
        note = (t("explain.communication.connect", settings=settings) if "connect" in kinds
                else t("explain.communication.exec", settings=settings))
        sources = [*data["sources"], *(hccl_setting(n)["source_url"] for n in names)]
        return rule_finding(NAME, t("explain.communication.title"), note, note, hits, sources, family=data["family"], note=note)
    sync = data["sync_setting"]
    # a device synchronisation that times out is, in the logs users post, most often a rank waiting in a collective
    # (CANN's own "Stream synchronize timeout" solution names the network): the hccl_timeout family, with the
    # synchronisation's own setting and the stuck-operator check as its note
    note = t("explain.communication.sync", name=sync["name"], what=localized(sync, "what"))
    found = rule_finding(NAME, t("explain.communication.sync_title"), note, note, hits, [sync["source"], *data["sources"]],
                         family=data["family"], note=note)
    found.priority = SYNC_PRIORITY  # a consequence: any other family the log shows (an AI Core fault) comes first
    return found


RULE = Rule(NAME, (b"timeout", b"time out", b"timed out", b"times out", b"timing out", "超时".encode(), b"507046",
                  b"507047"), read, finding)
