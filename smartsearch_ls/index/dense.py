"""The embedding side of the shortlist: one MiniLM vector per snippet of a root, kept beside the root's index.

BM25 only finds code that shares words with the query, and people describe behavior in words the code does not
use. Vectors find it by meaning, but embedding costs ~20 CPU-ms a snippet, far too much to do at search time
for a whole root. So snippets are embedded ahead of time, in small batches the server runs in the background
(`embed_pending`), and kept:

- by content key (`Snippet.key`, the judge's own key, kept by each snippet), not by doc id: a re-indexed file gets
  new doc ids, but its unchanged snippets keep their text and so their vectors; only changed snippets are
  embedded again. Identical snippets share one row.
- in one float32 matrix (`vector_rows.VectorRows`), so a query is one matrix-vector product; what the judge reads
  besides (below) sits in a float16 one of its own, looked up by key. Rows no live snippet uses are recycled at
  `persist`, which is also when they are dropped from disk.
- on disk beside the index (`dense/<index file name>` under the cache directory), through `store`'s atomic,
  checksummed write, as float16 (half the bytes; cosines move by ~1e-3). Rows in memory hold the same float16
  values, so a cosine does not depend on whether its vector was loaded or computed. A missing, damaged or
  other-model file is a cache miss; an unwritable directory leaves the vectors in memory only.
- shared with the `local` judge: a vector the judge already computed is taken from its `EmbeddingCache`, and
  the shortlist hands its candidates' vectors to that cache, so a shortlisted snippet is not embedded twice.
- with a second vector for a snippet that says something in comments or docstrings: its commentary
  (`embedding.commentary`), which only the judge reads. It is kept under a key derived from the snippet's own
  (`commentary_key`), so telling which snippets have one needs no pass over their texts, and the snippets that say
  nothing are remembered as such (`silent`) rather than read again.
- with a third for a snippet longer than what its own vector sees: the mean of its passages'
  (`embedding.passages`), kept and remembered the same way (`short`: the snippets whose head is all of them).
  These readings (`embedding.readings`, the judge's own definition of them) are embedded in the background batch
  of their snippet's own vector (or later, when that vector came from elsewhere), before prose documentation
  files' (which have none); only while the judge that reads them is the one configured (`reads_readings`): for any
  other judge they would be most of the background embedding's CPU and of its vectors' memory, and read by nothing.

Without the model's weights there is no dense side: `available()` is False and the shortlist is BM25 alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import chain, compress, islice
from pathlib import Path

import numpy as np
import numpy.typing as npt

from smartsearch_ls.chunking.snippet import Snippet, snippet_text
from smartsearch_ls.discovery.documentation import is_documentation
from smartsearch_ls.embedding import weights
from smartsearch_ls.embedding.cache import NOTHING, reading_base
from smartsearch_ls.embedding.encoder import BATCH_SIZE, DIMENSIONS, MAX_TOKENS
from smartsearch_ls.embedding.loading import Encoder, load_encoder
from smartsearch_ls.embedding.readings import READINGS, ReadingKind
from smartsearch_ls.embedding.weights import LocalModelUnavailable
from smartsearch_ls.index import store
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.vector_rows import VectorRows

log = logging.getLogger(__name__)


def vectors_valid_for() -> str:
    """What persisted vectors are valid for: these weights, texts cut at this many tokens, run this many at a time
    (a batch's company moves a vector). The weights' hash is read when used, not at import, so that a bench
    measuring a candidate model (`bench.ranker.collect --model`) labels its vectors with that model's hash."""
    return f"{weights.MODEL_SHA256}/{MAX_TOKENS}/{BATCH_SIZE}"


VECTORS_FORMAT = 8
"""The format of the persisted vectors (`store`'s header). The file holds keys, a matrix and lists of keys, none of
the index's classes, so it keeps its own number: a change to how the index is persisted (`store.FORMAT`) leaves
a root's vectors valid, which a large root would otherwise re-embed for many CPU-minutes. Bump it when this file's
payload changes shape (8: the matrix follows the pickles raw, `store.Matrix`), and keep the formats it can still
read in `READABLE_VECTORS_FORMATS`; what its vectors are valid for is `vectors_valid_for()`."""

READABLE_VECTORS_FORMATS = (7,)
"""Older formats whose vectors still load (7: the matrix pickled whole), so an upgrade does not embed anew."""

NO_ROW, RETIRED, NO_READING = -1, -2, -3
"""Row values of a doc without a vector: one still waiting, one retired (so `pending` need not look), and (a
reading only) one whose snippet has nothing to read that way."""

PENDING_WINDOW = 256
"""How many of the lowest doc ids still waiting for a vector `pending` chooses a batch of similar lengths from."""

Docs = npt.NDArray[np.int64]


@cache
def shared_encoder() -> Encoder | None:
    """The process's embedder and vector cache (shared with the local judge), loaded once; None (logged once)
    without the weights or their runtime."""
    try:
        return load_encoder()
    except (LocalModelUnavailable, ImportError) as error:
        log.warning("the semantic shortlist is off, searches use BM25 alone: %s", error)
        return None


@dataclass
class Reading:
    """The rows of one of the vectors some snippets have besides their code's (`embedding.readings`): kept under a
    key derived from the snippet's own, so telling which snippets have one needs no text."""

    kind: ReadingKind
    rows: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Row per doc id, or `NO_ROW`, `RETIRED`, `NO_READING`."""
    nothing: set[str] = field(default_factory=set)
    """Content keys of snippets found to have nothing to read this way: they need no vector."""

    def key(self, key: str) -> str:
        return self.kind.key(key)


@dataclass(frozen=True, slots=True)
class StoredVectors:
    """A root's persisted vectors as read (`DenseIndex.read_persisted`), before a dense index adopts them."""

    code: VectorRows
    read: VectorRows
    nothing: dict[str, set[str]]
    """Per reading (`persisted_as`), the keys of snippets found to have nothing to read that way."""


def dense_path(cache_dir: Path, root: Path) -> Path:
    """Where the vectors of `root` are kept: named like its index file, in a `dense/` folder."""
    return cache_dir / "dense" / store.index_path(cache_dir, root).name


def _no_rows(count: int) -> npt.NDArray[np.float16]:
    raise ValueError("a pickled matrix has no rows to read after it")


class DenseIndex:
    """The snippet vectors of one `RootIndex`. Thread-safe; lock order is always `_persisting`, `index.lock`, then
    `_lock`."""

    def __init__(
        self,
        index: RootIndex,
        encoder: Callable[[], Encoder | None] = shared_encoder,
        reads_readings: Callable[[], bool] = lambda: True,
    ) -> None:
        self.index = index
        self._encoder = encoder
        self.reads_readings = reads_readings
        """Whether the readings are embedded (in the background, and by `embed` when asked) and waited for
        (`pending`, `progress`): the `local` judge reads them, no other judge does. Asked each time rather than kept,
        so the configured judge's change reaches an index being built too. Readings already stored are kept, shared
        and persisted either way."""
        self._lock = threading.Lock()
        self._code = VectorRows(np.float32)
        """Each snippet's own vector, which a query multiplies in full."""
        self._read = VectorRows(np.float16)
        """What the judge reads besides the code (`_readings`), looked up by key."""
        self._doc_keys: list[str | None] = []
        """Content key per doc id of `_snippets`; None for a doc that was already retired when first seen."""
        self._doc_rows = np.zeros(0, dtype=np.int64)
        """Row per doc id; `NO_ROW` while the doc waits for a vector, `RETIRED` once it left the index."""
        self._doc_prose = np.zeros(0, dtype=bool)
        """Per doc id: whether it is a snippet of prose documentation, embedded after the code."""
        self._readings = tuple(Reading(kind) for kind in READINGS)
        """What the judge reads of a snippet besides its code, embedded in this order after the code."""
        self._snippets: list[Snippet | None] | None = None
        """The index's snippet list the doc maps describe; a new list (a persisted index adopted) resets them."""
        self._unpersisted = False
        """Vectors were stored since the last `persist` (or `load`)."""
        self._persisting = threading.Lock()
        """One persist at a time: a persist alone frees rows, so the rows one reads after its locks stay its own."""

    @classmethod
    def for_root(cls, index: RootIndex, encoder: Callable[[], Encoder | None] = shared_encoder) -> DenseIndex:
        """The dense index of `index`, warm from the persisted vectors when there are sound ones."""
        dense = cls(index, encoder)
        dense.load()
        return dense

    def available(self) -> bool:
        """Whether there is a model to embed with (loading it on first call, which can take seconds)."""
        return self._encoder() is not None

    def holds_vectors(self) -> bool:
        """Whether any snippet vector is stored yet; answered without loading the model."""
        with self._lock:
            return self._code.holds_any() or self._read.holds_any()

    # -- background work ------------------------------------------------------------------------------

    def pending(self, limit: int) -> list[int]:
        """Up to `limit` live doc ids without a vector, of similar length: the shortest of the lowest waiting ones.

        A batch is padded to its longest snippet, so background batches taken in doc order (a one-line method
        beside a 100-line one) paid for padding: the shortest `limit` of the lowest `PENDING_WINDOW` waiting
        docs keeps a batch's lengths close (`bench/hybrid/measure.py`, background embedding). Every doc is
        still reached: the window always holds the lowest waiting ids, and each call takes `limit` of them.
        Code comes first (with what the judge reads of it: its commentary and passages), then the readings of code
        whose own vector came from elsewhere, then prose documentation, which behavior searches leave out unless
        asked (`discovery.documentation`): the vectors searches use are all there sooner.
        """
        with self.index.lock, self._lock:
            self._sync()
            snippets = self.index.snippets
            # Not `_missing(_live_docs())`: that walks every snippet in Python for every background batch of
            # eight; this finds waiting rows in numpy and stops at the window.
            waiting = self._doc_rows == NO_ROW
            tiers = (
                waiting & ~self._doc_prose,
                *(reading.rows == NO_ROW for reading in self._wanted_readings()),
                waiting & self._doc_prose,
            )
            for ids in map(np.flatnonzero, tiers):
                live = (int(doc) for doc in ids if snippets[doc] is not None)
                window = [(len(snippets[doc].text), doc) for doc in islice(live, PENDING_WINDOW)]  # type: ignore[union-attr]
                if window:
                    return [doc for _, doc in sorted(window)[:limit]]
            return []

    def progress(self) -> tuple[int, int]:
        """`(snippets with all their vectors, live snippets)` of the whole root: their own and, while they are read
        (`reads_readings`), their readings'."""
        with self.index.lock, self._lock:
            self._sync()
            live = self._live_docs()
            return len(live) - len(self._missing(live)), len(live)

    def embed_pending(self, max_snippets: int) -> int:
        """Embed up to `max_snippets` snippets that lack a vector (their own or, while read, a reading's), in one
        blocking batch; how many got one.

        Blocks while the model runs (it spreads a batch over every core), holding the index's lock
        only to read the snippets, so searches and edits go on meanwhile. 0 means nothing is left (or there
        is no model).
        """
        if max_snippets <= 0 or self._encoder() is None:
            return 0
        return self.embed(np.asarray(self.pending(max_snippets), dtype=np.int64))

    # -- search ---------------------------------------------------------------------------------------

    def embed(self, docs: Docs, *, compute: bool = True, readings: bool = True) -> int:
        """Give these doc ids the vectors they lack (their own; with `readings`, their readings' too): the judge's
        cached vector, else (with `compute`) a fresh one. How many of them got one."""
        encoder = self._encoder()
        if encoder is None or not len(docs):
            return 0
        code: dict[str, Snippet] = {}
        read: dict[str, tuple[Reading, str, Snippet]] = {}
        """A reading's key -> the reading, the snippet's own key, and the snippet."""
        with self.index.lock, self._lock:
            self._sync()
            docs = self._missing(docs)
            waiting = self._waiting(docs)
            for doc in docs.tolist():
                key, snippet = self._doc_keys[doc], self.index.snippets[doc]
                if key is None or snippet is None:
                    continue
                if self._doc_rows[doc] < 0:
                    code.setdefault(key, snippet)
                for reading in self._wanted_readings() if readings else ():
                    if reading.rows[doc] == NO_ROW:
                        read.setdefault(reading.key(key), (reading, key, snippet))
        keys = [*code, *read]
        vectors = {key: vector for key in keys if (vector := encoder.cache.get_key(key)) is not None}
        texts: dict[str, list[str]] = {}
        nothing = [read[key][:2] for key, vector in vectors.items() if not len(vector)]  # the judge found out
        for key in keys if compute else ():
            if key in vectors:
                continue
            if key in code:
                texts[key] = [snippet_text(code[key].path, code[key].symbol, code[key].text)]
            elif said := read[key][0].kind.texts(read[key][2], encoder.embedder.token_counts):
                texts[key] = said
            else:
                nothing.append(read[key][:2])
        if texts:
            vectors.update(zip(texts, encoder.embedder.embed_groups(list(texts.values())), strict=True))
        with self._lock:
            for key, vector in vectors.items():
                if len(vector):
                    (self._code if key in code else self._read).store(key, vector)
                    self._unpersisted = True
            for reading, key in nothing:
                reading.nothing.add(key)
                self._unpersisted = True  # it saves reading the snippet's text again
            known = docs < len(self._doc_rows)  # the index may have been replaced meanwhile
            self._sync_rows(docs[known])
            return int((self._waiting(docs[known]) < waiting[known]).sum())

    def adopt_cached(self) -> int:
        """Give live snippets without a vector the one the judge's cache holds for them; how many got one.

        A search's judge embeds the candidates the shortlist did not; adopting its vectors lets `persist` keep
        them, so the next one-shot command does not embed them again. Nothing is embedded here.
        """
        with self.index.lock:
            live = self._live_docs()
        return self.embed(live, compute=False)

    def query_vector(self, query: str) -> npt.NDArray[np.float32] | None:
        """The query's unit vector, or None without a model."""
        encoder = self._encoder()
        return None if encoder is None else encoder.embedder.embed_query(query)

    def cosines(self, query_vector: npt.NDArray[np.float32], docs: Docs) -> npt.NDArray[np.float32]:
        """Cosine of each doc's vector with the query's; NaN for a doc without a vector."""
        with self.index.lock, self._lock:
            self._sync()
            rows = self._doc_rows[docs]
            has = rows >= 0
            out = np.full(len(docs), np.nan, dtype=np.float32)
            # einsum, not `@`: a matrix-vector product is memory-bound, and OpenBLAS waking its threads costs more
            # than the product on a busy 2-core machine, whatever the size. Gathering rows costs several times a
            # row read in place, so only a narrow scope gathers.
            matrix, used = self._code.matrix, self._code.used
            if len(rows) * 8 < used:
                out[has] = np.einsum("ij,j->i", matrix[rows[has]], query_vector)
            else:
                out[has] = np.einsum("ij,j->i", matrix[:used], query_vector)[rows[has]]
            return out

    def share(self, snippets: Iterable[Snippet]) -> None:
        """Hand these snippets' vectors to the judge's cache, so judging them embeds nothing."""
        if not self.holds_vectors():
            return  # nothing to hand over: and no reason to load the model
        encoder = self._encoder()
        if encoder is None:
            return
        code = [s.key for s in snippets]
        with self._lock:
            found = {
                key: vector
                for rows, keys in (
                    (self._code, code),
                    (self._read, [r.key(key) for r in self._readings for key in code]),
                )
                for key in keys
                if (vector := rows.vector(key)) is not None
            }
            found.update(
                {reading.key(key): NOTHING for reading in self._readings for key in code if key in reading.nothing}
            )
        encoder.cache.update(found)

    # -- persistence ----------------------------------------------------------------------------------

    def load(self) -> bool:
        """Adopt the persisted vectors of this root (those of snippets still live are used; the rest wait)."""
        return self.adopt(self.read_persisted())

    def read_persisted(self) -> StoredVectors | None:
        """This root's persisted vectors as read from disk, not adopted yet (None: none, or not sound).

        It reads nothing of the index but its root and cache folder, so a restart reads them beside the index's own
        load (`server.folders`): the file's checksum, its reads and the widening of its rows run outside the GIL."""
        if self.index.cache_dir is None:
            return None
        payload = store.load(
            dense_path(self.index.cache_dir, self.index.root),
            version=VECTORS_FORMAT,
            older=READABLE_VECTORS_FORMATS,
            read_matrix=self._rows_from,
        )
        if payload is None:
            return None
        held = payload.get("matrix")
        if isinstance(held, np.ndarray):  # a file of an older format: the matrix came pickled whole
            held = self._rows_from(payload, held, _no_rows)
        if not isinstance(held, tuple):
            return None
        nothing = {r.kind.persisted_as: set(payload.get(r.kind.persisted_as, [])) for r in self._readings}
        return StoredVectors(*held, nothing)

    def adopt(self, stored: StoredVectors | None) -> bool:
        """Take over the vectors `read_persisted` read (False for None), every doc of the index pointed at its rows."""
        if stored is None:
            return False
        with self.index.lock, self._lock:
            self._code, self._read = stored.code, stored.read
            self._doc_rows[:] = NO_ROW
            for reading in self._readings:
                reading.nothing = stored.nothing[reading.kind.persisted_as]
                reading.rows = np.where(self._doc_prose, NO_READING, NO_ROW).astype(np.int64)
            self._sync_rows(np.arange(len(self._doc_keys), dtype=np.int64))
            # Every doc keyed and pointed at its rows now, while the folder is not ready yet: left to the first use,
            # this pass over every snippet ran under the locks the first search's shortlist waits for.
            self._sync()
        return True

    def _rows_from(
        self, payload: dict[str, object], matrix: store.Matrix | npt.NDArray[np.float16], next_rows: store.NextRows
    ) -> tuple[VectorRows, VectorRows] | None:
        """The persisted vectors of this root as the rows of its code and of its readings, read a chunk at a time
        (a file of an older format holds them pickled: `matrix` is then the array itself); None, reading nothing
        more, when they are of another root or model or not of the shape their keys say."""
        keys = payload.get("keys")
        shape = matrix.shape
        if (
            payload.get("root") != str(self.index.root)
            or payload.get("vectors") != vectors_valid_for()
            or not isinstance(keys, list)
            or shape != (len(keys), DIMENSIONS)
        ):
            if isinstance(matrix, store.Matrix):  # the reader must reach the matrix's end; its rows are not kept
                for start in range(0, shape[0], store.MATRIX_CHUNK_ROWS):
                    next_rows(min(store.MATRIX_CHUNK_ROWS, shape[0] - start))
            return None
        suffixes = tuple(reading.key("") for reading in self._readings)
        read = np.fromiter((key.endswith(suffixes) for key in keys), dtype=bool, count=len(keys))
        code, reads = VectorRows(np.float32), VectorRows(np.float16)
        code_rows = code.fill([key for key, r in zip(keys, read, strict=True) if not r])
        read_rows = reads.fill([key for key, r in zip(keys, read, strict=True) if r])
        code_at, read_at = np.cumsum(~read) - 1, np.cumsum(read) - 1
        for start in range(0, len(keys), store.MATRIX_CHUNK_ROWS):
            end = min(start + store.MATRIX_CHUNK_ROWS, len(keys))
            rows = matrix[start:end] if isinstance(matrix, np.ndarray) else next_rows(end - start)
            chunk = read[start:end]
            code_rows[code_at[start:end][~chunk]] = rows[~chunk]
            read_rows[read_at[start:end][chunk]] = rows[chunk]
        return code, reads

    def persist(self, *, only_if_changed: bool = False) -> bool:
        """Save the vectors of live snippets for the next process, first recycling rows no live snippet uses.

        `only_if_changed`: not when no vector was stored since the last save or load (the saved file may then
        hold vectors of snippets retired since, which a load leaves waiting: harmless).
        """
        if self.index.cache_dir is None:
            return False
        with self._persisting:
            return self._persist(only_if_changed)

    def _persist(self, only_if_changed: bool) -> bool:
        with self.index.lock, self._lock:
            if only_if_changed and not self._unpersisted:
                return True
            self._sync()
            self._collect()
            code_keys, read_keys = self._code.held(), self._read.held()
            code, read = self._code.rows_of(code_keys), self._read.rows_of(read_keys)
            keys = code_keys + read_keys
            nothing = {reading.kind.persisted_as: sorted(reading.nothing) for reading in self._readings}
            self._unpersisted = False
        payload = {
            "root": str(self.index.root),
            "vectors": vectors_valid_for(),
            "keys": keys,
            # Read a chunk at a time while the file is written, outside the locks: no copy of every vector is made.
            "matrix": store.RowSource(
                (len(keys), DIMENSIONS),
                np.dtype(np.float16).str,
                lambda: chain(code.chunks(store.MATRIX_CHUNK_ROWS), read.chunks(store.MATRIX_CHUNK_ROWS)),
            ),
            **nothing,
        }
        saved = False
        try:
            saved = store.save(dense_path(self.index.cache_dir, self.index.root), payload, version=VECTORS_FORMAT)
        finally:  # a save that failed or raised (out of memory, say) leaves them unsaved: a later one must not skip
            if not saved:
                with self._lock:
                    self._unpersisted = True
        return saved

    # -- bookkeeping (callers hold the locks) ---------------------------------------------------------

    def _sync(self) -> None:
        """Key the doc ids the index added since the last look (needs `index.lock`)."""
        snippets = self.index.snippets
        if snippets is not self._snippets:
            self._snippets, self._doc_keys = snippets, []
        start = len(self._doc_keys)
        if start == len(snippets):
            return
        # Keyed in full before any state changes: a failure halfway must not leave keys and rows out of step.
        keys = [None if s is None else s.key for s in snippets[start:]]
        self._doc_keys.extend(keys)
        self._doc_rows = np.concatenate([self._doc_rows[:start], np.full(len(snippets) - start, NO_ROW, np.int64)])
        prose = np.fromiter((s is not None and is_documentation(s.path) for s in snippets[start:]), bool)
        self._doc_prose = np.concatenate([self._doc_prose[:start], prose])
        # Documentation files are prose through and through: the judge reads them as they are.
        read = np.where(prose, NO_READING, NO_ROW).astype(np.int64)
        for reading in self._readings:
            reading.rows = np.concatenate([reading.rows[:start], read])
        self._sync_rows(np.arange(start, len(snippets), dtype=np.int64))

    def _sync_rows(self, docs: Docs) -> None:
        """Point these docs at the stored rows of their keys.

        A restart points every doc of the root, so each table's rows are read and written at once, around one dict
        look-up per doc and table, rather than as numpy scalars doc by doc."""
        keys = self._doc_keys
        keyed = [(doc, key) for doc in docs.tolist() if (key := keys[doc]) is not None]
        at = np.fromiter((doc for doc, _ in keyed), np.int64, len(keyed))
        named = [key for _, key in keyed]
        code = self._code.row_of
        waiting = self._doc_rows[at] < 0
        self._doc_rows[at[waiting]] = np.fromiter(
            (code.get(key, NO_ROW) for key in compress(named, waiting.tolist())), np.int64, int(waiting.sum())
        )
        read = self._read.row_of
        for reading in self._readings:
            nothing, key_of = reading.nothing, reading.kind.key
            waiting = reading.rows[at] == NO_ROW
            reading.rows[at[waiting]] = np.fromiter(
                (
                    NO_READING if key in nothing else read.get(key_of(key), NO_ROW)
                    for key in compress(named, waiting.tolist())
                ),
                np.int64,
                int(waiting.sum()),
            )

    def _live_docs(self) -> Docs:
        snippets = self.index.snippets
        return np.flatnonzero(np.fromiter((s is not None for s in snippets), dtype=bool, count=len(snippets)))

    def _waiting(self, docs: Docs) -> npt.NDArray[np.int64]:
        """How many vectors each doc still waits for: its own and (`reads_readings`) its readings'."""
        waiting = (self._doc_rows[docs] < 0).astype(np.int64)
        for reading in self._wanted_readings():
            waiting += reading.rows[docs] == NO_ROW
        return waiting

    def _wanted_readings(self) -> tuple[Reading, ...]:
        """The readings embedded and waited for now: all of them while they are read, else none."""
        return self._readings if self.reads_readings() else ()

    def _missing(self, docs: Docs) -> Docs:
        """The docs still waiting for their vector or (`reads_readings`) a reading's."""
        return docs[self._waiting(docs) > 0]

    def _collect(self) -> None:
        """Free the rows of keys no live snippet has, and unlink retired docs from their rows."""
        snippets = self.index.snippets
        code = {key for key, s in zip(self._doc_keys, snippets, strict=True) if s is not None and key is not None}
        retired = np.fromiter((s is None for s in snippets), dtype=bool, count=len(snippets))
        self._doc_rows[retired] = RETIRED
        for reading in self._readings:
            reading.rows[retired] = RETIRED
            reading.nothing &= code
        self._code.release(code)
        self._read.release(_ReadingKeys(code, self._readings))


@dataclass(frozen=True, slots=True)
class _ReadingKeys:
    """The readings' keys of some snippets' own keys, told by looking at a key rather than by making them all: a
    persist frees the readings of snippets gone, and on a large root making every live snippet's reading keys was
    most of what a persist held at once, however few readings were embedded (bench/README.md)."""

    code: Container[str]
    readings: tuple[Reading, ...]

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        base = reading_base(key)
        return base in self.code and any(reading.key(base) == key for reading in self.readings)
