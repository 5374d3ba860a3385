"""The site's one repository setting and what follows from it (docs/site.md).

``COURSE_REPOSITORY`` (environment or ``make … COURSE_REPOSITORY=https://github.com/<owner>/<repo>``) holds the
course repository's address; ``repository.url`` in ``_config.yml`` is the fallback and stays a placeholder in this
repository. From the address follow the repository, issue and launch buttons, the site's own address on GitHub Pages
(``COURSE_SITE_URL`` overrides it: another host, a custom domain) and the links of the run-on-NPU page. Optional:
``COURSE_JUPYTERHUB`` adds a JupyterHub launch button (a hub with nbgitpuller, e.g. the workshop's).
"""

from __future__ import annotations

import base64
import os
import re

REPOSITORY_ENV = "COURSE_REPOSITORY"
HUB_ENV = "COURSE_JUPYTERHUB"
SITE_URL_ENV = "COURSE_SITE_URL"
PLACEHOLDER_REPOS = ("ascend-npu-course/ascend-npu-course", "example.com", "your-org", "<")
GITHUB = re.compile(r"https?://github\.com/([^/]+)/([^/#?]+?)(?:\.git)?/?$")
# ModelArts CodeLab opens a notebook given the Base64 of its URL (share-url-b64), as MindSpore's tutorials link it
# (gitee.com/mindspore/docs, r2.2, tutorials/application/source_zh_cn/cv/fcn8s.ipynb); the API behind it, RunCodeLab
# (POST /v1/{project_id}/notebooks/open), documents share_url as the Base64 of an IPYNB file's URL (ModelArts API
# reference, support.huaweicloud.com/api-modelarts/).
MODELARTS_LAB = "https://authoring-modelarts-cnnorth4.huaweicloud.com/console/lab?share-url-b64="


def is_placeholder(url: str) -> bool:
    return not url.strip() or any(p in url for p in PLACEHOLDER_REPOS)


def repository(configured: str = "") -> str:
    """The repository address: ``COURSE_REPOSITORY``, else the configured one; empty while unset or a placeholder."""
    for url in (os.environ.get(REPOSITORY_ENV, ""), configured or ""):
        if not is_placeholder(url):
            return url.strip().rstrip("/")
    return ""


def jupyterhub(configured: str = "") -> str:
    """The JupyterHub address for launch buttons (``COURSE_JUPYTERHUB``, else ``launch_buttons.jupyterhub_url``)."""
    return (os.environ.get(HUB_ENV, "") or configured or "").strip().rstrip("/")


def site_url(repository_url: str) -> str:
    """The published site's address with a trailing slash: ``COURSE_SITE_URL``, else GitHub Pages of the repository
    (``https://<owner>.github.io/<repo>/``); empty when neither is known."""
    given = os.environ.get(SITE_URL_ENV, "").strip()
    if given:
        return given.rstrip("/") + "/"
    m = GITHUB.match(repository_url.strip())
    if not m:
        return ""
    owner, repo = m.group(1).lower(), m.group(2)
    return f"https://{owner}.github.io/" if repo.lower() == f"{owner}.github.io" else f"https://{owner}.github.io/{repo}/"


def modelarts_link(notebook_url: str) -> str:
    """ModelArts CodeLab link that opens the notebook at ``notebook_url`` (a public http(s) address)."""
    return MODELARTS_LAB + base64.b64encode(notebook_url.encode()).decode()
