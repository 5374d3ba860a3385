"""The parts of ``about/run_on_npu.md`` that depend on the repository setting (``{course-run} <part>`` directive of
:mod:`npulab.site.sphinx_extension`): the page says exactly which buttons and links this build has, never more.

Each function returns MyST Markdown in the words of one edition; :func:`part` picks one by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import npulab
from npulab.core.i18n import t
from npulab.site.language import EDITION_FOLDER, EN, ZH
from npulab.site.settings import REPOSITORY_ENV, modelarts_link


@dataclass(frozen=True)
class Setting:
    repository: str = ""   # https://github.com/<owner>/<repo>, empty when unset
    branch: str = "main"
    hub: str = ""          # JupyterHub with nbgitpuller, empty when none
    binder: str = ""       # BinderHub, e.g. https://mybinder.org; empty when none
    site: str = ""         # the published site's address with a trailing slash, empty when unknown


def wheel_name() -> str:
    return f"npulab-{npulab.__version__}-py3-none-any.whl"


def buttons(s: Setting, lang: str) -> str:
    if not s.repository:
        return t("run.buttons_unset", lang, setting=REPOSITORY_ENV)
    launch = [name for name, on in ((t("run.binder_cpu", lang), s.binder), ("JupyterHub", s.hub)) if on]
    rocket = t("run.rocket", lang, names=t("run.list_separator", lang).join(launch)) if launch else ""
    return t("run.buttons", lang, rocket=rocket, repository=s.repository)


def download(s: Setting, lang: str) -> str:
    return t("run.download", lang, wheel=wheel_name())


def clone(s: Setting, lang: str) -> str:
    if not s.repository:
        return t("run.clone_unset", lang)
    return (f"```bash\ngit clone {s.repository}\ncd {s.repository.rsplit('/', 1)[-1]}\n"
            f"make lab          # {t('run.make_lab', lang)}\n```" + t("run.clone_after", lang))


def binder(s: Setting, lang: str) -> str:
    if not (s.repository and s.binder):
        return t("run.binder_unset", lang)
    return t("run.binder", lang, host=s.binder.split("//")[-1], url=s.binder)


def modelarts(s: Setting, lang: str, lessons: list[tuple[str, str]]) -> str:
    """``lessons``: (title, page path without suffix) pairs, in the order of the table of contents."""
    intro = t("run.codelab_intro", lang)
    if not s.site:
        return intro + "\n\n" + t("run.codelab_no_site", lang)
    folder = f"{EDITION_FOLDER}/" if lang == EN else ""  # the English book's downloads are under <site>/en/
    rows = [f"| {title} | [{t('run.codelab_open', lang)}]({modelarts_link(f'{s.site}{folder}_sources/{page}.ipynb')}) |"
            for title, page in lessons]
    return intro + "\n\n" + t("run.codelab_header", lang) + "\n|---|---|\n" + "\n".join(rows)


PARTS = {"buttons": buttons, "download": download, "clone": clone, "binder": binder}


def part(name: str, s: Setting, lessons: list[tuple[str, str]] | None = None, lang: str = ZH) -> str:
    """The Markdown of one part: ``buttons``, ``download``, ``clone``, ``binder`` or ``modelarts``, in the words of
    the edition ``lang`` (``zh`` or ``en``; npulab/data/messages/site.yaml)."""
    if name == "modelarts":
        return modelarts(s, lang, lessons or [])
    if name not in PARTS:
        raise ValueError(f"course-run 的部分只能是 {', '.join([*PARTS, 'modelarts'])}，收到 {name!r}")
    return PARTS[name](s, lang)
