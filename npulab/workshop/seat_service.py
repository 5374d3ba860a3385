"""The seat map for the instructor, inside the hub: a JupyterHub service at ``/services/seats/`` (admins only).

JupyterHub starts it (``c.JupyterHub.services`` in ``workshop/jupyterhub_config.py``) with ``JUPYTERHUB_*``
variables; a browser reaches it through the hub's proxy and logs in with the hub's OAuth. Only who holds the
scope ``access:services!service=seats`` gets the page: the hub's ``admin`` role has ``access:services``, the
default ``user`` role does not (jupyterhub 6.1.1, ``jupyterhub/roles.py``), so participants see a 403.
The page reads the same ``seats.json`` as the hub and ``python -m npulab workshop seats``.

The hub waits for a managed service to answer HTTP before it finishes starting, and importing
``jupyterhub.services.auth`` takes seconds on a busy machine; so ``main`` answers "starting" at once and loads
the real page in a thread.
"""

from __future__ import annotations

import functools
import html
import os
import secrets
import threading
from collections.abc import Callable
from urllib.parse import urlparse

from tornado import web

from npulab.core.i18n import t
from npulab.workshop.seats import SeatPool

SERVICE_NAME = "seats"

# the page is the instructor's (admins only), in npulab's language: the hub process's NPULAB_LANG or locale
PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:.3em .6em}}
caption{{font-weight:bold;margin-bottom:.5em}}</style></head>
<body><h1>{heading}</h1>{table}
<p>{help}</p>
<p>{stale}</p></body></html>"""


def page(pool: SeatPool, hub_prefix: str) -> str:
    """The seat page: the seat table, how to free or move a seat, who holds a seat without being on the roster."""
    from npulab.workshop.seat_commands import seat_table

    stale = pool.stale()
    names = html.escape(t("workshop.tools.list_sep").join(stale))
    return PAGE.format(lang=t("workshop.tools.seat_page.lang"), title=t("workshop.tools.seat_page.title"),
                       heading=t("workshop.tools.seat_page.heading"), table=seat_table(pool)._repr_html_(),
                       help=t("workshop.tools.seat_page.help", hub=html.escape(hub_prefix)),
                       stale=t("workshop.tools.seat_page.stale", names=names) if stale else "")


@functools.cache
def handlers() -> tuple[type, type]:
    """The page's handler (hub OAuth, the seat table) and the OAuth callback handler."""
    from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated

    class SeatsHandler(HubOAuthenticated, web.RequestHandler):
        """GET: the seat page, for a hub user allowed to access this service."""

        def initialize(self, pool: Callable[[], SeatPool], hub_prefix: str = "/hub/", hub_auth=None) -> None:
            self.pool = pool
            self.hub_prefix = hub_prefix
            if hub_auth is not None:
                self.hub_auth = hub_auth

        @web.authenticated
        def get(self) -> None:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.write(page(self.pool(), self.hub_prefix))

    return SeatsHandler, HubOAuthCallbackHandler


def routes(pool: Callable[[], SeatPool], prefix: str, hub_prefix: str, hub_auth=None) -> list[tuple]:
    """The page at ``prefix`` and the OAuth callback under it."""
    page, callback = handlers()
    return [(prefix, page, {"pool": pool, "hub_prefix": hub_prefix, "hub_auth": hub_auth}),
            (prefix + "oauth_callback", callback)]


def make_app(pool: Callable[[], SeatPool], prefix: str = f"/services/{SERVICE_NAME}/", hub_prefix: str = "/hub/",
             hub_auth=None) -> web.Application:
    """The service's tornado application, ready to serve."""
    return web.Application(routes(pool, prefix, hub_prefix, hub_auth), cookie_secret=secrets.token_bytes(32))


class _Starting(web.RequestHandler):
    """While the page loads: 200 (the hub's start-up check waits on any 5xx) and a page that refreshes itself."""

    def get(self) -> None:
        self.write('<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="3">'
                   f"<p>{t('workshop.tools.seat_page.starting')}</p>")


def main() -> None:
    """Run as a hub-managed service: the hub sets JUPYTERHUB_SERVICE_PREFIX/_URL, the WORKSHOP_* come from its env."""
    from tornado.ioloop import IOLoop

    from npulab.workshop.seats import read_roster
    from npulab.workshop.settings import WorkshopSettings

    settings = WorkshopSettings.from_env()

    def pool() -> SeatPool:
        roster = read_roster(settings.roster) if settings.roster and settings.roster.is_file() else []
        return SeatPool(settings.npus, settings.per_npu, roster=roster, state_file=settings.seats_file)

    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{SERVICE_NAME}/")
    hub_prefix = os.environ.get("JUPYTERHUB_BASE_URL", "/") + "hub/"
    url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    app = web.Application([(r".*", _Starting)], cookie_secret=secrets.token_bytes(32))
    app.listen(url.port or 10101, url.hostname)
    loop = IOLoop.current()

    def load() -> None:
        ready = routes(pool, prefix, hub_prefix)
        loop.add_callback(lambda: (app.wildcard_router.rules.clear(), app.wildcard_router.add_rules(ready)))

    threading.Thread(target=load, daemon=True).start()
    loop.start()


if __name__ == "__main__":
    main()
