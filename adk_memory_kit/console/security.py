"""The console's request rules: access token, CSRF tokens, no-store and safe headers.

* **Access token.** When the console has a token, every request but ``/login`` and the
  static files must carry it: ``Authorization: Bearer <token>``, ``X-Console-Token:
  <token>``, or the ``amk_token`` cookie the login form sets (HttpOnly, SameSite=Strict).
* **CSRF.** Every request that changes something (POST) must carry a CSRF token in the
  ``csrf_token`` form field or the ``X-CSRF-Token`` header, equal to the ``amk_csrf`` cookie
  and signed with this console's secret (signed double submit). Requests authenticated by an
  ``Authorization`` / ``X-Console-Token`` header are exempt: a browser never adds those to a
  cross-site request.
* **Headers.** Every response is ``Cache-Control: no-store`` and carries a strict
  Content-Security-Policy (scripts and styles from the console only), ``nosniff``,
  ``no-referrer`` and ``frame-ancestors 'none'``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.requests import Request

TOKEN_COOKIE = "amk_token"
CSRF_COOKIE = "amk_csrf"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
TOKEN_HEADER = "x-console-token"

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "object-src 'none'"
    ),
}


class Guard:
    """Checks tokens for one console instance (its own random signing secret)."""

    def __init__(self, token: str | None) -> None:
        self.token = token or None
        self._secret = secrets.token_bytes(32)

    # ------------------------------------------------------------------ access token
    def header_token(self, request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        return request.headers.get(TOKEN_HEADER)

    def token_ok(self, candidate: str | None) -> bool:
        if self.token is None:
            return True
        return candidate is not None and hmac.compare_digest(
            candidate.encode("utf-8", "replace"), self.token.encode()
        )

    def authenticated(self, request: Request) -> bool:
        if self.token is None:
            return True
        return self.token_ok(self.header_token(request)) or self.token_ok(
            request.cookies.get(TOKEN_COOKIE)
        )

    def header_authenticated(self, request: Request) -> bool:
        """A token configured and carried in a header (not a cookie): CSRF cannot apply."""
        return self.token is not None and self.token_ok(self.header_token(request))

    # ------------------------------------------------------------------ CSRF
    def _sign(self, nonce: str) -> str:
        return hmac.new(self._secret, nonce.encode(), hashlib.sha256).hexdigest()[:32]

    def new_csrf(self) -> str:
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._sign(nonce)}"

    def csrf_valid(self, token: str | None) -> bool:
        if not token or "." not in token:
            return False
        nonce, _, sig = token.partition(".")
        return hmac.compare_digest(sig.encode(), self._sign(nonce).encode())

    def csrf_for(self, request: Request) -> str:
        """The request's CSRF token: its valid cookie, else a new one (set by the response)."""
        current = request.cookies.get(CSRF_COOKIE)
        return current if self.csrf_valid(current) else self.new_csrf()

    def csrf_ok(self, request: Request, submitted: str | None) -> bool:
        if self.header_authenticated(request):
            return True
        cookie = request.cookies.get(CSRF_COOKIE)
        return (
            submitted is not None
            and cookie is not None
            and hmac.compare_digest(submitted.encode("utf-8", "replace"), cookie.encode())
            and self.csrf_valid(cookie)
        )


def cookie_path(request: Request) -> str:
    return (request.scope.get("root_path") or "") + "/"


def safe_next(target: str | None, root: str) -> str:
    """A same-site path to go to after login (anything else: the console's home)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return root + "/"
