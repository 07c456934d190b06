"""An incremental BM25 index whose query cost is the postings of the query's own terms.

rank-bm25 rebuilds everything on a change and scores every document on every query, which a keystroke-driven
index cannot afford. Here each term keeps one flat `array('i')` of `(document, frequency)` pairs, read by numpy
without copying; a changed file's snippets are retired (a flag) and its new snippets appended, so an edit costs
the edited file only.
Retired entries stay in the postings, skipped while scoring, until `compact` drops them.

Path and symbol terms live in a second, boolean field that adds a fixed multiple of the term's idf: a
query word that names the file or the function is stronger evidence than the same word in a body.

An index is pickled (persisted, or sent back by a cold-build worker) as `Packed`: each table's postings laid
end to end in one buffer, so a hundred thousand terms cost one bytes object instead of a hundred thousand
array pickles, and absorbing a worker's share shifts every document id in one numpy operation. An index keeps
that buffer in memory too, read back from disk or laid out after a build (`Postings.pack`): a query reads its
terms' postings as views of it, and an edit appends to an array of what each term it adds to gained since, leaving
the term's postings in the buffer where they are.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt

COMPACT_AFTER = 1000
"""Retired documents left in the postings before a compaction is worth its pass (see `compact_if_due`)."""

K1 = 1.2
B = 0.75
META_BOOST = 0.75
"""A query word that names the file or the symbol adds three quarters of its idf on top of its body score.

A larger bonus (the first guess was 2.0) let every snippet of a file whose name matched one query word outrank
the snippet that does the thing; 0.75 was chosen by `python -m bench.lexical` (chosen on two query sets, scored
on the third; the figures are in bench/README.md)."""


@dataclass(frozen=True, slots=True)
class PackedTable:
    """One postings table as pickled: `terms[i]`'s int32 values are `flat[ends[i-1]:ends[i]]` (byte offsets), except
    where `terms[i]` is "" (bytes no term uses any more); `gains` holds, as arrays, what a term gained since the buffer
    was laid out (after its values in the buffer), or all of a term's values when the buffer has none."""

    terms: list[str]
    ends: Sequence[int]
    flat: bytes
    gains: dict[str, array[int]]

    def unpack_into(self, table: Postings, width: int, offset: int) -> None:
        """Add these postings to `table` with every document id raised by `offset` (the buffer's in one numpy
        operation: a worker's share is all buffer)."""
        flat = memoryview(_shifted(self.flat, width, offset))
        added = ((term, _shifted(values.tobytes(), width, offset)) for term, values in self.gains.items())
        for term, values in chain(self._held(flat), added):  # one at a time: a share's terms' views are not all kept
            postings = table.writable(term)
            if postings is None:
                postings = table.arrays[term] = array("i")
            postings.frombytes(values)

    def _held(self, flat: memoryview) -> Iterator[tuple[str, memoryview]]:
        """Each term of the buffer with a view of its values in `flat`."""
        start = 0
        for term, end in zip(self.terms, self.ends, strict=True):
            if term:
                yield term, flat[start:end]
            start = end


def _shifted(values: bytes, width: int, offset: int) -> bytes:
    """`(document, ...)` int32 rows of `width` with each document id raised by `offset`."""
    if not offset:
        return values
    rows = np.frombuffer(values, dtype=np.int32).copy()
    rows.reshape(-1, width)[:, 0] += offset
    return rows.tobytes()


def _joined(pieces: Sequence[array[int] | memoryview]) -> tuple[list[int], bytes]:
    """Postings laid end to end: each piece's end (byte offset) and the buffer."""
    ends = np.cumsum([len(piece) * piece.itemsize for piece in pieces], dtype=np.int64).tolist()
    return ends, b"".join(pieces)


class Postings:
    """One table, term -> its postings: one packed buffer laid out end to end, and arrays of what terms gained since.

    A table built by `add` holds arrays alone; `pack` lays them out in one buffer, as a loaded table holds them, so a
    large repository's hundred thousand terms cost one allocation, not one each with its slack. Reading a term
    (`get`) of the buffer alone never copies: it comes back as a view of the buffer. Writing one (`writable`, for
    `add`) appends to an array of the term's own after what the buffer holds of it, so an edit costs what it adds:
    cutting each of its terms out of the buffer whole copied the postings of the commonest words of the language,
    most of the buffer, at the first edit of a session. A term with values in both is read as one copy of the two
    (`get`). Every change to the layout holds a lock of its own (`_layout`): look-ups that do not hold the index's
    lock (symbol popularity) may race an edit for the same term.
    """

    __slots__ = ("_ends", "_flat", "_layout", "_spans", "arrays")

    def __init__(self, packed: PackedTable | None = None) -> None:
        self.arrays: dict[str, array[int]] = {t: array("i", v) for t, v in (packed.gains if packed else {}).items()}
        """Each term's values past those of the buffer (all of them for a term the buffer lacks); `add` appends to
        them in place (copies of the table's it was made from: an index copied through its pickled form must not
        grow the original's)."""
        self._layout = threading.Lock()
        self._flat = b""
        self._ends = array("q")
        """Packed term number `i`'s bytes end at `_ends[i]` and start where `i - 1`'s end."""
        self._spans: dict[str, int] = {}
        """The terms in the buffer, each with its number (an int, not a pair of offsets: a root's hundred thousand
        terms are held here); a term may also be in `arrays`, for what it gained since."""
        if packed is not None:
            self._lay_out(packed.terms, packed.ends, packed.flat)

    def _lay_out(self, terms: Sequence[str], ends: Sequence[int], flat: bytes) -> None:
        self._flat, self._ends = flat, array("q", ends)
        self._spans = {term: number for number, term in enumerate(terms) if term}

    def get(self, term: str) -> array[int] | memoryview | bytes | None:
        """The term's postings (int32 values) to read, not to change, or None when no document has it."""
        with self._layout:
            added = self.arrays.get(term)
            number = self._spans.get(term)
            if number is None:
                return added
            held = memoryview(self._flat)[self._span(number)]
            return held.cast("i") if not added else b"".join((held, added))

    def writable(self, term: str) -> array[int] | None:
        """The array to append the term's new values to (after what the buffer holds of it); None when no document
        has it."""
        found = self.arrays.get(term)
        if found is None and self._spans:
            with self._layout:
                found = self.arrays.get(term)
                if found is None and term in self._spans:
                    found = self.arrays[term] = array("i")
        return found

    def _fold_in_gains(self) -> None:
        """Terms that gained values since the buffer was laid out become arrays of all their values, out of the
        buffer: what `pack` and `compact` expect, a term in one place (under `_layout`)."""
        for term, added in self.arrays.items():
            if (number := self._spans.pop(term, None)) is not None:
                whole = array("i", self._flat[self._span(number)])
                whole.extend(added)
                self.arrays[term] = whole

    def count(self, term: str) -> int:
        """How many int32 values the term's postings hold, without reading them."""
        with self._layout:
            added = self.arrays.get(term)
            number = self._spans.get(term)
            held = 0 if number is None else (self._ends[number] - (self._ends[number - 1] if number else 0)) // 4
            return held + (len(added) if added is not None else 0)

    def document_range(self, width: int) -> tuple[int, int] | None:
        """The lowest and highest document id in the table (every `width`-th int32), or None when it is empty; the
        buffer's stale bytes count too (ids only grow, so they are within the range of the ids in use)."""
        with self._layout:
            flat = b"".join([self._flat, *self.arrays.values()])
        documents = np.frombuffer(flat, dtype=np.int32)[::width]
        return (int(documents.min()), int(documents.max())) if len(documents) else None

    def pack(self) -> None:
        """Lay every term's postings out end to end in one buffer (a copy of them all: after a build, not per
        edit)."""
        with self._layout:
            self._fold_in_gains()
            self._lay_out([*self._spans, *self.arrays], *_joined([*self._packed_pieces(), *self.arrays.values()]))
            self.arrays = {}

    def worth_packing(self) -> bool:
        """Whether the terms with arrays are a quarter of the terms or more (a build's are all of them): fewer are
        left for the next compaction, which lays the table out anyway, rather than copying every term for them."""
        terms = len(self._spans) + sum(1 for term in self.arrays if term not in self._spans)
        return len(self.arrays) * 4 >= terms > 0

    def compact(self, alive: npt.NDArray[np.bool_], width: int) -> None:
        """Keep the postings of `alive` documents only (rows of `width` int32 values, the document first), laid out
        in one buffer: the buffer's rows filtered in one numpy pass, the few arrays one by one."""
        with self._layout:
            self._fold_in_gains()
            terms, counts, pieces = self._kept_packed(alive, width)
            for term, values in self.arrays.items():
                rows = np.frombuffer(values, dtype=np.int32).reshape(-1, width)
                kept = rows[alive[rows[:, 0]]]
                if len(kept):
                    terms.append(term)
                    counts.append(len(kept))
                    pieces.append(kept)
            sizes = np.array(counts, dtype=np.int64) * (width * 4)
            self._lay_out(terms, np.cumsum(sizes).tolist(), b"".join(memoryview(p).cast("B") for p in pieces))
            self.arrays = {}

    def _kept_packed(
        self, alive: npt.NDArray[np.bool_], width: int
    ) -> tuple[list[str], list[int], list[npt.NDArray[np.int32]]]:
        """The buffer's terms that keep a row, their rows kept, and those rows (one array), under `_layout`."""
        if not self._spans:
            return [], [], []
        rows = np.frombuffer(self._flat, dtype=np.int32).reshape(-1, width)
        ends = np.frombuffer(self._ends, dtype=np.int64) // (4 * width)
        starts = np.concatenate(([0], ends[:-1]))
        numbers = np.fromiter(self._spans.values(), dtype=np.int64, count=len(self._spans))
        bounds = np.zeros(len(rows) + 1, dtype=np.int64)  # +1 where a term still in the buffer starts, -1 where it ends
        np.add.at(bounds, starts[numbers], 1)
        np.add.at(bounds, ends[numbers], -1)
        keep = (np.cumsum(bounds[:-1]) > 0) & alive[rows[:, 0]]  # bytes no term uses go too
        before = np.concatenate(([0], np.cumsum(keep)))
        counts = before[ends[numbers]] - before[starts[numbers]]
        terms = [term for term, count in zip(self._spans, counts.tolist(), strict=True) if count]
        return terms, counts[counts > 0].tolist(), [rows[keep]] if terms else []

    def packed(self) -> PackedTable:
        """The table as pickled. A table that was never laid out (a worker's share) joins its arrays into one
        buffer; any other shares its buffer and arrays as they are, copying neither.

        The caller holds the index's lock, as `RootIndex.persist` does: nothing may change the arrays while they
        are pickled."""
        with self._layout:
            if not self._ends:
                return PackedTable(list(self.arrays), *_joined(list(self.arrays.values())), {})
            terms = [""] * len(self._ends)
            for term, number in self._spans.items():
                terms[number] = term
            return PackedTable(terms, self._ends, self._flat, dict(self.arrays))

    def _packed_pieces(self) -> list[memoryview]:
        """The postings still in the buffer, in the order of `_spans` (under `_layout`)."""
        flat = memoryview(self._flat)
        return [flat[self._span(number)] for number in self._spans.values()]

    def _span(self, number: int) -> slice:
        """Where packed term `number`'s postings lie in `_flat`."""
        return slice(self._ends[number - 1] if number else 0, self._ends[number])


@dataclass(frozen=True, slots=True)
class Packed:
    """A whole `Bm25Index` as a few flat values: what is pickled, and what a worker's share carries."""

    body: PackedTable
    meta: PackedTable
    lengths: array[float]
    alive: bytearray
    live: int
    live_length: float


class Bm25Index:
    """Documents are integer ids handed out by `add`; `retire` removes one from every ranking."""

    def __init__(self) -> None:
        self.body = Postings()
        self.meta = Postings()
        self.lengths = array("f")
        self.alive = bytearray()
        self.live = 0
        self.live_length = 0.0
        self.stale = 0
        """Retired documents whose postings are still in the tables (until `compact`)."""

    def add(self, body: Mapping[str, int], meta: Iterable[str]) -> int:
        """Index a document; returns its id."""
        doc = len(self.lengths)
        arrays, find = self.body.arrays, self.body.writable
        for term, frequency in body.items():
            found = arrays.get(term) or find(term)  # a dict look-up first: `add` runs per term of every snippet
            if found is None:
                arrays[term] = array("i", (doc, frequency))
            else:
                found.append(doc)
                found.append(frequency)
        for term in meta:
            found = self.meta.writable(term)
            if found is None:
                self.meta.arrays[term] = array("i", (doc,))
            else:
                found.append(doc)
        length = float(sum(body.values()))
        self.lengths.append(length)
        self.alive.append(1)
        self.live += 1
        self.live_length += length
        return doc

    def retire(self, doc: int) -> None:
        """Drop a document from every future ranking."""
        if self.alive[doc]:
            self.alive[doc] = 0
            self.live -= 1
            self.live_length -= self.lengths[doc]
            self.stale += 1

    @property
    def retired(self) -> int:
        return len(self.lengths) - self.live

    def packed(self) -> Packed:
        """This index as flat values (the postings' buffers, arrays of gains, lengths and flags shared, not copied; a
        table never laid out joins its arrays).

        Under the index's lock, like every change to the index (see `Postings.packed`)."""
        return Packed(self.body.packed(), self.meta.packed(), self.lengths, self.alive, self.live, self.live_length)

    def __getstate__(self) -> Packed:
        return self.packed()

    def __setstate__(self, state: Packed) -> None:
        self.__init__()  # type: ignore[misc]
        self.body, self.meta = Postings(state.body), Postings(state.meta)  # read as views of the buffers
        self.lengths, self.alive = array("f", state.lengths), bytearray(state.alive)  # `packed()` shares them
        self.live, self.live_length = state.live, state.live_length
        self.stale = self.retired  # not persisted: at worst the first compaction comes early

    def absorb(self, other: Packed) -> int:
        """Append another index's documents (built in parallel elsewhere); returns the id offset given to them."""
        offset = len(self.lengths)
        other.body.unpack_into(self.body, 2, offset)
        other.meta.unpack_into(self.meta, 1, offset)
        self.lengths.extend(other.lengths)
        self.alive.extend(other.alive)
        self.live += other.live
        self.live_length += other.live_length
        return offset

    def compact_if_due(self) -> bool:
        """Compact once the retired documents still in the postings are many (`COMPACT_AFTER`, or a quarter of
        the live ones): every edit of a file retires all its snippets, so a session of typing would otherwise
        grow the tables without end, and a compaction costs a pass over all of them."""
        if self.stale <= max(COMPACT_AFTER, self.live // 4):
            return False
        self.compact()
        return True

    def postings_problem(self) -> str | None:
        """Why the postings cannot belong to these documents (an id out of range), or None."""
        for name, table, width in (("body", self.body, 2), ("meta", self.meta, 1)):
            span = table.document_range(width)
            if span is not None and (span[0] < 0 or span[1] >= len(self.lengths)):
                return f"{name} postings name documents {span[0]}..{span[1]} of {len(self.lengths)}"
        return None

    def compact(self) -> None:
        """Drop retired documents from the postings (ids stay stable), laying each table out in one buffer; worth
        it once they are many."""
        alive = np.frombuffer(self.alive, dtype=np.uint8).astype(bool)
        self.body.compact(alive, 2)
        self.meta.compact(alive, 1)
        self.stale = 0

    def pack_if_worth_it(self) -> None:
        """Lay each table out in one buffer (`Postings.pack`) where many of its terms are arrays: after a build."""
        for table in (self.body, self.meta):
            if table.worth_packing():
                table.pack()

    def frequency(self, term: str) -> int:
        """How many snippets hold `term` in their body (retired ones included until a compaction drops them)."""
        return self.body.count(term) // 2

    def scores(self, weights: Mapping[str, float]) -> npt.NDArray[np.float32]:
        """BM25 (plus the meta boost) of every document id for weighted query terms; retired ones score 0."""
        size = len(self.lengths)
        scores = np.zeros(size, dtype=np.float32)
        if not self.live:
            return scores
        alive = np.frombuffer(self.alive, dtype=np.uint8).astype(bool)
        lengths = np.frombuffer(self.lengths, dtype=np.float32)
        average = max(self.live_length / self.live, 1.0)
        for term, weight in weights.items():
            found = self.body.get(term)
            if found is not None:
                pairs = np.frombuffer(found, dtype=np.int32).reshape(-1, 2)
                pairs = pairs[alive[pairs[:, 0]]]
                if len(pairs):
                    docs, tf = pairs[:, 0], pairs[:, 1].astype(np.float32)
                    norm = K1 * (1 - B + B * lengths[docs] / average)
                    scores[docs] += weight * _idf(len(docs), self.live) * tf * (K1 + 1) / (tf + norm)
            named = self.meta.get(term)
            if named is not None:
                docs = np.frombuffer(named, dtype=np.int32)
                docs = docs[alive[docs]]
                if len(docs):
                    scores[docs] += weight * META_BOOST * _idf(len(docs), self.live)
        return scores


def _idf(frequency: int, documents: int) -> float:
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))
