"""The offline learned router: a small linear head over sentence embeddings (numpy only).

Two routers in one (:class:`LearnedRouter`): English on MiniLM and the kit's bank; a sentence
confidently in another language on MiniLM joined with USE multilingual v3
(:func:`default_router_embedder`), whose space is shared across languages, trained on the
bank and the other writers' first-read corpora, so rows learned in one language carry to the
rest.

It learns from the shipped example bank (:mod:`.bank`) plus any preference names an
application adds with a few phrasings each, at start-up; then one batched embedding call
classifies all the sentences of a turn. The input of the head is the sentence embedding and
a few lexical cues (:mod:`.cues`). A sentence is embedded as ``user: <sentence>``
(:data:`EMBED_PREFIX`), the text the memory store embeds for a one-sentence user turn under
the default indexing options, so the store takes the router's vector from the embedder's
cache instead of running the model again. The bank's embeddings ship with the package (valid for the
bank's digest and the embedder's model id); anything else is embedded once at start-up.

Hyper-parameters (``cue_weight``, ``l2``) were chosen by 5-fold cross-validation on the tune
split only; ``benchmarks/routing.py`` reports the held-out split beside it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing.bank import (
    KIT,
    USER_STATE_PREFIX,
    Example,
    bank_digest,
    is_preference,
    label_home,
    load_bank,
    load_world_bank,
    world_digest,
)
from adk_memory_kit.routing.cues import CUES_DIGEST, N_CUES, cue_vector
from adk_memory_kit.routing.home_head import HOMES, LABEL_HOME, home_of, home_probabilities
from adk_memory_kit.routing.rule import MemoryHome
from adk_memory_kit.sensitive.meaning_encoder import on_change
from adk_memory_kit.text.language import reads_as_other_language

UPDATE_BANK = "data/update_bank.jsonl"


@dataclass(frozen=True)
class Shipped:
    """What a router learns from, and the package files holding its embeddings and heads
    (valid while ``digest()`` and the embedder match what wrote them)."""

    embeddings: str
    meta: str
    head: str
    update_head: str
    digest: Callable[[], str]
    examples: Callable[[], tuple[Example, ...]]


#: The English router: the kit's bank, MiniLM.
BANK = Shipped(
    "data/bank_embeddings.npy",
    "data/bank_embeddings.json",
    "data/bank_head.npz",
    "data/update_head.npz",
    bank_digest,
    load_bank,
)
#: The router for sentences in other languages: the bank and the other writers' rows, MiniLM
#: joined with the multilingual encoder.
WORLD = Shipped(
    "data/world_embeddings.npy",
    "data/world_embeddings.json",
    "data/world_head.npz",
    "data/world_update_head.npz",
    world_digest,
    load_world_bank,
)

#: The labels of a lasting fact; the update head tells the two apart.
LASTING = ("long_term", "update")

#: The update head's step halves whenever its training loss rises (a fixed step oscillated).
UPDATE_BACKOFF = 0.5

#: A lasting fact is flagged as an update when the update head gives it at least this (chosen
#: on the tune split of tests/routing/data/edits.jsonl: 82 / 86 updates flagged at 0.3, 78 at 0.5;
#: a false flag is harmless: an update replaces only a memory about its subject).
UPDATE_FLOOR = 0.3

#: What the router puts before each sentence it embeds: the author label the store puts
#: before a user turn (``IndexingOptions.include_author``), so the two embed the same text.
EMBED_PREFIX = "user: "

#: Labels that keep a sentence out of every store the agent reads.
SAFE_LABELS = frozenset({"drop", "review", "forget", "forget_vague"})

#: How much the home head weighs against this router's own head in choosing a home, for the
#: English router (``False``) and the router for other languages (``True``).
HOME_HEAD_WEIGHT = {False: 0.5, True: 0.5}

_REPLY_STYLE = USER_STATE_PREFIX + "reply_style"

#: Homes the home head may give a change of a lasting fact that this reader's update head
#: flags; the reader's call stands there (a change read as this session's note or as
#: nothing leaves the old fact current).
_NOT_A_CHANGE = frozenset({"session", "none", "review"})

#: A sentence the home heads call sensitive is a request to forget when they give forget at
#: least this (both keep it out of every store; only a request is acted on).
FORGET_OVER_DROP = 0.25

#: Homes a runner-up label is never taken from (:attr:`Decision.runner_up`).
_NO_RUNNER_UP = frozenset({"drop", "forget"})

#: The homes of :data:`SAFE_LABELS`.
_SAFE_HOMES = frozenset({"drop", "review", "forget"})

#: A guarded label wins when its probability reaches this floor, whatever scored highest.
DEFAULT_GUARDS = {"drop": 0.25, "review": 0.3}

#: At least this many phrasings for each preference name an application adds.
MIN_PHRASINGS = 3


@dataclass(frozen=True)
class Decision:
    """The router's answer for one sentence."""

    label: str
    confidence: float
    #: the update head's verdict for a preference label (``user_state:<name>``): the sentence
    #: replaces an earlier fact ("I dropped Spanish, I'm learning Japanese now"); a lasting
    #: fact carries it in its label (``update``)
    replaces_earlier: bool = False
    #: the most likely label outside the ``drop`` and ``forget`` homes: what the sentence is
    #: when the detectors find nothing sensitive in it (``None``: no other label; a request
    #: to forget is acted on only when it is the router's first choice)
    runner_up: str | None = None
    #: this reader's own most likely label when the home head was asked (``None``: the
    #: reader decided alone)
    own_label: str | None = None

    @property
    def home(self) -> MemoryHome | None:
        return label_home(self.label)

    @property
    def preference(self) -> str | None:
        return self.label.removeprefix(USER_STATE_PREFIX) if is_preference(self.label) else None


class LinearHead:
    """Multinomial logistic regression trained by full-batch gradient descent (numpy)."""

    def __init__(
        self,
        *,
        l2: float = 0.01,
        temperature: float = 10.0,
        steps: int = 500,
        backoff: float | None = None,
    ):
        # backoff: the step (starting at 1) is multiplied by it whenever the loss rises, so
        # descent settles instead of oscillating (``None``: a fixed step, as the shipped
        # routing head was trained)
        self.l2, self.temperature, self.steps, self.backoff = l2, temperature, steps, backoff
        self.labels: tuple[str, ...] = ()
        self.weights = np.zeros((0, 0), dtype=np.float32)
        self.bias = np.zeros(0, dtype=np.float32)

    def fit(
        self,
        features: np.ndarray,
        labels: Sequence[str],
        weights: Sequence[float] | None = None,
    ) -> LinearHead:
        """Fit to ``labels``; ``weights``: how much each row counts (default: all alike)."""
        self.labels = tuple(sorted(set(labels)))
        index = {label: i for i, label in enumerate(self.labels)}
        target = np.zeros((len(labels), len(self.labels)), dtype=np.float32)
        target[np.arange(len(labels)), [index[label] for label in labels]] = 1.0
        counts = np.ones(len(labels), dtype=np.float32) if weights is None else np.asarray(
            weights, dtype=np.float32)  # fmt: skip
        counts = counts / counts.mean()
        coef = np.zeros((features.shape[1], len(self.labels)), dtype=np.float32)
        bias = np.zeros(len(self.labels), dtype=np.float32)
        t = self.temperature
        rate, last = 1.0, np.inf
        for _ in range(self.steps):
            probs = _softmax(features @ coef * t + bias)
            if self.backoff is not None:
                picked = probs[target > 0] + 1e-12
                loss = float(-(np.log(picked) * counts).mean())
                if loss > last:
                    rate *= self.backoff
                last = loss
            grad = (probs - target) * counts[:, None] / len(features)
            coef -= rate * (t * features.T @ grad + self.l2 * coef)
            bias -= rate * grad.sum(axis=0)
        self.weights, self.bias = coef, bias
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        return _softmax(features @ self.weights * self.temperature + self.bias)


def _preference_rows(examples: Sequence[Example]) -> int:
    """The median number of examples of a preference name in ``examples`` (0: none)."""
    counts = sorted(
        sum(1 for e in examples if e.preference == name)
        for name in {e.preference for e in examples if e.preference}
    )
    return counts[len(counts) // 2] if counts else 0


def load_update_bank() -> tuple[Example, ...]:
    """The extra lasting facts the update head learns from (``update`` / ``long_term``, all in
    the tune split): changes of job, home, pet, number... and plain facts that look like them."""
    text = resources.files("adk_memory_kit.routing").joinpath(UPDATE_BANK).read_text("utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return tuple(Example(r["text"], r["label"], r.get("split", "tune")) for r in rows)


def update_bank_digest(shipped: Shipped = BANK) -> str:
    """A digest of a router's rows and the update bank (its update head is valid for both)."""
    text = resources.files("adk_memory_kit.routing").joinpath(UPDATE_BANK).read_text("utf-8")
    return hashlib.sha256((shipped.digest() + text).encode()).hexdigest()


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _meta_matches(meta: dict, model_id: str, shipped: Shipped = BANK) -> bool:
    """Whether shipped vectors were made from these rows, embedder, prefix and cues."""
    return (
        meta.get("digest") == shipped.digest()
        and meta.get("model_id") == model_id
        and meta.get("embed_prefix") == EMBED_PREFIX
        and meta.get("cues") == N_CUES
        and meta.get("cues_digest") == CUES_DIGEST
    )


def _cached_bank_embeddings(
    model_id: str, count: int, shipped: Shipped = BANK
) -> np.ndarray | None:
    """The shipped embeddings of the rows, if they match their text and the embedder."""
    base = resources.files("adk_memory_kit.routing")
    try:
        meta = json.loads(base.joinpath(shipped.meta).read_text("utf-8"))
        if not _meta_matches(meta, model_id, shipped):
            return None
        with resources.as_file(base.joinpath(shipped.embeddings)) as path:
            vectors = np.load(path).astype(np.float32)
    except (FileNotFoundError, ValueError, OSError):
        return None
    return vectors if vectors.shape[0] == count else None


def _cached_head(model_id: str, params: dict, shipped: Shipped = BANK) -> LinearHead | None:
    """The shipped head trained on all the rows, if it matches them, the embedder and the
    hyper-parameters (training takes seconds on a busy CPU; loading it, milliseconds)."""
    base = resources.files("adk_memory_kit.routing")
    try:
        meta = json.loads(base.joinpath(shipped.meta).read_text("utf-8"))
        if not _meta_matches(meta, model_id, shipped) or meta.get("head_params") != params:
            return None
        with resources.as_file(base.joinpath(shipped.head)) as path:
            data = np.load(path)
            head = LinearHead(l2=params["l2"])
            head.weights = data["weights"].astype(np.float32)
            head.bias = data["bias"].astype(np.float32)
            head.labels = tuple(str(x) for x in data["labels"])
    except (FileNotFoundError, ValueError, OSError, KeyError):
        return None
    return head


def _cached_update_head(model_id: str, params: dict, shipped: Shipped = BANK) -> LinearHead | None:
    """The shipped update head, if it matches both banks, the embedder and its parameters."""
    base = resources.files("adk_memory_kit.routing")
    try:
        meta = json.loads(base.joinpath(shipped.meta).read_text("utf-8"))
        if not _meta_matches(meta, model_id, shipped) or meta.get("update_head") != {
            **params,
            "backoff": UPDATE_BACKOFF,
            "digest": update_bank_digest(shipped),
        }:
            return None
        with resources.as_file(base.joinpath(shipped.update_head)) as path:
            data = np.load(path)
            head = LinearHead(l2=params["l2"], backoff=UPDATE_BACKOFF)
            head.weights = data["weights"].astype(np.float32)
            head.bias = data["bias"].astype(np.float32)
            head.labels = tuple(str(x) for x in data["labels"])
    except (FileNotFoundError, ValueError, OSError, KeyError):
        return None
    return head


def default_router_embedder() -> Any:
    """MiniLM (what the bank's English was tuned on; the store shares its vectors) joined with
    the multilingual encoder (a space shared across languages: what the router learns from
    one language carries to others)."""
    from adk_memory_kit.embedders import LocalMiniLMEmbedder
    from adk_memory_kit.embedders.multilingual import JoinedEmbedder, MultilingualEncoder

    return JoinedEmbedder(LocalMiniLMEmbedder(), MultilingualEncoder())


class LearnedRouter:
    """Decides each sentence's home (and preference name) from its embedding.

    Two routers in one: a sentence :func:`~adk_memory_kit.text.language.reads_as_other_language`
    (confidently not English) goes to ``other_languages``, a router on MiniLM joined with the
    multilingual encoder that learns from the bank and the other writers' rows
    (:data:`WORLD`); every other sentence to this one, on MiniLM and the kit's bank as before.
    The default router has both; one built with an embedder or examples of its own has only
    itself unless ``other_languages`` is given.

    Args:
        embedder: anything with ``embed_sync(texts)`` / ``embed(texts)`` and ``model_id``
            (default: the shipped :class:`~adk_memory_kit.embedders.LocalMiniLMEmbedder`).
        examples: the labelled examples (default: the rows of ``shipped``, both splits; pass
            ``split="tune"`` to :meth:`from_bank` to evaluate honestly).
        shipped: the rows and package files it learns from (:data:`BANK` or :data:`WORLD`).
        other_languages: the router for sentences in other languages (see above).
        extra_preferences: an application's own preference names, each with at least
            :data:`MIN_PHRASINGS` example phrasings; learned at start-up as
            ``user_state:<name>``.
        cue_weight, l2: the head's hyper-parameters (cross-validated on the tune split).
        guards: ``{label: floor}``: a label that keeps text out of retrieval (``drop``,
            ``review``) wins when its probability reaches the floor (default
            :data:`DEFAULT_GUARDS`): the cheap mistake is the safe one.
        update_floor: a sentence the head routes to long-term memory (``long_term`` or
            ``update``) is an ``update`` when the update head (a second, binary head trained on
            the bank's lasting facts and the update bank, :data:`UPDATE_BANK`) gives it at
            least this (default :data:`UPDATE_FLOOR`); a preference sentence gets
            ``Decision.replaces_earlier`` the same way. It only sets the flag: the home is
            the same, and an update replaces only a memory about its subject.
        read_homes: let the home head (:mod:`.home_head`, trained on many writers in many
            languages) choose each sentence's home; this router's own head then only names
            the label within it (which preference, a fact or an update). Default: on for the
            routers on the shipped rows, off for one built with examples of its own. Without
            the multilingual encoder the router decides alone.
    """

    def __init__(
        self,
        embedder=None,
        *,
        examples: Iterable[Example] | None = None,
        extra_preferences: Mapping[str, Sequence[str]] | None = None,
        cue_weight: float = 0.3,
        l2: float = 0.01,
        guards: Mapping[str, float] | None = None,
        update_floor: float = UPDATE_FLOOR,
        shipped: Shipped = BANK,
        other_languages: LearnedRouter | None = None,
        read_homes: bool | None = None,
    ) -> None:
        self.read_homes = examples is None if read_homes is None else read_homes
        if other_languages is None and embedder is None and examples is None and shipped is BANK:
            other_languages = LearnedRouter(
                default_router_embedder(),
                shipped=WORLD,
                extra_preferences=extra_preferences,
                read_homes=read_homes,
            )
        self.other_languages = other_languages
        self.shipped = shipped
        self.update_floor = update_floor
        self.update_head = LinearHead(l2=l2, backoff=UPDATE_BACKOFF)
        self.guards = dict(DEFAULT_GUARDS if guards is None else guards)
        self.cache_size = 4096
        self._cache: OrderedDict[str, Decision] = OrderedDict()
        if self.read_homes:
            _forget_decisions_when_the_encoder_changes(self)
        if embedder is None:
            from adk_memory_kit.embedders import LocalMiniLMEmbedder

            embedder = LocalMiniLMEmbedder()
        self.embedder = embedder
        self._use_cache = examples is None
        self.examples = tuple(examples if examples is not None else shipped.examples())
        splits = {e.split for e in self.examples}
        self.update_examples = tuple(e for e in load_update_bank() if e.split in splits)
        extra: list[Example] = []
        for name, phrasings in (extra_preferences or {}).items():
            phrasings = [p for p in phrasings if isinstance(p, str) and p.strip()]
            if len(phrasings) < MIN_PHRASINGS:
                raise InvalidInputError(
                    f"extra_preferences[{name!r}] needs at least {MIN_PHRASINGS} example "
                    f"phrasings, got {len(phrasings)}"
                )
            # weighed like a built-in preference: each phrasing repeated until the name has
            # about as many examples as the bank's median preference (a handful of rows
            # among hundreds would otherwise lose to any nearby label on the prior alone)
            repeats = max(1, -(-_preference_rows(self.examples) // len(phrasings)))
            extra.extend(Example(p, USER_STATE_PREFIX + name) for p in phrasings * repeats)
        self.extra = tuple(extra)
        self.cue_weight = cue_weight
        self.head = LinearHead(l2=l2)
        self._fitted = False
        self._lock = asyncio.Lock()

    @classmethod
    def from_bank(cls, embedder=None, *, split: str = "tune", **kw) -> LearnedRouter:
        """A router trained on one split of the shipped rows (with the embedder left to its
        default, both routers, each on that split). It reads homes with the shipped home head,
        which learned from the bank's tune split only (and other writers' corpora), so the
        held-out split stays unseen."""
        kw.setdefault("read_homes", True)
        if embedder is None and "other_languages" not in kw:
            world = [e for e in load_world_bank() if e.split == split]
            kw["other_languages"] = cls(
                default_router_embedder(),
                examples=world,
                shipped=WORLD,
                read_homes=kw["read_homes"],
            )
        return cls(embedder, examples=[e for e in load_bank() if e.split == split], **kw)

    @property
    def preference_names(self) -> set[str]:
        return {e.preference for e in (*self.examples, *self.extra) if e.preference}

    def features(self, texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
        cues = np.stack([cue_vector(t) for t in texts]) if texts else np.zeros((0, N_CUES))
        return np.hstack([vectors, cues * self.cue_weight]).astype(np.float32)

    def _embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        embedded = [EMBED_PREFIX + t for t in texts]
        return np.asarray(self.embedder.embed_sync(embedded), dtype=np.float32)

    async def _embed(self, texts: Sequence[str]) -> np.ndarray:
        embedded = [EMBED_PREFIX + t for t in texts]
        return np.asarray(await self.embedder.embed(embedded), dtype=np.float32)

    @property
    def head_params(self) -> dict:
        return {"cue_weight": self.cue_weight, "l2": self.head.l2}

    def fit_sync(self) -> LearnedRouter:
        """Embed the examples (the bank from the shipped cache when valid) and train (the
        shipped heads when nothing was added to the bank)."""
        if self._use_cache and not self.extra:
            head = _cached_head(self.embedder.model_id, self.head_params, self.shipped)
            update_head = _cached_update_head(
                self.embedder.model_id, self.head_params, self.shipped
            )
            if head is not None and update_head is not None:
                self.head, self.update_head, self._fitted = head, update_head, True
                return self
        texts = [e.text for e in self.examples]
        cached = (
            _cached_bank_embeddings(self.embedder.model_id, len(texts), self.shipped)
            if self._use_cache
            else None
        )
        vectors = cached if cached is not None else self._embed_sync(texts)
        if self.extra:
            vectors = np.vstack([vectors, self._embed_sync([e.text for e in self.extra])])
        every = (*self.examples, *self.extra)
        features = self.features([e.text for e in every], vectors)
        self.head.fit(features, [e.label for e in every], [e.weight for e in every])
        self._fit_update_head(every, features)
        self._fitted = True
        return self

    def _fit_update_head(self, every: Sequence[Example], features: np.ndarray) -> None:
        """Train the update head on the lasting facts of ``every`` and the update bank."""
        # the other writers' lasting facts are not told apart from changes (their corpora say
        # "long_term" for both): the update head learns from the kit's own rows only
        lasting = [i for i, e in enumerate(every) if e.label in LASTING and e.source == KIT]
        extra = [e.text for e in self.update_examples]
        labels = {every[i].label for i in lasting} | {e.label for e in self.update_examples}
        if len(labels) < len(LASTING):
            return  # nothing to tell apart: no sentence is flagged by the update head
        more = self.features(extra, self._embed_sync(extra)) if extra else features[:0]
        self.update_head.fit(
            np.vstack([features[lasting], more]),
            [every[i].label for i in lasting] + [e.label for e in self.update_examples],
        )

    async def fit(self) -> LearnedRouter:
        """:meth:`fit_sync` in a worker thread, once (concurrent callers wait for it)."""
        async with self._lock:
            if not self._fitted:
                await asyncio.to_thread(self.fit_sync)
        return self

    def decide(self, texts: Sequence[str], vectors: np.ndarray) -> list[Decision]:
        """Decisions for ``texts`` given their embeddings (no embedding call)."""
        if not texts:
            return []
        if not self._fitted:
            self.fit_sync()
        features = self.features(texts, vectors)
        probs = self.head.predict_proba(features)
        # the update head's verdict for every sentence, computed once (no update label: none)
        changed = np.zeros(len(texts), dtype=bool)
        if "update" in self.update_head.labels:
            column = self.update_head.labels.index("update")
            changed = self.update_head.predict_proba(features)[:, column] >= self.update_floor
        homes = home_probabilities(texts) if self.read_homes else None
        if homes is None:
            decisions = [self._pick(row) for row in probs]
        else:
            decisions = [
                self._pick_in_home(row, h, bool(c))
                for row, h, c in zip(probs, homes, changed, strict=True)
            ]
        if "update" in self.update_head.labels:
            for i, old in enumerate(decisions):
                flag = bool(changed[i])
                if is_preference(old.label):
                    old = replace(old, replaces_earlier=flag)
                elif old.label in LASTING:
                    old = replace(old, label="update" if flag else "long_term")
                if old.runner_up in LASTING:
                    old = replace(old, runner_up="update" if flag else "long_term")
                decisions[i] = old
        return decisions

    def _pick(self, row: np.ndarray) -> Decision:
        """The most likely label, unless a guarded label reaches its floor: the cheap mistake
        is the safe one (a likely secret is dropped, a likely order to the assistant is
        reviewed, rather than stored where the agent reads it back); with the most likely
        label outside drop and forget as the runner-up."""
        labels = self.head.labels
        best = int(row.argmax())
        if labels[best] not in SAFE_LABELS:
            for guarded, floor in self.guards.items():
                if guarded in labels and float(row[labels.index(guarded)]) >= floor:
                    best = labels.index(guarded)
                    break
        others = [i for i, label in enumerate(labels) if home_of(label) not in _NO_RUNNER_UP]
        second = max(others, key=lambda i: float(row[i])) if others else None
        return Decision(
            labels[best], float(row[best]), runner_up=None if second is None else labels[second]
        )

    def _pick_in_home(self, row: np.ndarray, homes: np.ndarray, changed: bool = False) -> Decision:
        """The home the home head gives (a guarded home wins at its floor, as in
        :meth:`_pick`), then this head's most likely label within it; its confidence is the
        home head's. A home none of this head's labels belongs to: :meth:`_pick`; so is a
        request to forget or a change of a lasting fact (``changed``: the update head's
        verdict) that is this head's own first choice."""
        labels = self.head.labels
        mine = np.zeros(len(HOMES), dtype=np.float32)
        for i, label in enumerate(labels):
            mine[HOMES.index(home_of(label))] += float(row[i])
        weight = HOME_HEAD_WEIGHT[self.shipped is WORLD]
        homes = weight * homes + (1.0 - weight) * mine
        first = labels[int(row.argmax())]
        if home_of(first) == "forget" or (
            first in LASTING and changed and HOMES[int(homes.argmax())] in _NOT_A_CHANGE
        ):
            # a request to forget, and a change of a lasting fact, are this reader's to call:
            # it learned them from the kit's and the other writers' requests and the update
            # bank, and the home head reads them less well ("ya no ..., ahora ..." is no
            # session note; a missed change leaves the old fact current)
            return replace(self._pick(row), own_label=first)
        if self.shipped is not WORLD:
            # in English a request to forget is this router's to call ("I don't remember my
            # PIN" is none): acting on one by mistake deletes what the user wanted kept
            homes = homes.copy()
            homes[HOMES.index("forget")] = 0.0
        home = HOMES[int(homes.argmax())]
        if home == "drop" and float(homes[HOMES.index("forget")]) >= FORGET_OVER_DROP:
            # both keep the sentence out of every store; a request to forget is also acted on
            # ("delete the diagnosis from your memory" names something sensitive)
            home = "forget"
        if home not in _SAFE_HOMES:
            for guarded, floor in self.guards.items():
                guarded_home = LABEL_HOME.get(guarded.split(":", 1)[0])
                if guarded_home and float(homes[HOMES.index(guarded_home)]) >= floor:
                    home = guarded_home
                    break
        inside = [i for i, label in enumerate(labels) if home_of(label) == home]
        if not inside:
            return self._pick(row)
        # a wish about the agent's replies goes to review when no value is found: only this
        # router (the kit's bank teaches it) names one ("I use Android." is no reply style)
        named = [i for i in inside if labels[i] != _REPLY_STYLE or labels[i] == first] or inside
        best = max(named, key=lambda i: float(row[i]))
        others = [i for i, label in enumerate(labels) if home_of(label) not in _NO_RUNNER_UP]
        second = max(
            others, key=lambda i: (float(homes[HOMES.index(home_of(labels[i]))]), float(row[i]))
        )
        return Decision(
            labels[best],
            float(homes[HOMES.index(home)]),
            runner_up=labels[second],
            own_label=first,
        )

    def _other(self, texts: Sequence[str]) -> list[bool]:
        """Which of ``texts`` go to the router for other languages."""
        if self.other_languages is None:
            return [False] * len(texts)
        return [reads_as_other_language(t) for t in texts]

    def classify_sync(self, texts: Sequence[str]) -> list[Decision]:
        """One embedding call for all ``texts`` (per router), then the head."""
        if not texts:
            return []
        other = self._other(texts)
        if self.other_languages is not None and any(other):
            mine, theirs = _parted(texts, other)
            return _merged(
                other,
                self.decide(mine, self._embed_sync(mine)) if mine else [],
                self.other_languages.classify_sync(theirs),
            )
        return self.decide(texts, self._embed_sync(texts))

    async def classify(self, texts: Sequence[str]) -> list[Decision]:
        """One embedding call for the texts not decided recently, then the head. Decisions
        are remembered (up to ``cache_size`` texts), so ingestion asking about a sentence the
        routing plugin classified in this process costs no second embedding. Sentences in
        another language are the other-languages router's (see the class)."""
        if not texts:
            return []
        other = self._other(texts)
        if self.other_languages is not None and any(other):
            mine, theirs = _parted(texts, other)
            return _merged(
                other,
                await self._classify_own(mine) if mine else [],
                await self.other_languages.classify(theirs),
            )
        return await self._classify_own(texts)

    async def _classify_own(self, texts: Sequence[str]) -> list[Decision]:
        await self.fit()
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vectors = await self._embed(missing)
            for text, decision in zip(missing, self.decide(missing, vectors), strict=True):
                self._cache[text] = decision
                if len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        for text in texts:
            self._cache.move_to_end(text)
        return [self._cache[t] for t in texts]


def _forget_decisions_when_the_encoder_changes(router: LearnedRouter) -> None:
    """Clear ``router``'s remembered decisions whenever the home head's encoder is replaced
    (they were made with the old one); the listener holds the router weakly."""
    ref = weakref.ref(router)

    def clear() -> None:
        alive = ref()
        if alive is not None:
            alive._cache.clear()

    on_change(clear)


def _parted(texts: Sequence[str], other: Sequence[bool]) -> tuple[list[str], list[str]]:
    """``texts`` for this router and for the other-languages one (``other``: whose each is)."""
    mine = [t for t, o in zip(texts, other, strict=True) if not o]
    return mine, [t for t, o in zip(texts, other, strict=True) if o]


def _merged(
    other: Sequence[bool], mine: Sequence[Decision], theirs: Sequence[Decision]
) -> list[Decision]:
    """Two routers' decisions back in the order of the sentences (``other``: whose each is)."""
    own, foreign = iter(mine), iter(theirs)
    return [next(foreign) if o else next(own) for o in other]


def write_embedding_cache(embedder=None) -> str:
    """Embed both routers' rows and write the files shipped with the package (the English
    router's on ``embedder``, default MiniLM; the other languages' on the joined embedder);
    returns the English embeddings' path."""
    english = LearnedRouter(embedder)
    _write_shipped(english)
    if english.other_languages is not None:
        _write_shipped(english.other_languages)
    return str(Path(__file__).parent / english.shipped.embeddings)


def _write_shipped(router: LearnedRouter) -> None:
    shipped, base = router.shipped, Path(__file__).parent
    texts = [e.text for e in router.examples]
    vectors = router._embed_sync(texts)
    np.save(base / shipped.embeddings, vectors.astype(np.float16))
    stored = vectors.astype(np.float16).astype(np.float32)  # train on what ships
    features = router.features(texts, stored)
    router.head.fit(
        features, [e.label for e in router.examples], [e.weight for e in router.examples]
    )
    router._fit_update_head(router.examples, features)
    for name, head in ((shipped.update_head, router.update_head), (shipped.head, router.head)):
        np.savez(base / name, weights=head.weights, bias=head.bias, labels=np.array(head.labels))
    meta = {
        "digest": shipped.digest(),
        "model_id": router.embedder.model_id,
        "head_params": router.head_params,
        "update_head": {
            **router.head_params,
            "backoff": UPDATE_BACKOFF,
            "digest": update_bank_digest(shipped),
        },
        "embed_prefix": EMBED_PREFIX,
        "cues": N_CUES,
        "cues_digest": CUES_DIGEST,
    }
    (base / shipped.meta).write_text(json.dumps(meta) + "\n", encoding="utf-8")
