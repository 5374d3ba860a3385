"""The parts of ``about/run_on_npu.md`` that depend on the repository setting (``{course-run} <part>`` directive of
:mod:`npulab.site.sphinx_extension`): the page says exactly which buttons and links this build has, never more.

Each function returns MyST Markdown; :func:`part` picks one by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import npulab
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


def buttons(s: Setting) -> str:
    if not s.repository:
        return ("本网站构建时没有设置课程仓库的地址（构建设置 `" + REPOSITORY_ENV + "`，见仓库的 docs/site.md），所以"
                "页面顶部只有「下载」按钮（.ipynb，含输出），**没有**「启动」、「源代码仓库」与「提交问题」按钮。"
                "下载的笔记本可以单独运行：见下面 1.1 节。")
    launch = [name for name, on in (("Binder（仅 CPU）", s.binder), ("JupyterHub", s.hub)) if on]
    rocket = f"「启动」（火箭图标：{'、'.join(launch)}）、" if launch else ""
    return (f"网站上的每个笔记本页面顶部都有这些按钮：「下载」（.ipynb，含输出）、{rocket}「源代码仓库」与「提交问题」"
            f"（课程仓库 <{s.repository}>）。按你手上的环境选择下面一种方式。")


def download(s: Setting) -> str:
    where = f"本网站的 `_static/wheels/{wheel_name()}`"
    return (f"页面顶部的下载按钮给出执行过的笔记本（含输出）。在任意装有 Jupyter 的 Python 3.11 环境中打开它，先运行"
            f"第一个代码单元：没有 `npulab` 时，它从{where} 安装构建本网站所用的 `npulab`，并按课程 "
            "`requirements.txt` 的版本安装这一课导入的软件包（用到 PyTorch 时取 CPU 版）；然后照常从头运行。"
            "安装地址相对于笔记本被下载的地址，所以笔记本要从网站的下载按钮取得（另存网页上的链接也可以，"
            "只要网站的地址不变）。")


def clone(s: Setting) -> str:
    if not s.repository:
        return ("本网站构建时没有设置课程仓库的地址，这里给不出 `git clone` 的地址：请向提供本网站的人索取课程仓库，"
                "取得后在仓库目录中运行 `make lab`（建立 `.venv`、安装依赖，并在 JupyterLab 中文界面中打开课程）。")
    return (f"```bash\ngit clone {s.repository}\ncd {s.repository.rsplit('/', 1)[-1]}\n"
            "make lab          # 建立 .venv、安装依赖，并在 JupyterLab（中文界面）中打开课程\n```")


def binder(s: Setting) -> str:
    if not (s.repository and s.binder):
        return ("本网站构建时没有设置课程仓库的地址（或 BinderHub），所以没有 Binder 启动按钮；Binder 需要从一个公开的 "
                "git 仓库建立环境。")
    return (f"页面顶部的火箭按钮 →「Binder」会在 [{s.binder.split('//')[-1]}]({s.binder}) 上按课程仓库的 "
            "`requirements.txt` 建立一个临时的 CPU 环境并打开该笔记本。首次启动要安装 PyTorch 与 MindSpore，通常需要"
            "几分钟；会话空闲一段时间后会被回收，改动不会保存。`npu` 单元在这里只会打印「此单元需要昇腾 NPU」。")


def modelarts(s: Setting, lessons: list[tuple[str, str]]) -> str:
    """``lessons``: (title, page path without suffix) pairs, in the order of the table of contents."""
    intro = ("华为云 ModelArts 的 CodeLab 可以按地址打开一个公开的 .ipynb：链接参数 `share-url-b64` 是笔记本地址的 "
             "Base64 编码。MindSpore 官方教程的「在线运行」链接就是这样写的（例如 "
             "<https://gitee.com/mindspore/docs/blob/r2.2/tutorials/application/source_zh_cn/cv/fcn8s.ipynb> 开头的那个链接），"
             "其背后的接口是 ModelArts API 参考中的「打开 CodeLab 实例」（RunCodeLab，`POST /v1/{project_id}/notebooks/open`），"
             "它把参数 `share_url` 说明为 Base64 编码的 IPYNB 文件地址（<https://support.huaweicloud.com/api-modelarts/>）。"
             "需要华为云账号并登录；MindSpore 的链接还带 `imageid` 指定其镜像，这里不指定，"
             "由 CodeLab 用默认镜像（接口文档：默认是多内核的 CPU 实例），昇腾规格与镜像在 CodeLab 中自行切换；"
             "本课程没有核实 CodeLab 当前是否提供免费的昇腾规格。打开后先运行笔记本的第一个代码单元（见 1.1 节）。")
    if not s.site:
        return intro + ("\n\n本网站构建时不知道自己发布在哪个地址（没有设置课程仓库或 `COURSE_SITE_URL`），"
                        "所以这里不给 CodeLab 链接：笔记本必须能从公网地址下载，CodeLab 才能打开它。")
    rows = [f"| {title} | [在 CodeLab 中打开]({modelarts_link(s.site + '_sources/' + page + '.ipynb')}) |"
            for title, page in lessons]
    return intro + "\n\n| 课 | 链接 |\n|---|---|\n" + "\n".join(rows)


# ---- the English edition's words (en/about/run_on_npu.md); same facts, same conditions --------------------------

def buttons_en(s: Setting) -> str:
    if not s.repository:
        return ("This site was built without the course repository's address (the build setting `" + REPOSITORY_ENV
                + "`, see docs/site.md in the repository), so the top of each page has only the download button (.ipynb, "
                "with outputs) and **no** launch, repository or open-issue buttons. A downloaded notebook runs on its "
                "own: see section 1.1 below.")
    launch = [name for name, on in (("Binder (CPU only)", s.binder), ("JupyterHub", s.hub)) if on]
    rocket = f"launch (the rocket icon: {', '.join(launch)}), " if launch else ""
    return (f"Every notebook page of this site has these buttons at the top: download (.ipynb, with outputs), {rocket}"
            f"repository and open issue (the course repository <{s.repository}>). Choose one of the ways below for the "
            "environment you have.")


def download_en(s: Setting) -> str:
    return (f"The download button at the top of a page gives the executed notebook (with outputs). Open it in any "
            f"Python 3.11 environment with Jupyter and run the first code cell: where `npulab` is missing it installs "
            f"the `npulab` this site was built with from this site's `_static/wheels/{wheel_name()}`, and the packages "
            "the lesson imports at the versions of the course's `requirements.txt` (PyTorch as its CPU build); then "
            "run the notebook from the top as usual. The install address is relative to the address the notebook was "
            "downloaded from, so take the notebook from the site's download button (saving the link works too, as "
            "long as the site's address stays the same).")


def clone_en(s: Setting) -> str:
    if not s.repository:
        return ("This site was built without the course repository's address, so there is no `git clone` address to "
                "give here: ask whoever provides this site for the course repository, then run `make lab` in it (it "
                "creates `.venv`, installs the dependencies and opens the course in JupyterLab).")
    return (f"```bash\ngit clone {s.repository}\ncd {s.repository.rsplit('/', 1)[-1]}\n"
            "make lab          # creates .venv, installs the dependencies, opens the course in JupyterLab\n```\n\n"
            "The English notebooks are in the repository's `en/` folder.")


def binder_en(s: Setting) -> str:
    if not (s.repository and s.binder):
        return ("This site was built without the course repository's address (or a BinderHub), so there is no Binder "
                "launch button; Binder builds its environment from a public git repository.")
    return (f"The rocket button at the top of a page → Binder builds a temporary CPU environment on "
            f"[{s.binder.split('//')[-1]}]({s.binder}) from the course repository's `requirements.txt` and opens the "
            "notebook. The first start installs PyTorch and MindSpore and usually takes a few minutes; an idle session "
            "is reclaimed after a while and changes are not kept. Cells tagged `npu` only print a note there.")


def modelarts_en(s: Setting, lessons: list[tuple[str, str]]) -> str:
    intro = ("Huawei Cloud ModelArts CodeLab can open a public .ipynb by its address: the link parameter "
             "`share-url-b64` is the Base64 encoding of the notebook's address. The \"run online\" links of the "
             "official MindSpore tutorials are written this way (for example the one at the top of "
             "<https://gitee.com/mindspore/docs/blob/r2.2/tutorials/application/source_zh_cn/cv/fcn8s.ipynb>); the "
             "interface behind them is \"Opening a CodeLab instance\" in the ModelArts API reference (RunCodeLab, "
             "`POST /v1/{project_id}/notebooks/open`), which documents `share_url` as the Base64-encoded address of the "
             "IPYNB file (<https://support.huaweicloud.com/api-modelarts/>). It needs a Huawei Cloud account and a "
             "login; MindSpore's links also pass `imageid` for their image, these do not, so CodeLab uses its default "
             "image (by the API documentation a multi-kernel CPU instance); switch to an Ascend flavour and image in "
             "CodeLab yourself. The course has not checked whether CodeLab currently offers a free Ascend flavour. "
             "After opening, run the notebook's first code cell (see section 1.1).")
    if not s.site:
        return intro + ("\n\nThis site was built without knowing the address it is published at (no course "
                        "repository or `COURSE_SITE_URL` set), so there are no CodeLab links here: CodeLab can only "
                        "open a notebook downloadable from a public address.")
    rows = [f"| {title} | [Open in CodeLab]({modelarts_link(s.site + 'en/_sources/' + page + '.ipynb')}) |"
            for title, page in lessons]
    return intro + "\n\n| Lesson | Link |\n|---|---|\n" + "\n".join(rows)


def part(name: str, s: Setting, lessons: list[tuple[str, str]] | None = None, lang: str = "zh") -> str:
    """The Markdown of one part: ``buttons``, ``download``, ``clone``, ``binder`` or ``modelarts``, in the words of
    the edition ``lang`` (``zh`` or ``en``)."""
    makers = {"buttons": buttons, "download": download, "clone": clone, "binder": binder}
    if lang == "en":
        makers = {"buttons": buttons_en, "download": download_en, "clone": clone_en, "binder": binder_en}
    if name == "modelarts":
        return (modelarts_en if lang == "en" else modelarts)(s, lessons or [])
    if name not in makers:
        raise ValueError(f"course-run 的部分只能是 {', '.join([*makers, 'modelarts'])}，收到 {name!r}")
    return makers[name](s)
