"""The console's request rules: access token, CSRF tokens, no-store and safe headers.

* **Access token.** When the console has a token, every request but ``/login`` and the
  static files must carry it: ``Authorization: Bearer <token>``, ``X-Console-Token:
  <token>``, or the ``amk_token`` cookie the login form sets (HttpOnly, SameSite=Strict).
* **CSRF.** Every request that changes something (POST) must carry a CSRF token in the
  ``csrf_token`` form field or the ``X-CSRF-Token`` header, equal to the ``amk_csrf`` cookie
  and signed with this console's secret (signed double submit). Requests authenticated by an
  ``Authorization`` / ``X-Console-Token`` header are exempt: a browser never adds those to a
  cross-site request.
* **Host allow-list (DNS rebinding).** Every request's ``Host`` must name the console: a
  loopback name (``localhost``, ``127.0.0.1``, ``::1``), the host it is bound to, or a name
  given with ``allowed_hosts`` / ``--allowed-host`` (a proxy's name). A page on a rebound
  name (``evil.example`` resolving to 127.0.0.1) gets 400 and nothing else.
* **Origin / Referer.** Every request that changes something (any method but GET, HEAD,
  OPTIONS) whose ``Origin`` (else ``Referer``) is present must name an allowed host (with
  ``"*"`` allowed: the request's own ``Host``); ``Origin: null`` and
  ``Sec-Fetch-Site: cross-site`` are refused (403). Requests without either header
  (scripts, curl) rely on the token / CSRF.
* **Headers.** Every response is ``Cache-Control: no-store`` and carries a strict
  Content-Security-Policy (scripts and styles from the console only), ``nosniff``,
  ``Referrer-Policy: same-origin`` (URLs never leave the console; same-origin posts carry
  their ``Origin``) and ``frame-ancestors 'none'``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

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
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "object-src 'none'"
    ),
}


#: Names that always reach only this machine.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def host_name(value: str | None) -> str | None:
    """The lower-case host name of a ``Host`` header value (``None``: malformed / empty).

    ``[::1]:8766`` -> ``::1``; ``Example.COM:80`` -> ``example.com``.
    """
    if not value or len(value) > 300:
        return None
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return None
        return name or None
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def normalize_host(value: str) -> str:
    """An allow-list entry in the form :func:`host_name` returns (bare name, no port)."""
    value = value.strip().lower()
    try:
        return str(ipaddress.ip_address(value.strip("[]")))
    except ValueError:
        return host_name(value) or ""


class HostRules:
    """The allow-list of ``Host`` names and the ``Origin`` / ``Referer`` check."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        extra = {normalize_host(h) for h in allowed if isinstance(h, str) and h.strip()}
        self.any_host = "*" in extra
        self.allowed = frozenset((LOOPBACK_HOSTS | extra) - {"", "*"})

    def host_ok(self, request: Request) -> bool:
        if self.any_host:
            return True
        name = host_name(request.headers.get("host"))
        return name is not None and name in self.allowed

    def origin_ok(self, request: Request) -> bool:
        """Whether a state-changing request comes from this console (see the module doc)."""
        if request.method.upper() in SAFE_METHODS:
            return True
        if request.headers.get("sec-fetch-site", "").lower() == "cross-site":
            return False
        source = request.headers.get("origin")
        if source is None:
            source = request.headers.get("referer")
            if source is None:
                return True
        if source.strip().lower() == "null":
            return False
        try:
            parts = urlsplit(source.strip())
            netloc = parts.netloc
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not netloc:
            return False
        netloc = netloc.rpartition("@")[2].lower()
        origin_host = host_name(netloc)
        if origin_host is None:
            return False
        if origin_host in self.allowed:  # a name of this console (a proxy may rewrite Host)
            return True
        return self.any_host and netloc == (request.headers.get("host") or "").strip().lower()


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
        return current if current is not None and self.csrf_valid(current) else self.new_csrf()

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
