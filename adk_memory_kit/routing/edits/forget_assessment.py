"""How each memory relates to a forget request's subject: its score, and whether it matches
the subject on its own (the absolute bar: a request for something never stored deletes
nothing). The signals are the embedder's cosines and the subject's words
(:mod:`.subject_words`); ``benchmarks/forget_scorer_study.py`` fits a scorer over them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adk_memory_kit.embedders.base import checked_embed
from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.entry_scores import unit_rows
from adk_memory_kit.routing.edits.forget_requests import VAGUE_WORDS
from adk_memory_kit.routing.edits.kind_names import KindNames
from adk_memory_kit.routing.edits.named_people import relation
from adk_memory_kit.routing.edits.subject_words import (
    GENERIC,
    NAME,
    NAMED_OWNER,
    another_time,
    holds_identifier,
    holds_words,
    identifier_word,
    modifies,
    names_in,
    names_someone,
    owner_of,
    possessor,
    without_possessor,
)
from adk_memory_kit.text.signals import content_stems, words


@dataclass(frozen=True)
class Assessment:
    """How each memory text relates to one forget subject (arrays aligned with the texts):
    cosine to the subject, score, whether it matches on its own, closest example of a kind the
    subject names (``by_kind``) and of any kind (``best_kind``), whether it is about someone
    the subject does not name, whether the possessor's head lifted it."""

    cosines: np.ndarray
    scores: np.ndarray
    own: np.ndarray
    by_kind: np.ndarray
    best_kind: np.ndarray
    names_kind: bool
    about_others: np.ndarray
    lifted: np.ndarray


class ForgetAssessor:
    """Scores memory texts against a forget subject, with ``settings``' bars."""

    def __init__(self, settings: EditSettings, kinds: KindNames) -> None:
        self.settings = settings
        self.kinds = kinds

    async def assess(
        self,
        embedder: Any,
        subject: str,
        texts: list[str],
        named_kinds: list[tuple[str, bool]] | None = None,
    ) -> Assessment:
        """How each memory text relates to a forget request's ``subject``.

        The score is the cosine similarity of its text to the subject (counted when they share
        a content word or it is at least ``unshared_min_similarity``), or, when the subject
        names a kind of detail, to that kind's closest example less ``kind_example_discount``,
        whichever is higher; ``own``: whether it matches the subject on its own
        (:meth:`on_its_own`); and the signals those rest on (``benchmarks/
        forget_scorer_study.py`` fits a scorer over them)."""
        whose = possessor(subject)
        head = without_possessor(subject, whose) if whose else subject
        if named_kinds is None:
            named_kinds = await self.kinds.named_by(embedder, head)
        kinds = [k for k, _ in named_kinds]
        vectors = unit_rows(await checked_embed(embedder, [subject, *texts]))
        cosines = vectors[1:] @ vectors[0]
        # a direct match shares a word with the subject or is very close: "my boss Karen"
        # needs "Karen" or "boss", so an unrelated fact is not taken for a missing one
        named = content_stems(subject) - VAGUE_WORDS
        head_named = content_stems(head) - VAGUE_WORDS
        shares = np.array([bool(named & content_stems(t)) for t in texts])
        scores = np.where(
            shares | (cosines >= self.settings.unshared_min_similarity), cosines, -1.0
        )
        by_kind = np.full(len(texts), -1.0)
        for kind, narrower in named_kinds:
            examples = await self.kinds.examples(embedder, kind)
            # a subject narrower than its kind ("my salary" in finances) does not take every
            # detail of that kind ("I pay rent"): only those closer to its examples
            penalty = self.settings.kind_term_penalty if narrower else 0.0
            by_kind = np.maximum(by_kind, (vectors[1:] @ examples.T).max(axis=1) - penalty)
        scores = np.maximum(scores, by_kind - self.settings.kind_example_discount)
        best_kind = await self.kinds.best_kind_scores(embedder, vectors[1:])
        lifted = np.zeros(len(texts), dtype=bool)
        if whose:
            # someone else's detail: only a memory that names them (the head is matched below)
            others = [not ok for ok in await self.names_owner(embedder, whose, texts)]
            # ... and says more about them than who they are: the subject is closer to it than
            # "my <them>" is by ``head_lift`` (length-neutral: both phrases are short)
            (owner_vector,) = unit_rows(await checked_embed(embedder, [f"my {whose}"]))
            lift = cosines - vectors[1:] @ owner_vector
            lifted = (cosines >= self.settings.owner_head_similarity) & (
                lift >= self.settings.head_lift
            )
            scores = np.where(lifted, np.maximum(scores, cosines), scores)
        else:
            others = await self.about_others(embedder, subject, kinds, texts, named)
        # "my ex-wife" is not "my current wife", nor "my mother-in-law" "my mother": never a
        # match, not even a weak one to ask about
        # "my ex-boyfriend" / "My boyfriend works at a bank": maybe told before the break-up,
        # maybe the current one; never a match on its own (at most asked about)
        relations = [relation(subject, t) for t in texts]
        else_ = np.array([r == "other" for r in relations], dtype=bool)
        scores = np.where(else_, -1.0, scores)
        others = [bool(o or e) for o, e in zip(others, else_, strict=True)]
        unsure = [r == "unsure" for r in relations]
        # a name alone is not the subject: "my ex-girlfriend Priya" and "Priya from accounts";
        # nor someone's name their detail ("Sarah's pregnancy" / "Sarah is a nurse")
        by_name = np.array(await self.name_led(embedder, subject, texts), dtype=bool)
        close = (cosines >= self.settings.own_min_similarity) & ~by_name
        lifted &= ~by_name
        # a name the subject gives ("my Instagram handle") that the memory lacks: the memory
        # may be another of its kind ("My Twitter handle is ..."), so only a close one matches
        names = names_in(head)
        lacks = [bool(names - content_stems(t)) for t in texts]
        generic_head = identifier_word(head)
        own = [
            not other
            and not maybe
            # a memory dated other than the subject says is another one of its kind
            and not another_time(subject, t)
            and (generic_head is None or holds_identifier(generic_head, t))
            and (
                bool(up)
                or bool(cc)
                or (
                    not lack
                    and self.on_its_own(
                        head_named,
                        t,
                        float(c),
                        float(k),
                        float(b),
                        bool(kinds),
                        cc,
                    )
                )
            )
            for t, c, k, b, other, up, cc, maybe, lack in zip(
                texts,
                cosines,
                by_kind,
                best_kind,
                others,
                lifted,
                close,
                unsure,
                lacks,
                strict=True,
            )
        ]
        return Assessment(
            cosines=cosines.astype(float),
            scores=scores.astype(float),
            own=np.array(own, dtype=bool),
            by_kind=by_kind.astype(float),
            best_kind=best_kind.astype(float),
            names_kind=bool(kinds),
            about_others=np.array(others, dtype=bool),
            lifted=lifted,
        )

    async def about_others(
        self, embedder: Any, subject: str, kinds: Sequence[str], texts: list[str], named: set[str]
    ) -> list[bool]:
        """Whether each memory is about someone or something the request does not name: it
        opens "my X" / "our X" where X is neither a word of the subject or of a kind it names
        (label and examples) nor at least ``owner_min_similarity`` close to the subject or a
        label ("My sister's number ..." for "my phone number"; "Our house ..." is about a home
        address)."""
        allowed = named | self.kinds.kind_stems(kinds)
        owners = [owner_of(t) for t in texts]
        unnamed = sorted({o[0] for o in owners if o is not None and o[1] not in allowed})
        if not unnamed:
            return [False] * len(texts)
        vectors = unit_rows(await checked_embed(embedder, [*unnamed, subject, *kinds]))
        close = (vectors[: len(unnamed)] @ vectors[len(unnamed) :].T).max(axis=1)
        far = {
            w for w, c in zip(unnamed, close, strict=True) if c < self.settings.owner_min_similarity
        }
        # with a kind of detail named, a qualifier tells one of its kind from another ("My
        # office address" is not "my address"); without one, it may only say whose it is
        distinct = set() if kinds else named - GENERIC
        # ... or the thing the user's subject owns, when it says more of it ("my visa got
        # refused" / "My US visitor visa ...")
        owned = None if kinds else owner_of(subject)
        thing = {owned[1]} if owned and not names_someone(owned[0]) else set()
        return [
            o is not None
            and o[0] in far
            and not (modifies(o[0], t, distinct) or modifies(o[0], t, thing))
            for o, t in zip(owners, texts, strict=True)
        ]

    async def name_led(self, embedder: Any, subject: str, texts: list[str]) -> list[bool]:
        """Whether each memory is close to the subject only through a name they share: it
        holds a capitalised name of the subject ("Priya" in "my ex-girlfriend Priya") and,
        with the shared names left out of both, its cosine to the subject is below
        ``name_free_min_similarity`` ("Priya from accounts is leaving": 0.61 with the name,
        0.23 without; "Priya and I split up ...": 0.36 without)."""
        named = set(NAME.findall(subject))
        if opening := NAMED_OWNER.match(subject):  # "Sarah's pregnancy"
            named.add(opening.group(1))
        shared = [{n for n in named if re.search(rf"\b{n}\b", t)} for t in texts]
        if not any(shared):
            return [False] * len(texts)
        out = [False] * len(texts)
        pairs: list[tuple[int, str, str]] = []  # (memory, subject, memory) with the names out
        for i, (text, names) in enumerate(zip(texts, shared, strict=True)):
            if not names:
                continue
            pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
            bare_subject, bare_text = (
                " ".join(pattern.sub(" ", x).split()) for x in (subject, text)
            )
            if not bare_subject or not bare_text:
                out[i] = True  # nothing but the name: the name alone ties them
            else:
                pairs.append((i, bare_subject, bare_text))
        if pairs:  # one batched call for every memory that shares a name
            flat = [t for _, a, b in pairs for t in (a, b)]
            vectors = unit_rows(await checked_embed(embedder, flat))
            for k, (i, _, _) in enumerate(pairs):
                similarity = float(vectors[2 * k] @ vectors[2 * k + 1])
                out[i] = similarity < self.settings.name_free_min_similarity
        return out

    async def names_owner(self, embedder: Any, whose: str, texts: list[str]) -> list[bool]:
        """Whether each memory names ``whose`` (the possessor of a subject like "my wife's
        phone number"): it holds the word, or a content word at least ``owner_word_similarity``
        close to it ("mother" for "mum", "daughter" for "kid")."""
        stem = next(iter(content_stems(whose)), whose)
        per_text = [sorted({w.split("'")[0] for w in words(t)} - {""}) for t in texts]
        per_text = [[w for w in ws if content_stems(w)] for ws in per_text]
        vocab = sorted({w for ws in per_text for w in ws})
        if not vocab:
            return [False] * len(texts)
        vectors = unit_rows(await checked_embed(embedder, [whose, *vocab]))
        close = dict(zip(vocab, (vectors[1:] @ vectors[0]).tolist(), strict=True))
        return [
            stem in content_stems(t)
            or any(close[w] >= self.settings.owner_word_similarity for w in ws)
            for t, ws in zip(texts, per_text, strict=True)
        ]

    def on_its_own(
        self,
        named: set[str],
        text: str,
        cosine: float,
        kind_score: float,
        best_kind_score: float,
        names_kind: bool,
        close: bool | None = None,
    ) -> bool:
        """Whether a memory matches the subject by itself, not only as the closest of what the
        user has (the absolute bar: a request for something never stored deletes nothing).

        (A memory about someone or something else never does, :meth:`about_others`.) It does
        when its cosine to the subject is at least ``own_min_similarity`` (``close``: that
        test, made by the caller, with :meth:`name_led` memories failing it); or when it holds
        every word that names the subject (generic ones like "old" or "number" aside) and is at
        least ``forget_min_similarity`` close (``one_word_min_similarity`` when one word names
        it); or, for a subject naming a kind of detail, when the kind's closest example is at
        least ``kind_own_min_similarity`` close and within ``kind_tolerance`` of the closest
        example of any kind (a phone preference is not an email address).
        """
        if cosine >= self.settings.own_min_similarity if close is None else close:
            return True
        distinct = named - GENERIC
        bar = (
            self.settings.one_word_min_similarity
            if len(distinct) == 1
            else self.settings.forget_min_similarity
        )
        if distinct and holds_words(distinct, text) and cosine >= bar:
            return True
        return (
            names_kind
            and kind_score >= self.settings.kind_own_min_similarity
            and kind_score >= best_kind_score - self.settings.kind_tolerance
        )
