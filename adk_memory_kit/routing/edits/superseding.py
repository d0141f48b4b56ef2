"""An update said in the conversation supersedes the user's memory about the same subject.

A fact flagged ``replaces_earlier`` ("I switched to Monzo") corrects the user's current
memory about its subject (:class:`~.update_subject.SubjectCheck`, or the same typed ``key``)
with the curator's ``correct_memory``: the old one gets ``valid_to`` (still reached with
``as_of``), the new one is current. With none, an old fact said earlier in this session and not
stored yet is stored dated and corrected; with neither, the fact is stored beside the closest
current memory and linked to it (read-time resolution, :meth:`Superseder.store_beside`), or,
with none close, as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.core.markers import MAY_UPDATE
from adk_memory_kit.memory.documents import INDEXED_WITH
from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.entry_scores import dense_score, entry_text
from adk_memory_kit.routing.edits.floor_search import below_the_floor
from adk_memory_kit.routing.edits.named_people import qualifiers_differ
from adk_memory_kit.routing.edits.said_earlier import unstored_sentences
from adk_memory_kit.routing.edits.update_subject import adds, first_clause, people, subject_keys
from adk_memory_kit.routing.outcomes import RoutingOutcome, long_term_entry
from adk_memory_kit.routing.rule import Candidate, MemoryHome

if TYPE_CHECKING:
    from google.adk.agents.context import Context


class Superseder:
    """Acts on updates, with ``settings``' bars and subject check."""

    def __init__(self, settings: EditSettings) -> None:
        self.settings = settings

    async def update(self, candidate: Candidate, context: Context) -> RoutingOutcome | None:
        """Supersede the current memory about the same subject as ``candidate`` (the closest
        one :meth:`about_the_same` accepts); ``None``: none is (store it as usual) or the
        service cannot correct."""
        service = context_memory_service(context)
        curator = getattr(service, "curator", None)  # PgVectorMemoryService's part
        if service is None or curator is None:
            return None
        session = context.session
        current = await self.current_near(service, context, candidate.text)
        best = await self.about_the_same(service, candidate, current)
        if best is not None and not self.clear_choice(candidate, best, current):
            # the subject check chose a memory well behind the closest one: superseding the
            # wrong one would hide a true fact, a link only orders two (choosing by harm)
            return await self.store_beside(service, candidate, context, current)
        if best is None:
            replaced = await self.replace_said_earlier(service, curator, candidate, context)
            if replaced is not None:
                return replaced
            return await self.store_beside(service, candidate, context, current)
        # the replacement inherits the old fact's subject words as index keys (tags), so a
        # question the old fact answered finds it ("reading" for "Finished Dune, on X now")
        keys = subject_keys(
            entry_text(best), candidate.text, (best.custom_metadata or {}).get("tags") or ()
        )
        fixed = await curator.correct_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memory_id=best.id,
            new_text=candidate.text.strip(),
            reason="the user said it changed",
            by=self.settings.by,
            tags=keys or None,
        )
        return RoutingOutcome(
            MemoryHome.LONG_TERM, "stored", candidate.key, f"supersedes {fixed.old_id}"
        )

    async def link(self, candidate: Candidate, context: Context) -> RoutingOutcome | None:
        """A lasting fact the router did not flag as a change, stored beside the user's
        current memory closest to it when that one is at least ``plain_link_similarity``
        close, or ``plain_link_other_people_similarity`` when the two name different people
        (:meth:`store_beside`; nothing is superseded or hidden). ``None``: no memory
        that close, or linking is off: the fact is stored as usual."""
        bar = self.settings.plain_link_similarity
        service = context_memory_service(context)
        if bar is None or service is None or getattr(service, "curator", None) is None:
            return None
        current = await self.current_near(service, context, candidate.text)
        whom = people(candidate.text)
        other = self.settings.plain_link_other_people_similarity
        current = [m for m in current if people(entry_text(m)) == whom or dense_score(m) >= other]
        return await self.store_beside(service, candidate, context, current, bar=bar)

    async def current_near(self, service: Any, context: Context, text: str) -> list[Any]:
        """The user's current memories closest to ``text`` (at most ``update_candidates``, at
        least ``update_min_similarity`` close)."""
        session = context.session
        # the store's relevance floor is for answers, not for what a new fact may replace: a
        # job said in other words ("I'm an analyst at X" / "I started at Y") is often below
        # it; ``update_min_similarity`` is the bar here
        looked_at = await below_the_floor(
            service, session, text, self.settings.update_candidates, include_superseded=False
        )
        if not looked_at:  # another service, or the wider search failed: the plain search
            found = await service.search(
                app_name=session.app_name,
                user_id=session.user_id,
                query=text,
                limit=self.settings.update_candidates,
                record_access=False,
            )
            looked_at = list(found.memories)
        return [
            m
            for m in looked_at
            if "superseded_at" not in (m.custom_metadata or {})
            and dense_score(m) >= self.settings.update_min_similarity
        ]

    async def replace_said_earlier(
        self, service: Any, curator: Any, candidate: Candidate, context: Context
    ) -> RoutingOutcome | None:
        """An update whose old fact was said earlier in this session but not stored yet (the
        router kept no candidate for it, so ingestion would store it later as a current
        memory beside the update): the sentence about the same subject
        (:meth:`about_the_same`'s check) is stored now, dated when it was said, and corrected
        to the new fact, so ``as_of`` reaches it and a default search does not. The outcome's
        ``earlier`` tells the routing record, so ingestion leaves that sentence out.
        ``None``: no such sentence (the fact is stored as usual)."""
        embedder = getattr(service, "embedder", None)
        said = unstored_sentences(context, self.settings.earlier_sentences)
        if embedder is None or not said:
            return None
        verdicts = await self.settings.subject_check.same_subject(
            embedder, candidate.text, [s.text for s in said]
        )
        same = [(c, s) for s, (ok, c) in zip(said, verdicts, strict=True) if ok]
        if not same:
            return None
        old = max(same, key=lambda pair: pair[0])[1]
        session = context.session
        entry, meta = long_term_entry(
            Candidate(
                text=old.text,
                about_user=True,
                needed_in_future_sessions=True,
                observed_at=old.when,
            ),
            session_id=session.id,
        )
        report = await service.add_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memories=[entry],
            custom_metadata=meta or None,
        )
        outcomes = getattr(report, "outcomes", None) or []
        # written (or the stored fact it duplicates, or a row held for review): corrected
        stored = [o for o in outcomes if o.outcome != "REJECTED" and o.memory_id]
        if not stored:  # rejected by the service's own policy: the update is stored as usual
            return None
        fixed = await curator.correct_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memory_id=stored[0].memory_id,
            new_text=candidate.text.strip(),
            reason="the user said it changed",
            by=self.settings.by,
            tags=subject_keys(old.text, candidate.text, ()) or None,
        )
        return RoutingOutcome(
            MemoryHome.LONG_TERM,
            "stored",
            candidate.key,
            f"supersedes {fixed.old_id} (said earlier in the session)",
            earlier=((old.event_id, old.index, MemoryHome.LONG_TERM),),
        )

    def clear_choice(self, candidate: Candidate, best: Any, current: Sequence[Any]) -> bool:
        """Whether superseding ``best`` is safe: it carries ``candidate``'s typed subject, or
        no current memory is closer to ``candidate`` by more than ``supersede_margin`` (a
        memory about someone the fact brings in only after its first clause is no rival:
        "..., my brother talked me into it" is not about the brother's phone)."""
        key = (candidate.key or "").strip().lower()
        if key and ((best.custom_metadata or {}).get("key") or "").lower() == key:
            return True
        incidental = people(candidate.text) - people(first_clause(candidate.text))
        rivals = [m for m in current if not (people(entry_text(m)) & incidental)]
        closest = max((dense_score(m) for m in rivals), default=0.0)
        return closest - dense_score(best) <= self.settings.supersede_margin

    async def store_beside(
        self,
        service: Any,
        candidate: Candidate,
        context: Context,
        current: Sequence[Any],
        *,
        bar: float | None = None,
    ) -> RoutingOutcome | None:
        """An update no memory is close enough to supersede, stored beside the user's current
        memory closest to it (at least ``bar``, by default ``update_link_similarity``) and
        linked to it
        (``MAY_UPDATE``): nothing is hidden; the read path lets the update lead that memory,
        and the update is indexed with that memory's text, so the questions it answers find
        the update too. Choosing by harm: a wrong link only changes which of two memories is
        shown first. ``None``: no memory that close, or the update only adds ("also", "too"),
        or another kind of the same thing ("my ex-wife" / "my wife"): stored as usual."""
        if adds(candidate.text):
            return None
        bar = self.settings.update_link_similarity if bar is None else bar
        near = [m for m in current if dense_score(m) >= bar]
        if not near:
            return None
        nearest = max(near, key=dense_score)
        old_text = entry_text(nearest)
        if not nearest.id or qualifiers_differ(candidate.text, old_text):
            return None
        session = context.session
        entry, meta = long_term_entry(candidate, source="routing", session_id=session.id)
        entry.custom_metadata = {
            **(entry.custom_metadata or {}),
            MAY_UPDATE: str(nearest.id),
            INDEXED_WITH: old_text,
        }
        await service.add_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memories=[entry],
            custom_metadata=meta or None,
        )
        return RoutingOutcome(
            MemoryHome.LONG_TERM, "stored", candidate.key, f"may update {nearest.id}"
        )

    async def about_the_same(
        self, service: Any, candidate: Candidate, memories: Sequence[Any]
    ) -> Any | None:
        """The memory ``candidate`` replaces: of those about its subject, the closest. A typed
        subject decides when both carry one (the ``key`` metadata: equal, or different);
        otherwise :class:`~.update_subject.SubjectCheck` (the same people, the same slot, close
        enough). Without an embedder on the service, only a typed subject matches."""
        key = (candidate.key or "").strip().lower()
        typed = [m for m in memories if ((m.custom_metadata or {}).get("key") or "").lower()]
        if key:
            same = [m for m in typed if (m.custom_metadata or {})["key"].lower() == key]
            if same:
                return max(same, key=dense_score)
        untyped = [m for m in memories if m not in typed] if key else list(memories)
        embedder = getattr(service, "embedder", None)
        if embedder is None or not untyped:
            return None
        verdicts = await self.settings.subject_check.same_subject(
            embedder, candidate.text, [entry_text(m) for m in untyped]
        )
        same_subject = [(c, m) for m, (ok, c) in zip(untyped, verdicts, strict=True) if ok]
        # the user's own update ("Switched to a Pixel 8, my brother talked me into it") replaces
        # the user's own memory before one about someone it brings in later ("My brother has a
        # Samsung")
        if not people(first_clause(candidate.text)):
            own = [(c, m) for c, m in same_subject if not people(entry_text(m))]
            same_subject = own or same_subject
        return max(same_subject, key=lambda pair: pair[0])[1] if same_subject else None
