"""The instructor's seat page (a JupyterHub service), served by tornado offline with a stand-in for the hub's OAuth."""

from jupyterhub.services.auth import HubOAuth
from tornado.testing import AsyncHTTPTestCase

from npulab.workshop.seat_service import make_app
from npulab.workshop.seats import SeatPool

SCOPE = "access:services!service=seats"


class _HubOAuth(HubOAuth):
    """HubOAuth whose token check returns a fixed model instead of asking the hub's API."""

    model = None

    def get_user(self, handler, **kwargs):
        return dict(self.model) if self.model else None


class SeatPageTest(AsyncHTTPTestCase):
    def get_app(self):
        self.pool = SeatPool([0, 1], per_device=2, roster=["Ann", "Ben"])
        self.pool.seat("tester")
        self.auth = _HubOAuth(api_token="t" * 32, api_url="http://127.0.0.1:1/hub/api", oauth_client_id="service-seats",
                              access_scopes={SCOPE}, login_url="/hub/api/oauth2/authorize")
        return make_app(lambda: self.pool, hub_auth=self.auth)

    def test_admin_sees_the_seat_table_in_chinese(self):
        self.auth.model = {"name": "instructor", "kind": "user", "admin": True, "scopes": ["access:services", SCOPE]}
        page = self.fetch("/services/seats/")
        body = page.body.decode()
        assert page.code == 200 and "工作坊座位表" in body and "<table" in body
        assert "ann" in body and "tester" in body and "不在名单中但占着座位：tester" in body

    def test_a_participant_is_refused(self):
        self.auth.model = {"name": "ann", "kind": "user", "admin": False, "scopes": ["access:servers!user=ann"]}
        page = self.fetch("/services/seats/", follow_redirects=False)
        assert page.code == 403 and "tester" not in page.body.decode()

    def test_no_login_goes_to_the_hub(self):
        page = self.fetch("/services/seats/", follow_redirects=False)
        assert page.code == 302 and page.headers["Location"].startswith("/hub/api/oauth2/authorize")
