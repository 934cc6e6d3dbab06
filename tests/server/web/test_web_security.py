"""The page's defences against a real `rein serve`: CSRF token, Origin and Sec-Fetch-Site on every
mutating request, the Host check of a loopback server, the token, and the page's headers."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from tests.server.web.helpers import BROWSER, csrf_of, web_server

pytestmark = pytest.mark.slow


def test_the_page_carries_its_policy_and_the_csrf_token(tmp_path: Path) -> None:
    with web_server(tmp_path) as web:
        page = web.client.get("/", headers=BROWSER)
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert "default-src 'self'" in policy and "base-uri 'none'" in policy
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["cache-control"] == "no-store"
        assert page.headers["content-type"].startswith("text/html")
        assert '<meta name="rein-auth" content="none">' in page.text and "__REIN_" not in page.text
        assert len(web.csrf) >= 32 and csrf_of(web.client.get("/", headers=BROWSER).text) == web.csrf
        script = web.client.get("/static/app.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert "css" in web.client.get("/static/app.css").headers["content-type"]
        for missing in ("/static/nope.js", "/static/..%2F_page.py", "/static/%2E%2E"):
            assert web.client.get(missing).status_code == 404, missing
        assert web.client.get("/static/../_page.py").status_code == 404


def test_a_mutating_request_without_the_csrf_header_is_refused(tmp_path: Path) -> None:
    with web_server(tmp_path) as web:
        for headers in ({}, {"X-Rein-CSRF": "wrong"}, {"X-Rein-CSRF": ""}):
            answer = web.client.post("/web/api/sessions", json={}, headers=headers)
            assert answer.status_code == 403 and answer.json()["code"] == "CSRF_FAILED", headers
        assert web.get("/sessions") == {"sessions": []}  # nothing was created
        assert web.client.get("/web/api/info").status_code == 200  # reads need no CSRF header
        web.post("/sessions", {}, status=201)


def test_a_cross_origin_request_is_refused_on_the_protocol_routes_too(tmp_path: Path) -> None:
    with web_server(tmp_path) as web:
        body = {"sessionId": "s1"}
        evil = web.client.post("/api/session/init", json=body, headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403 and evil.json()["code"] == "CSRF_FAILED"
        site = web.client.post("/api/session/init", json=body, headers={"Sec-Fetch-Site": "cross-site"})
        assert site.status_code == 403 and site.json()["code"] == "CSRF_FAILED"
        csrf = {"X-Rein-CSRF": web.csrf, "Origin": "http://evil.example"}
        assert web.client.post("/web/api/sessions", json={}, headers=csrf).status_code == 403
        assert web.client.get("/api/sessions").json()["sessions"] == []
        same = web.client.post("/api/session/init", json=body, headers={"Origin": web.url})
        assert same.status_code == 200
        assert web.client.post("/api/session/init", json={"sessionId": "s2"}).status_code == 200


def test_a_non_loopback_host_is_refused_on_a_loopback_server(tmp_path: Path) -> None:
    with web_server(tmp_path) as web:
        for host in ("evil.example", "evil.example:80", "127.0.0.1.evil.example"):
            answer = web.client.get("/web/api/info", headers={"Host": host})
            assert answer.status_code == 403 and answer.json()["code"] == "HOST_REFUSED", host
        assert web.client.get("/", headers={**BROWSER, "Host": "rebind.example"}).status_code == 403
        port = web.url.rsplit(":", 1)[1]
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", "[::1]", "localhost"):
            assert web.client.get("/web/api/info", headers={"Host": host}).status_code == 200, host
        assert web.client.get("/health").json() == {"status": "ok"}


def test_with_a_token_the_api_needs_it_and_the_page_says_so(tmp_path: Path) -> None:
    with web_server(tmp_path, token="s3cret") as web:
        assert '<meta name="rein-auth" content="required">' in web.client.get("/", headers=BROWSER).text
        assert web.client.get("/web/api/info").json()["auth"] is True
        with httpx2.Client(base_url=web.url, timeout=30) as anonymous:
            assert (
                anonymous.get("/", headers=BROWSER).status_code == 200
            )  # the page itself holds no session data
            answer = anonymous.get("/web/api/sessions")
            assert answer.status_code == 401 and answer.json()["code"] == "UNAUTHORIZED"
            wrong = anonymous.get("/web/api/info", headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            post = anonymous.post("/web/api/sessions", json={}, headers={"X-Rein-CSRF": web.csrf})
            assert post.status_code == 401
        web.post("/sessions", {}, status=201)
