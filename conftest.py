"""pytest configuration shared by the unit tests and by nbval over the course notebooks.

Tag mapping (Jupyter Book and nbval understand different tags; this file bridges them):

- ``npu``             the cell needs an Ascend NPU: skipped, with a reason, where none is usable.
- ``skip-execution``  Jupyter Book never executes it; nbval skips it too, so both agree.
- ``raises-exception`` the error is the lesson: both tools expect the exception (native to both).

Measuring cells can run alone: with ``NPULAB_MEASURE_ALONE=1`` under xdist (notebooks two at a time), a cell that
starts a measurement (its source calls ``LoadWatch(``, :mod:`npulab.core.machine`) takes an exclusive lock and every
other notebook cell a shared one, with a gate that lets a waiting measurement in before the next shared cell; the
other cells still run two at a time. `make test` leaves it off (about 3 minutes of CI): the site it builds is only
checked, and the verdicts say "noisy" when a sibling disturbed them. The published site comes from `make book`, whose
Jupyter Book execution runs one notebook at a time, so its measurements never share the CPU with a sibling notebook.

Lesson exercises: after a lesson's last cell, one more item (``…::练习参考答案``) runs, in the same kernel, the
``python`` fences of its folded 参考答案 and resolves every call its 练习 section writes
(:mod:`npulab.course.exercises` has the convention). It is not a notebook cell: it neither stages nor blocks
staging the notebook for the book.

Execute once, check and render: with ``--stage-book-cache`` every notebook that nbval ran
without a failure is written, with the outputs nbval collected, into the Jupyter Book execution
cache (``_build/.jupyter_cache``; the English book's in ``_build/en/_build/.jupyter_cache``). The following ``jupyter-book build`` (``execute_notebooks:
cache``) then renders those outputs instead of running each notebook a second time. The cache
key is the code cells' source and metadata, so an edited notebook is executed again by the book.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

from npulab.core.device import npu_available
from npulab.core.notebook_cells import IGNORED_DIRS, NPU_TAG, SKIP_TAG, tags

ROOT = Path(__file__).resolve().parent
BOOK_CACHE = ROOT / "_build" / ".jupyter_cache"
# the English book (en/, built with --path-output _build/en) has its own cache: its code cells are the Chinese ones,
# so the cache keys are the same, but npulab prints English there (npulab.core.i18n)
EN_BOOK_CACHE = ROOT / "_build" / "en" / "_build" / ".jupyter_cache"


def book_cache(notebook: Path) -> Path:
    """The execution cache of the book that ``notebook`` belongs to."""
    return EN_BOOK_CACHE if notebook.resolve().is_relative_to(ROOT / "en") else BOOK_CACHE

# kernels started by nbval inherit this process's environment
os.environ.setdefault("GLOG_v", "4")  # MindSpore: keep C++ log lines out of outputs and pages
os.environ.setdefault("NPULAB_LAB_STRICT", "1")  # lab checks raise on a wrong (not on a missing) answer
os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # torch.profiler: no USDT/Kineto lines on stderr
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


def pytest_addoption(parser):
    parser.addoption(
        "--stage-book-cache", action="store_true",
        help="write notebooks executed without failure into the Jupyter Book execution cache",
    )


def pytest_ignore_collect(collection_path, config):
    """Never collect build output or environments (pytest's defaults skip `build`, not `_build`)."""
    return bool(IGNORED_DIRS.intersection(collection_path.parts)) or None


def pytest_report_header(config):
    return f"Ascend NPU usable: {npu_available()}"


def _is_notebook_cell(item) -> bool:
    return hasattr(item, "cell") and hasattr(item, "cell_num") and not getattr(item, "npulab_exercises", False)


def _exercise_item(last):
    """An nbval item after ``last`` (a lesson's last cell) that runs the lesson's exercise answers; None if none."""
    from nbformat import NotebookNode
    from nbval.plugin import IPyNbCell

    from npulab.course.exercises import check_program, exercise_section

    section = exercise_section(last.parent.nb)
    if section is None:
        return None
    cell = NotebookNode(cell_type="code", source=check_program(section), metadata=NotebookNode(), outputs=[],
                        execution_count=None)
    item = IPyNbCell.from_parent(last.parent, name="练习参考答案", cell_num=last.cell_num + 1, cell=cell,
                                 options=defaultdict(bool, check=False))
    item.npulab_exercises = True
    return item


def _course_parts(path: Path) -> tuple[str, ...]:
    """The parts of ``path`` inside the course checkout (empty outside it)."""
    try:
        return path.resolve().relative_to(ROOT).parts
    except ValueError:
        return ()


def _is_lesson(path: Path) -> bool:
    parts = _course_parts(path)
    return parts[:1] == ("chapters",) or parts[:2] == ("en", "chapters")  # the English twins (en/) run theirs too


def _add_exercise_items(items) -> None:
    """Append the exercise item after the last collected cell of every lesson notebook (chapters/)."""
    last_of = {}
    for index, item in enumerate(items):
        if _is_notebook_cell(item) and _is_lesson(Path(str(item.parent.fspath))):
            last_of[item.parent] = index
    for index in sorted(last_of.values(), reverse=True):
        extra = _exercise_item(items[index])
        if extra is not None:
            items.insert(index + 1, extra)


def _longest_notebooks_first(items) -> None:
    """Each book's notebooks in order of their measured time, longest first (npulab/data/notebook_times.yaml; an
    English twin takes its Chinese notebook's time), the Chinese book before the English one, each notebook's items
    kept together and in order: xdist's ``loadfile`` hands files out in collection order, so a long notebook no longer
    starts last and leaves the other core idle at the end, and a lesson's twin runs well after it (torch.compile's
    on-disk cache is warm by then)."""
    from npulab.workshop.agenda import load_times

    seconds = load_times().get("seconds", {})
    first_index: dict[str, int] = {}
    for index, item in enumerate(items):
        first_index.setdefault(str(item.path), index)

    def order(path: str) -> tuple:
        parts = _course_parts(Path(path))
        if not parts:
            return (2, 0.0)
        english = parts[:1] == ("en",)
        return (int(english), -float(seconds.get("/".join(parts[1:] if english else parts), 0.0)))

    items.sort(key=lambda item: (*order(str(item.path)), first_index[str(item.path)]))


def pytest_collection_modifyitems(config, items):
    _add_exercise_items(items)
    if any(_is_notebook_cell(item) for item in items):
        _longest_notebooks_first(items)
    has_npu = npu_available()
    for item in items:
        if not _is_notebook_cell(item):
            continue
        cell_tags = tags(item.cell)
        if NPU_TAG in cell_tags:
            item.add_marker(pytest.mark.npu)
            if not has_npu:
                item.add_marker(pytest.mark.skip(reason="cell tagged 'npu' and no Ascend NPU is usable here"))
        elif SKIP_TAG in cell_tags:
            item.add_marker(pytest.mark.skip(reason="cell tagged 'skip-execution' (Jupyter Book does not run it either)"))


def _hidden_by_semicolon(cell, output) -> bool:
    """Whether JupyterLab would hide this result: IPython shows no value for a cell ending in ``;``. nbval runs
    cells with ``store_history=False``, so IPython checks the wrong cell and the value (``False`` after
    ``lab.check(...);``, the dict of ``lab.report();``) would reach the book; the staged notebook drops it."""
    if output.get("output_type") != "execute_result":
        return False
    from IPython.core.displayhook import DisplayHook

    return DisplayHook.semicolon_at_end_of_expression(cell.source)


class _BookCacheStager:
    """Collects per-cell outcomes during the nbval run and caches cleanly executed notebooks."""

    def __init__(self):
        self.cells = defaultdict(dict)  # notebook path -> {cell_num: item}
        self.failed = set()
        self.started = {}
        self.finished = {}

    def note_item(self, item):
        path = Path(str(item.parent.fspath))
        self.cells[path][item.cell_num] = item
        self.started.setdefault(path, time.monotonic())
        self.finished[path] = time.monotonic()

    def note_report(self, item, report):
        self.finished[Path(str(item.parent.fspath))] = time.monotonic()  # the notebook's last cell so far
        if report.failed:
            self.failed.add(Path(str(item.parent.fspath)))

    def stage(self) -> int:
        import copy

        from jupyter_cache import get_cache
        from jupyter_cache.base import CacheBundleIn

        caches = {}
        staged = 0
        for path, by_num in self.cells.items():
            if path in self.failed or not by_num:
                continue
            nb = copy.deepcopy(next(iter(by_num.values())).parent.nb)
            count = 0
            for num, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
                item = by_num.get(num)
                outputs = getattr(item, "test_outputs", None) if item is not None else None
                if outputs is None:  # skipped (npu cell): keep what the notebook stores (recorded outputs)
                    continue
                count += 1
                cell.outputs = [copy.deepcopy(o) for o in outputs if not _hidden_by_semicolon(cell, o)]
                cell.execution_count = count
                for out in cell.outputs:
                    if out.get("output_type") == "execute_result":
                        out["execution_count"] = count
                    if out.get("output_type") in ("display_data", "execute_result"):
                        out.setdefault("metadata", {})
            seconds = self.finished[path] - self.started[path]  # first cell's setup to last cell's report
            where = book_cache(path)
            cache = caches.setdefault(where, get_cache(str(where)))
            cache.cache_notebook_bundle(
                CacheBundleIn(nb, str(path), data={"execution_seconds": seconds}),
                check_validity=False, overwrite=True,
            )
            staged += 1
        return staged


def _share_the_cores(config) -> None:
    """Under xdist, each worker's kernels and subprocesses compute with cores / workers threads (unless set already):
    two notebooks each starting torch's one-thread-per-core pool on two cores oversubscribe them, and a lesson then
    ran 3× slower beside a sibling than alone. The measurement footer says when torch used fewer threads than cores."""
    workers = getattr(config, "workerinput", {}).get("workercount")
    if not workers:
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = str(max(1, cores // workers))
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, threads)


def pytest_configure(config):
    _share_the_cores(config)
    config.addinivalue_line("markers", "npu: needs an Ascend NPU")
    config.addinivalue_line("markers", "network: needs PyPI (downloads a wheel)")
    if config.getoption("--stage-book-cache", default=False):
        config._npulab_stager = _BookCacheStager()


MEASURE_LOCK = ROOT / "_build" / ".measure.lock"
MEASURE_GATE = ROOT / "_build" / ".measure.gate"


@contextlib.contextmanager
def _measuring_alone(exclusive: bool):
    """Exclusive (a measuring cell) or shared (any other cell) hold of the lock all xdist workers share.

    A measuring cell holds the gate while it waits and runs, so no new shared cell starts meanwhile (writer
    preference); a shared cell passes through the gate only to take its shared lock.
    """
    import fcntl

    MEASURE_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(MEASURE_GATE, "a") as gate, open(MEASURE_LOCK, "a") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            if not exclusive:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if exclusive:
                fcntl.flock(gate, fcntl.LOCK_UN)


def _measures(item) -> bool:
    """Whether a notebook cell starts a measurement (``LoadWatch(``): it must not share the CPU with a sibling."""
    return "LoadWatch(" in item.cell.source


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if (os.environ.get("NPULAB_MEASURE_ALONE") != "1" or not os.environ.get("PYTEST_XDIST_WORKER")
            or not _is_notebook_cell(item)):
        yield
        return
    with _measuring_alone(_measures(item)):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    stager = getattr(item.config, "_npulab_stager", None)
    if stager is None or not _is_notebook_cell(item):
        return
    report = outcome.get_result()
    if call.when == "setup":
        stager.note_item(item)
    stager.note_report(item, report)


def pytest_sessionfinish(session, exitstatus):
    stager = getattr(session.config, "_npulab_stager", None)
    if stager is not None and stager.cells:
        staged = stager.stage()
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter:
            reporter.write_line(f"staged {staged} executed notebook(s) into the books' execution caches "
                                f"({BOOK_CACHE.relative_to(ROOT)}, {EN_BOOK_CACHE.relative_to(ROOT)})")
