"""The text report, the doctor notes for environment-dependent findings, and ``python -m npulab explain``.

The frame (headings, sentences, help) is said in npulab's language through :func:`npulab.core.i18n.t`
(``npulab/data/messages/explain.yaml``); the findings bring their own text (the catalog in that language)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from npulab.core import i18n
from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t
from npulab.env.explain.catalog import load_catalog

if TYPE_CHECKING:
    from npulab.env.explain import Report

CASEBOOK = "chapters/01_environment/03_troubleshooting_casebook.ipynb"
JSON_FIELDS = ('{"lines_read", "root_error", "codes", "findings": [{"category", "kind", "codes", "title", "cause", "fix", '
               '"evidence", "sources", "rule"?, "entry"?, "product"?, "source"?, "version"?}]}')


def casebook() -> str:
    """The casebook lesson of npulab's language: the Chinese one, or its twin in the English book (en/…)."""
    return CASEBOOK if i18n.language() == "zh" else f"en/{CASEBOOK}"


def environment_notes(report: Report, environ: Mapping[str, str] | None = None,
                      diagnose: Callable[[], list] | None = None) -> None:
    """Attach to each finding the doctor checks its entry names (run once, without importing torch_npu)."""
    env = os.environ if environ is None else environ
    wanted = {f.category: next((e.doctor for e in load_catalog() if e.id == f.category), ()) for f in report.findings}
    checks = {}
    if any(wanted.values()):
        if diagnose is None:
            from npulab.env.doctor import diagnose as doctor_diagnose

            def diagnose():
                return doctor_diagnose(environ=env, probe_timeout=0)
        checks = {c.id: c for c in diagnose()}
    for finding in report.findings:
        notes = [{"check": cid, "status": checks[cid].status, "message": checks[cid].message}
                 for cid in wanted[finding.category] if cid in checks]
        if finding.category == "npu_oom" and env.get("PYTORCH_CUDA_ALLOC_CONF") and not env.get("PYTORCH_NPU_ALLOC_CONF"):
            notes.append({"check": "PYTORCH_NPU_ALLOC_CONF", "status": "warn", "message": t("explain.cuda_alloc_conf")})
        finding.environment = notes


_MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}
def render(report: Report) -> str:
    """The human-readable report, in npulab's language (the findings' own text in the language they were made in)."""
    if report.lines_read == 0:
        return t("explain.empty") + t("explain.nothing_found")
    if not report.findings:
        return t("explain.read_lines", lines=report.lines_read) + t("explain.nothing_found")
    families = [f for f in report.findings if f.kind == "family"]
    rules = [f for f in report.findings if f.kind == "rule"]
    documented = [f for f in report.findings if f.kind == "docs"]
    head = (t("explain.head_families", lines=report.lines_read, count=len(families) + len(documented)) if families
            else t("explain.head_docs", lines=report.lines_read) if documented
            else t("explain.head_cases", lines=report.lines_read) if any(f.kind == "case" for f in report.findings)
            else t("explain.head_rules", lines=report.lines_read) if rules
            else t("explain.head_generic", lines=report.lines_read))
    out = [head, ""]
    if report.root_error is not None:
        out += [t("explain.root_line", line=report.root_error.line, text=report.root_error.text)]
    if report.codes:
        out.append(t("explain.codes"))
        out += [t("explain.code_line", line=h.line, description=h.info.describe()) for h in report.codes]
    out.append("")
    for i, f in enumerate(report.findings, 1):
        codes = (t("explain.finding_codes", codes=t("explain.list_separator").join(f.codes))
                 if f.codes and f.kind == "family" else "")
        out.append(f"{i}. [{f.category}] {f.title}{codes}")
        out.append(t("explain.evidence"))
        out += [t("explain.evidence_line", line=e.line, text=e.text) for e in f.evidence]
        if f.kind != "generic":
            out.append(t("explain.cause", text=f.cause))
        out.append(t("explain.fix", text=f.fix))
        for note in f.environment:
            out.append(t("explain.environment", mark=_MARKS.get(note["status"], "?"), check=note["check"],
                         message=note["message"]))
        out.append(t("explain.sources", sources=t("explain.separator").join(f.sources)))
        if f.casebook:
            out.append(t("explain.casebook", link=f"{casebook()}#{f.casebook}"))
        out.append("")
    out.append(t("explain.after_fix"))
    return "\n".join(out)


def _open_input(source: str | None) -> tuple[BinaryIO, bool]:
    """The stream to read and whether it must be closed; ``None`` on a terminal asks for a paste."""
    if source is None or source == "-":
        if source is None and sys.stdin.isatty():
            print(t("explain.paste"), file=sys.stderr)
        return sys.stdin.buffer, False
    path = Path(source)
    if path.is_dir():
        raise UsageError(t("explain.is_directory", source=source))
    if not path.exists():
        raise UsageError(t("explain.no_file", source=source))
    try:
        return path.open("rb"), True
    except OSError as err:
        raise UsageError(t("explain.cannot_read", source=source, reason=err.strerror or err)) from None


def build_parser(subparsers, name: str) -> None:
    """Add the ``explain`` sub-command."""
    parser = subparsers.add_parser(name, help=t("explain.help"), description=t("explain.description"))
    parser.add_argument("log", nargs="?", default=None, help=t("explain.help_log"))
    parser.add_argument("--json", action="store_true", help=t("explain.help_json", fields=JSON_FIELDS))
    parser.add_argument("--no-env", dest="env", action="store_false", help=t("explain.help_no_env"))
    parser.add_argument("--similar", action="store_true", help=t("explain.help_similar"))
    parser.set_defaults(run=run)


def run(args) -> int:
    """Explain the log named by ``args.log``; print text or JSON; return 0, 1 or 2."""
    from npulab.env.explain import explain_stream
    from npulab.env.explain.casebase import packaged_index

    stream, close = _open_input(args.log)
    try:
        report = explain_stream(stream, cases=packaged_index() if args.similar else None)
    except OSError as err:
        raise UsageError(t("explain.read_error", reason=err.strerror or err)) from None
    finally:
        if close:
            stream.close()
    if args.env:
        environment_notes(report)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(report))
    return EXIT_FAIL if report.findings else EXIT_OK


