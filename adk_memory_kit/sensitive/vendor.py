"""Vendor tokens and private keys: ``detect-secrets`` plugins, run in process, line by line.

The library's own plugins cover AWS access keys, GitHub, GitLab, Slack, Stripe, SendGrid,
Twilio, Discord, Mailchimp, PyPI, Telegram, OpenAI, JWTs, Azure ``AccountKey=`` strings,
npm ``_authToken`` lines, URL credentials and code-style ``password = "..."`` assignments
(its keyword plugin). Formats it lacks are added here as plugins of the library's own
:class:`~detect_secrets.plugins.base.RegexBasedDetector` (Hugging Face, Shopify,
DigitalOcean, Mailgun, npm tokens in prose, Azure keys in prose, Google API keys, GitHub
fine-grained tokens, current OpenAI/Anthropic keys). A PEM private key is redacted whole,
``BEGIN`` line through ``END`` line.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding


class HuggingFaceTokenDetector(RegexBasedDetector):
    """Hugging Face user access tokens."""

    secret_type = "Hugging Face Token"
    denylist = (re.compile(r"(?<![\w-])hf_[A-Za-z0-9]{30,40}(?![\w-])"),)


class ShopifyTokenDetector(RegexBasedDetector):
    """Shopify admin, custom-app, private-app tokens and shared secrets."""

    secret_type = "Shopify Token"
    denylist = (re.compile(r"(?<![\w-])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![\w-])"),)


class DigitalOceanTokenDetector(RegexBasedDetector):
    """DigitalOcean personal, OAuth and refresh tokens."""

    secret_type = "DigitalOcean Token"
    denylist = (re.compile(r"(?<![\w-])do[opr]_v1_[a-f0-9]{64}(?![\w-])"),)


class MailgunKeyDetector(RegexBasedDetector):
    """Mailgun private API keys, old (``key-``) and current (hex with two dashed parts)."""

    secret_type = "Mailgun Key"
    denylist = (
        re.compile(r"(?<![\w-])key-[0-9a-f]{32}(?![\w-])"),
        re.compile(r"(?<![\w-])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![\w-])"),
    )


class NpmTokenDetector(RegexBasedDetector):
    """npm access tokens written anywhere, not only in an ``.npmrc`` line."""

    secret_type = "npm Token"
    denylist = (re.compile(r"(?<![\w-])npm_[A-Za-z0-9]{36}(?![\w-])"),)


class AzureKeyDetector(RegexBasedDetector):
    """Azure storage account keys: 86 base64 characters and ``==``, even without
    ``AccountKey=``, and SAS signatures in a connection string."""

    secret_type = "Azure Storage Key"
    denylist = (
        re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])"),
        re.compile(r"(?<![\w])sig=[A-Za-z0-9%+/]{30,}={0,2}"),
    )


class JwtDetector(RegexBasedDetector):
    """A whole JWT, signature included (the library's plugin stops after the payload and is
    quadratic on a long run of ``eyJ-``). Where the first ``eyJ`` of a run does not start a
    JWT, the pattern takes the rest of the run, which is then dropped (no dots), so every
    run is read once."""

    secret_type = "JSON Web Token"
    denylist = (
        re.compile(
            r"eyJ(?:[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|[A-Za-z0-9_-]*)"
        ),
    )


class MoreApiKeyDetector(RegexBasedDetector):
    """Google API keys, GitHub fine-grained tokens, OpenAI/Anthropic keys, Stripe test keys,
    AWS session/access ids the library's plugin bounds too tightly."""

    secret_type = "API Key"
    denylist = (
        re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"),
        re.compile(r"(?<![\w-])github_pat_[A-Za-z0-9_]{22,90}(?![\w-])"),
        re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?"
                   r"[A-Za-z0-9_-]{20,160}(?![\w-])"),
        re.compile(r"(?<![\w-])[rs]k_(?:test|live)_[0-9A-Za-z]{16,99}(?![\w-])"),
        re.compile(r"(?<![\w-])xapp-\d-[A-Za-z0-9-]{20,}(?![\w-])"),
        re.compile(r"(?<![\w-])glpat-[A-Za-z0-9_-]{20}(?![\w-])"),
    )  # fmt: skip


def _name_of(plugin: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(plugin.secret_type).lower()).strip("_")  # type: ignore[attr-defined]


#: The library's plugins, then ours, each built once (they keep no state between lines).
PLUGINS: tuple[RegexBasedDetector, ...] = (
    AWSKeyDetector(),
    GitHubTokenDetector(),
    GitLabTokenDetector(),
    SlackDetector(),
    StripeDetector(),
    SendGridDetector(),
    TwilioKeyDetector(),
    DiscordBotTokenDetector(),
    MailchimpDetector(),
    PypiTokenDetector(),
    TelegramBotTokenDetector(),
    OpenAIDetector(),
    JwtDetector(),
    NpmDetector(),
    BasicAuthDetector(),
    HuggingFaceTokenDetector(),
    ShopifyTokenDetector(),
    DigitalOceanTokenDetector(),
    MailgunKeyDetector(),
    NpmTokenDetector(),
    AzureKeyDetector(),
    MoreApiKeyDetector(),
)
#: Substrings one of which each plugin's matches contain: a run without any of them skips
#: that plugin (a cheap ``in`` test instead of a regex pass).
_NEEDLES: dict[str, tuple[str, ...]] = {
    "AWSKeyDetector": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    "GitHubTokenDetector": ("gh",),
    "GitLabTokenDetector": ("gl", "GR1348941"),
    "SlackDetector": ("xox", "XOX", "Xox", "hooks.slack"),
    "StripeDetector": ("k_live",),
    "SendGridDetector": ("SG.",),
    "TwilioKeyDetector": ("AC", "SK"),
    "DiscordBotTokenDetector": (".",),
    "MailchimpDetector": ("-us",),
    "PypiTokenDetector": ("pypi-",),
    "TelegramBotTokenDetector": (":",),
    "OpenAIDetector": ("T3BlbkFJ",),
    "JwtDetector": ("eyJ",),
    "NpmDetector": ("_authToken",),
    "BasicAuthDetector": ("://",),
    "HuggingFaceTokenDetector": ("hf_",),
    "ShopifyTokenDetector": ("shp",),
    "DigitalOceanTokenDetector": ("_v1_",),
    "MailgunKeyDetector": ("key-", "-"),
    "NpmTokenDetector": ("npm_",),
    "AzureKeyDetector": ("==", "sig="),
    "MoreApiKeyDetector": ("AIza", "github_pat_", "sk-", "k_test", "k_live", "xapp-", "glpat-"),
}
_JWT = next(p for p in PLUGINS if isinstance(p, JwtDetector))
#: Each plugin with its name and needles, in ``PLUGINS`` order.
_PLUGIN_NEEDLES: tuple[tuple[RegexBasedDetector, str, tuple[str, ...]], ...] = tuple(
    (plugin, _name_of(plugin), _NEEDLES[type(plugin).__name__]) for plugin in PLUGINS
)
_SEPARATORS = r"\s\"'`<>(){}\[\],;|"
#: Where a token can be: a maximal run of 16+ characters without spaces, quotes or brackets
#: (the lookbehind lets a match start only where a run starts, so a short word is read once).
#: Plugins run on these runs only; a run longer than ``_CHUNK`` is read in overlapping windows
#: (no token is longer than the overlap), which keeps every pattern linear.
_RUN = re.compile(rf"(?<![^{_SEPARATORS}])[^{_SEPARATORS}]{{16,}}")
_CHUNK = 4096
_OVERLAP = 1024


def _runs(text: str) -> Iterator[tuple[int, str]]:
    for run in _RUN.finditer(text):  # maximal runs, 16 characters or more
        start, end = run.start(), run.end()
        if end - start <= _CHUNK:
            yield start, run.group(0)
            continue
        pos = start
        while pos < end:
            yield pos, text[pos : min(end, pos + _CHUNK)]
            if pos + _CHUNK >= end:
                break
            pos += _CHUNK - _OVERLAP


def _with_needles(
    entries: Iterable[tuple[RegexBasedDetector, str, tuple[str, ...]]], text: str
) -> list[tuple[RegexBasedDetector, str, tuple[str, ...]]]:
    """The plugins one of whose needles is in ``text`` (substring searches in C)."""
    out = []
    for entry in entries:
        for needle in entry[2]:
            if needle in text:
                out.append(entry)
                break
    return out


@dataclass(frozen=True)
class VendorTokenDetector:
    """Every token a ``detect-secrets`` plugin (the library's or ours) finds; the span is the
    token itself (for URL credentials, the password between ``:`` and ``@``)."""

    name: str = "vendor_token"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        # a needle absent from the whole text is absent from every run: those plugins are
        # skipped for the whole text
        plugins = _with_needles(_PLUGIN_NEEDLES, text)
        for offset, run in _runs(text):
            for plugin, name, _ in _with_needles(plugins, run):
                for regex in plugin.denylist:
                    for m in regex.finditer(run):
                        if plugin is _JWT and "." not in m.group(0):
                            continue  # the rest of a run, not a JWT
                        a, b = _secret_span(m)
                        if b - a >= 6:
                            found.append(Finding(CREDENTIAL, name, offset + a, offset + b))
            for m in _HIGH_ENTROPY.finditer(run):
                if _random_token(m.group(0)):
                    a, b = offset + m.start(), offset + m.end()
                    found.append(Finding(CREDENTIAL, "high_entropy", a, b))
            if "=" in run:
                for m in _KEYED_VALUE.finditer(run):
                    if _random_token(m.group(1)):
                        a, b = offset + m.start(1), offset + m.end(1)
                        found.append(Finding(CREDENTIAL, "high_entropy", a, b))
        return found


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    """The plugin's secret group when it is inside the match (a URL's password, the quoted
    AWS key), else the whole match (a token with its vendor prefix)."""
    for g in range(1, (m.re.groups or 0) + 1):
        if m.start(g) > m.start() and m.end(g) - m.start(g) >= 3:
            return m.start(g), m.end(g)
    return m.start(), m.end()


#: A long run of base64 characters: a secret when it is random (every character class and
#: ``detect-secrets``' Shannon entropy high), e.g. an AWS secret access key in prose.
_HIGH_ENTROPY = re.compile(
    r"(?<![A-Za-z0-9/+_=-])[A-Za-z0-9/+_-]{32,200}={0,2}(?![A-Za-z0-9/+_=-])"
)


#: A random value after a name ending in key, secret, token or password and ``=`` (a
#: connection string's ``AccountKey=``, ``SharedAccessKey=``, ``client_secret=``): the
#: lookbehind of ``_HIGH_ENTROPY`` leaves a run glued to ``=``; the name says it is a secret.
_KEYED_VALUE = re.compile(
    r"(?i:key|secret|token|password|passwd|pwd)=([A-Za-z0-9/+_-]{20,200}={0,2})"
    r"(?![A-Za-z0-9/+_=-])"
)


_LOWER, _UPPER, _DIGIT = re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"\d")


def _random_token(token: str) -> bool:
    return (
        _LOWER.search(token) is not None
        and _UPPER.search(token) is not None
        and _DIGIT.search(token) is not None
        # entropy over k distinct characters is at most log2(k): 4.2 needs 19 of them
        and len(set(token)) >= 19
        and entropy_at_least(token, 4.2)
    )


#: A PEM (or PGP / PuTTY) private key: from its BEGIN line to its END line, body included;
#: with no END line, to the end of the text.
_PEM_BEGIN = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----|PuTTY-User-Key-File-\d:"
)


@dataclass(frozen=True)
class PrivateKeyDetector:
    """Private keys redacted whole: the ``BEGIN`` marker, the body and the ``END`` marker."""

    name: str = "private_key"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        pos = 0
        while True:
            begin = _PEM_BEGIN.search(text, pos)
            if begin is None:
                return found
            if begin.group(1):
                marker = f"-----END {begin.group(1)}-----"
                end = text.find(marker, begin.end())
                stop = len(text) if end < 0 else end + len(marker)
            else:  # PuTTY: the key runs to the "Private-MAC:" line
                mac = text.find("Private-MAC:", begin.end())
                line_end = text.find("\n", mac) if mac >= 0 else -1
                stop = len(text) if mac < 0 or line_end < 0 else line_end
            found.append(Finding(CREDENTIAL, self.name, begin.start(), stop))
            pos = stop


_ENTROPY = Base64HighEntropyString()
_CHARSET: str = _ENTROPY.charset
_ORDER = {c: i for i, c in enumerate(_CHARSET)}  # the charset has no repeated character


def shannon_entropy(value: str) -> float:
    """Shannon entropy of ``value`` over ``detect-secrets``' base64 alphabet.

    The same sum, term for term and in the same order, as the library's
    ``calculate_shannon_entropy`` (so the same float), but each character is counted once
    instead of one ``str.count`` pass per alphabet character.
    """
    if not value:
        return 0.0
    n = len(value)
    # the alphabet's order: the library's order of terms
    present = sorted((_ORDER[c], k) for c, k in Counter(value).items() if c in _ORDER)
    entropy = 0.0
    for _, c in present:
        p_x = float(c) / n
        entropy += -p_x * math.log(p_x, 2)
    return entropy


#: ``k * log2(k)`` for the counts a token can have (longer values compute it).
_K_LOG_K = [0.0] + [k * math.log2(k) for k in range(1, 513)]
#: Closer to a threshold than this, the library's own sum decides (the two sums differ by
#: rounding only, some 1e-15).
_ENTROPY_MARGIN = 1e-9


def entropy_at_least(value: str, threshold: float) -> bool:
    """``shannon_entropy(value) >= threshold``, the same verdict, computed as
    ``(K log2 n - sum k log2 k) / n`` (n the length, k each alphabet character's count, K
    their sum) from one C-speed count; where that lands within ``_ENTROPY_MARGIN`` of the
    threshold, :func:`shannon_entropy`'s exact float decides."""
    n = len(value)
    if n == 0:
        return 0.0 >= threshold
    total = weighted = 0.0
    for c, k in Counter(value).items():
        if c in _ORDER:
            total += k
            weighted += _K_LOG_K[k] if k < len(_K_LOG_K) else k * math.log2(k)
    entropy = (total * math.log2(n) - weighted) / n
    if abs(entropy - threshold) <= _ENTROPY_MARGIN:
        return shannon_entropy(value) >= threshold
    return entropy >= threshold
