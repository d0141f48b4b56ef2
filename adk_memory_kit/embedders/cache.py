"""A small, bounded, thread-safe cache of embeddings by exact text.

The offline router and the memory store embed with the same MiniLM; a sentence the router
embedded is often the very text the store embeds next (a one-sentence user turn is indexed
as ``user: <sentence>``, which is what the router embeds). Keeping the last vectors by text
lets the second call skip the model. Exact text only: no normalisation, so a hit returns
precisely what the model gave for that string.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np


class EmbeddingCache:
    """Least-recently-used vectors by text; at most ``capacity`` entries (0: caches nothing).

    Vectors are stored as read-only float32 arrays (1.5 KB each for 384 dimensions).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(0, int(capacity))
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get_many(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The cached vector of each text (``None`` where not cached); hits become recent."""
        out: list[np.ndarray | None] = []
        with self._lock:
            for text in texts:
                vector = self._items.get(text)
                if vector is not None:
                    self._items.move_to_end(text)
                    self.hits += 1
                else:
                    self.misses += 1
                out.append(vector)
        return out

    def put_many(self, pairs: Iterable[tuple[str, np.ndarray]]) -> None:
        """Remember vectors, evicting the least recently used beyond ``capacity``."""
        if not self.capacity:
            return
        with self._lock:
            for text, vector in pairs:
                stored = np.array(vector, dtype=np.float32)
                stored.setflags(write=False)
                self._items[text] = stored
                self._items.move_to_end(text)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0
