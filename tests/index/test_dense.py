"""The embedding index: vectors survive a restart, edits re-embed only what changed, bad files are a miss."""

from __future__ import annotations

import pickle
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from smartsearch_ls.chunking.snippet import Snippet, content_key, snippet_text
from smartsearch_ls.embedding import weights
from smartsearch_ls.embedding.cache import EmbeddingCache, commentary_key, passage_key
from smartsearch_ls.embedding.encoder import DIMENSIONS, Embedder
from smartsearch_ls.embedding.loading import Encoder, load_encoder
from smartsearch_ls.embedding.passages import MAX_PASSAGES, passage_texts
from smartsearch_ls.index import dense as dense_module
from smartsearch_ls.index import store
from smartsearch_ls.index.dense import READABLE_VECTORS_FORMATS, VECTORS_FORMAT, DenseIndex, dense_path
from smartsearch_ls.index.root_index import RootIndex
from tests.conftest import write_tree

TREE: dict[str, str | bytes] = {
    "shapes/area.py": """import math


def circle_area(radius):
    return math.pi * radius * radius


def square_area(side):
    return side * side
""",
    "text/words.py": """def count_words(text):
    return len(text.split())


def shout(text):
    return text.upper() + "!"
""",
}


class CountingEmbedder(Embedder):
    """The real embedder (its session and tokenizer), recording every snippet text it is asked to embed."""

    def __init__(self) -> None:
        real = load_encoder().embedder
        super().__init__(real._session, real._tokenizer)
        self.texts: list[str] = []

    def embed_snippets(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed_snippets(texts)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


def dense_of(index: RootIndex, embedder: CountingEmbedder, cache: EmbeddingCache | None = None) -> DenseIndex:
    """A dense index of `index` with its own judge cache, warm from disk when possible."""
    encoder = Encoder(embedder, cache if cache is not None else EmbeddingCache())  # type: ignore[arg-type]
    return DenseIndex.for_root(index, lambda: encoder)


def built(tmp_path: Path) -> RootIndex:
    index = RootIndex(write_tree(tmp_path / "ws", TREE), cache_dir=tmp_path / "cache")
    index.refresh()
    return index


def embedded_with_readings(tmp_path: Path, embedder: CountingEmbedder, said: str) -> tuple[RootIndex, DenseIndex]:
    """`TREE` plus a function whose docstring says `said` (a commentary vector) and one long enough for passages,
    every snippet embedded."""
    steps = "".join(f"    total = apply_rule_{i}(total, rules[{i}], context)\n" for i in range(40))
    tree = {
        **TREE,
        "shop/price.py": f'def net_price(price, rate):\n    """{said}"""\n    return price * (1 - rate)\n',
        "shop/rules.py": f"def apply_rules(total, rules, context):\n{steps}    return total\n",
    }
    index = RootIndex(write_tree(tmp_path / "ws", tree), cache_dir=tmp_path / "cache")
    index.refresh()
    dense = dense_of(index, embedder)
    while dense.embed_pending(100):
        pass
    return index, dense


def persisted_with_readings(
    tmp_path: Path, embedder: CountingEmbedder
) -> tuple[RootIndex, DenseIndex, np.ndarray, np.ndarray, np.ndarray]:
    """`embedded_with_readings`, saved; with a query and every doc's cosine to it before any restart."""
    index, dense = embedded_with_readings(tmp_path, embedder, "Price after the discount.")
    query = dense.query_vector("area of a circle")
    assert query is not None
    docs = np.arange(len(index.snippets))
    before = dense.cosines(query, docs)
    assert index.persist() and dense.persist()
    return index, dense, query, docs, before


def test_vectors_survive_a_restart(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    total = index.snippet_count
    assert dense.progress() == (0, total)
    assert dense.embed_pending(2) == 2  # one bounded batch at a time
    assert dense.embed_pending(100) == total - 2
    assert dense.embed_pending(100) == 0
    assert dense.progress() == (total, total)
    docs = np.arange(len(index.snippets))
    query = dense.query_vector("area of a circle")
    assert query is not None
    before = dense.cosines(query, docs)
    assert index.persist() and dense.persist()

    restarted = RootIndex(index.root, cache_dir=index.cache_dir)
    assert restarted.load_persisted()
    restarted.refresh()
    again = CountingEmbedder()
    warm = dense_of(restarted, again)
    assert warm.progress() == (total, total)
    assert warm.pending(10) == []
    assert warm.embed_pending(100) == 0
    assert again.texts == []
    np.testing.assert_allclose(warm.cosines(query, docs), before, atol=2e-3)  # stored as float16


def test_vectors_persisted_before_their_matrix_was_written_raw_still_load(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of the older format (the matrix pickled whole) is read, not embedded again; in the current one the
    rows come a chunk at a time, each put in its place among the code's rows and the readings'."""
    index, dense, query, docs, before = persisted_with_readings(tmp_path, embedder)
    path = dense_path(index.cache_dir, index.root)
    current = store.load(path, version=VECTORS_FORMAT)
    assert current is not None
    data = pickle.dumps(current, protocol=pickle.HIGHEST_PROTOCOL)  # one pickle, matrix and all, as format 7
    for version in (*READABLE_VECTORS_FORMATS, VECTORS_FORMAT):
        if version == VECTORS_FORMAT:
            assert dense.persist()  # the current format again, read two rows at a time
            monkeypatch.setattr(store, "MATRIX_CHUNK_ROWS", 2)
        else:
            path.write_bytes(store.header(data, version) + data)
        again = CountingEmbedder()
        warm = dense_of(index, again)
        assert warm.embed_pending(100) == 0 and again.texts == [], version
        np.testing.assert_array_equal(warm.cosines(query, docs), before)
        read = dense._read.held()
        assert read and sorted(warm._read.held()) == sorted(read)  # the readings' rows, each in its place
        for key in read:
            np.testing.assert_array_equal(warm._read.vector(key), dense._read.vector(key))


def test_a_persist_writing_while_vectors_are_stored_saves_each_key_its_own_vector(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A persist writes the rows after releasing its locks; background embedding meanwhile stores new keys and grows
    the matrices. Each key loaded back has the vector it had in memory."""
    tree = {f"pkg/m{i}.py": f"def step_{i}(value):\n    return value * {i} + {i * i}\n" for i in range(240)}
    index = RootIndex(write_tree(tmp_path / "ws", tree), cache_dir=tmp_path / "cache")
    index.refresh()
    dense = dense_of(index, embedder)
    dense.embed_pending(60)
    monkeypatch.setattr(store, "MATRIX_CHUNK_ROWS", 2)  # long writes, many chances to meet a store
    saved: list[bool] = []
    persisting = threading.Thread(target=lambda: saved.extend(dense.persist() for _ in range(4)))
    persisting.start()
    while dense.embed_pending(8):
        pass
    persisting.join()
    assert saved == [True] * 4 and dense.persist()
    warm = dense_of(index, CountingEmbedder())
    keys = dense._code.held()
    assert len(keys) == index.snippet_count and sorted(warm._code.held()) == sorted(keys)
    for key in keys:
        np.testing.assert_array_equal(warm._code.vector(key), dense._code.vector(key))


def test_vectors_of_another_model_are_skipped_a_chunk_at_a_time(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """Refused vectors (a new model) are read past, not held: the restart after an upgrade peaked at a copy of them."""
    index = built(tmp_path)
    count = 20_000  # 15 MB of float16 rows
    payload = {
        "root": str(index.root),
        "vectors": "another model",
        "keys": [f"k{i}" for i in range(count)],
        "matrix": store.RowSource((count, DIMENSIONS), "<f2", lambda: [np.zeros((count, DIMENSIONS), np.float16)]),
    }
    assert store.save(dense_path(index.cache_dir, index.root), payload, version=VECTORS_FORMAT)
    del payload
    tracemalloc.start()
    try:
        dense = dense_of(index, embedder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert dense.progress()[0] == 0
    assert peak < 0.3 * count * DIMENSIONS * 2, peak  # the keys and a chunk, not the rows


def test_vectors_of_other_weights_are_not_adopted(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bench measuring a candidate model names it in `weights.MODEL_SHA256` after the engine is imported
    (`bench.ranker.collect --model`): the vectors it persists must say so, and vectors made by other weights must
    not be adopted: every snippet waits to be embedded again."""
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    assert index.persist() and dense.persist()

    candidate_embedder = CountingEmbedder()  # before the hash changes: the real file no longer matches it after
    monkeypatch.setattr(weights, "MODEL_SHA256", "0" * 64)
    restarted = RootIndex(index.root, cache_dir=index.cache_dir)
    assert restarted.load_persisted()
    restarted.refresh()
    candidate = dense_of(restarted, candidate_embedder)
    assert candidate.progress() == (0, index.snippet_count)
    assert candidate.embed_pending(100) == index.snippet_count
    assert candidate.persist()
    persisted = store.load(dense_path(index.cache_dir, index.root), version=dense_module.VECTORS_FORMAT)
    assert persisted["vectors"].startswith("0" * 64)


def test_a_restart_keys_every_snippet_without_unpacking_its_text(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    assert index.persist() and dense.persist()
    restarted = RootIndex(index.root, cache_dir=index.cache_dir)
    assert restarted.load_persisted()

    def unpacked(_: Snippet) -> str:
        raise AssertionError("a snippet's text was unpacked to key it")

    monkeypatch.setattr(Snippet, "text", property(unpacked))
    judge_cache = EmbeddingCache()
    warm = dense_of(restarted, CountingEmbedder(), judge_cache)
    assert warm.progress() == (index.snippet_count, index.snippet_count)
    live = [s for s in restarted.snippets if s is not None]
    warm.share(live)
    assert all(judge_cache.get_key(s.key) is not None for s in live)  # the judge got them, by key alone


def test_a_restart_points_every_doc_at_its_rows_as_the_vectors_load(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the vectors keys every doc and points it at its rows, before the folder is ready: the first search's
    shortlist finds its vectors without a pass over the root's docs under the locks it holds."""
    index, _, query, docs, before = persisted_with_readings(tmp_path, embedder)
    restarted = RootIndex(index.root, cache_dir=index.cache_dir)
    assert restarted.load_persisted()
    restarted.refresh()
    warm = dense_of(restarted, CountingEmbedder())

    def pointed_again(_: np.ndarray) -> None:
        raise AssertionError("a doc was pointed at its rows after the load")

    monkeypatch.setattr(warm, "_sync_rows", pointed_again)
    np.testing.assert_array_equal(warm.cosines(query, docs), before)
    assert warm.pending(100) == [] and warm.progress() == (index.snippet_count, index.snippet_count)


def test_docs_are_pointed_at_their_rows_as_one_doc_at_a_time_would(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """`_sync_rows` fills each table at once; what it points each doc at is what the walk one doc at a time did:
    readings' rows, snippets with nothing to read, docs retired before or after they were keyed, docs waiting."""

    def one_doc_at_a_time(d: DenseIndex, docs: np.ndarray) -> None:
        for doc in docs.tolist():
            key = d._doc_keys[doc]
            if key is None:
                continue
            if d._doc_rows[doc] < 0:
                d._doc_rows[doc] = d._code.row_of.get(key, dense_module.NO_ROW)
            for reading in d._readings:
                if reading.rows[doc] == dense_module.NO_ROW:
                    reading.rows[doc] = (
                        dense_module.NO_READING
                        if key in reading.nothing
                        else d._read.row_of.get(reading.key(key), dense_module.NO_ROW)
                    )

    def tables(d: DenseIndex) -> list[np.ndarray]:
        return [d._doc_rows, *(reading.rows for reading in d._readings)]

    index, dense = embedded_with_readings(tmp_path, embedder, "Price after the discount.")
    assert index.update_text("text/words.py", "def count_words(text):\n    return len(text.split(' '))\n")
    dense = dense_of(index, embedder)  # keys the docs the edit retired as None
    while dense.embed_pending(100):
        pass
    assert index.update_text("shapes/area.py", "def circle_area(r):\n    return 3.14 * r * r\n")  # keyed, retired
    assert index.persist() and dense.persist()  # marks them retired
    assert index.update_text("shop/price.py", "def net_price(price):\n    return price\n")  # waits for its vectors
    with index.lock, dense._lock:
        dense._sync()
    docs = np.arange(len(index.snippets))
    assert None in dense._doc_keys and (dense._doc_rows == dense_module.RETIRED).any()
    assert all(reading.nothing for reading in dense._readings) and (dense._doc_rows == dense_module.NO_ROW).any()
    pointed = [table.copy() for table in tables(dense)]
    unpointed = [table.copy() for table in pointed]
    for table in unpointed:  # every other doc to point again (a row, or nothing to read), the rest as they are
        table[::2][(table[::2] >= 0) | (table[::2] == dense_module.NO_READING)] = dense_module.NO_ROW
    results = []
    for point in (DenseIndex._sync_rows, one_doc_at_a_time):
        dense._doc_rows, *rows = (table.copy() for table in unpointed)
        for reading, table in zip(dense._readings, rows, strict=True):
            reading.rows = table
        point(dense, docs)
        results.append(tables(dense))
    for at_once, one_at_a_time, before in zip(*results, pointed, strict=True):
        np.testing.assert_array_equal(at_once, one_at_a_time)
        kept = before != dense_module.RETIRED  # a retired doc with a key is looked up again (and found waiting)
        np.testing.assert_array_equal(at_once[kept], before[kept])


def test_a_root_s_vectors_outlive_a_new_format_of_its_index(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    assert index.persist() and dense.persist()
    vectors = dense_path(index.cache_dir, index.root).read_bytes()
    assert vectors.startswith(b"smartsearch-index %d\n" % dense_module.VECTORS_FORMAT)
    indexed = store.index_path(index.cache_dir, index.root)
    rest = indexed.read_bytes().split(b"\n", 1)[1]
    indexed.write_bytes(b"smartsearch-index %d\n" % (store.FORMAT - 1) + rest)  # what the previous release wrote

    rebuilt = RootIndex(index.root, cache_dir=index.cache_dir)
    assert not rebuilt.load_persisted()
    rebuilt.refresh()
    again = CountingEmbedder()
    assert dense_of(rebuilt, again).progress() == (index.snippet_count, index.snippet_count)
    assert again.texts == []


def test_vectors_are_written_again_only_when_new_ones_were_stored(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(2)
    assert dense.persist(only_if_changed=True)
    saved = dense_path(index.cache_dir, index.root)  # type: ignore[arg-type]
    written = saved.stat().st_ino
    assert dense.persist(only_if_changed=True) and saved.stat().st_ino == written
    warm = dense_of(index, CountingEmbedder())
    assert warm.persist(only_if_changed=True) and saved.stat().st_ino == written  # loaded, nothing new
    warm.embed_pending(1)
    assert warm.persist(only_if_changed=True) and saved.stat().st_ino != written


def test_vectors_whose_save_raised_are_saved_by_the_next_save_of_changes(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save that raised (not an unwritable folder, which `store.save` reports) left them marked as saved, so
    every later save skipped them for good."""
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(2)
    save = store.save

    def out_of_memory(*args: object, **kwargs: object) -> bool:
        raise MemoryError

    monkeypatch.setattr(store, "save", out_of_memory)
    with pytest.raises(MemoryError):
        dense.persist()
    monkeypatch.setattr(store, "save", save)
    assert dense.persist(only_if_changed=True)
    assert dense_path(index.cache_dir, index.root).exists()  # type: ignore[arg-type]


def test_an_edit_re_embeds_only_the_changed_snippet(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    embedder.texts.clear()
    edited = TREE["shapes/area.py"].replace("side * side", "side ** 2")
    assert index.update_text("shapes/area.py", edited)
    pending = dense.pending(100)
    assert [index.snippets[d].symbol for d in pending] == ["square_area"]  # type: ignore[union-attr]
    assert dense.embed_pending(100) == 1
    assert embedder.texts == [
        snippet_text("shapes/area.py", "square_area", "def square_area(side):\n    return side ** 2")
    ]
    assert dense.progress() == (index.snippet_count, index.snippet_count)


def test_background_batches_take_snippets_of_similar_length_and_reach_every_one(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch is padded to its longest text, so a batch of short snippets must not carry a long one."""
    long_body = "    total = 0\n" + "    total += 1\n" * 30 + "    return total\n"
    source = "\n\n".join(f"def f{i}():\n" + (long_body if i % 2 == 0 else "    return 1\n") for i in range(12))
    index = RootIndex(write_tree(tmp_path / "ws", {"mixed.py": source}), cache_dir=tmp_path / "cache")
    index.refresh()
    monkeypatch.setattr(dense_module, "PENDING_WINDOW", 6)
    dense = dense_of(index, embedder)
    batches: list[list[str]] = []
    while True:
        before = len(embedder.texts)
        if not dense.embed_pending(3):
            break
        batches.append(embedder.texts[before:])
    assert not any("total += 1" in text for text in batches[0])  # the 3 short ones of the first 6, not f0-f2
    code = {snippet_text(s.path, s.symbol, s.text) for s in index.snippets if s is not None}
    assert sorted(text for text in embedder.texts if text in code) == sorted(code)  # each once
    past_heads = {text.splitlines()[0] for text in embedder.texts if text not in code}  # passages, with their header
    assert past_heads == {f"mixed.py :: f{i}" for i in range(0, 12, 2)}  # the long ones only
    assert dense.progress() == (index.snippet_count, index.snippet_count)


def test_persist_keeps_only_vectors_of_live_snippets(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    index.update_text("text/words.py", TREE["text/words.py"].replace("upper", "lower"))
    dense.embed_pending(100)
    assert dense.persist()
    payload = store.load(dense_path(index.cache_dir, index.root), version=dense_module.VECTORS_FORMAT)  # type: ignore[arg-type]
    assert payload is not None
    live = {snippet_text(s.path, s.symbol, s.text) for s in index.snippets if s is not None}
    assert len(payload["keys"]) == len(live) == index.snippet_count
    assert payload["matrix"].shape == (len(live), 384)


def test_a_damaged_or_foreign_dense_file_is_a_miss(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    assert dense.persist()
    path = dense_path(index.cache_dir, index.root)  # type: ignore[arg-type]
    good, payload = path.read_bytes(), store.load(path, version=dense_module.VECTORS_FORMAT)
    assert payload is not None
    damaged = [good[: len(good) // 2], good[:-10] + b"0123456789", b"not a pickle at all"]
    for raw in damaged:
        path.write_bytes(raw)
        cold = dense_of(index, embedder)
        assert not cold.load()
        assert cold.progress() == (0, index.snippet_count)
    store.save(
        path, {**payload, "vectors": "another-model/128"}, version=dense_module.VECTORS_FORMAT
    )  # sound, but from other weights
    assert dense_of(index, embedder).progress() == (0, index.snippet_count)


def test_an_unwritable_cache_keeps_vectors_in_memory(tmp_path: Path, embedder: CountingEmbedder) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    index = RootIndex(write_tree(tmp_path / "ws", TREE), cache_dir=blocked)
    index.refresh()
    dense = dense_of(index, embedder)
    dense.embed_pending(100)
    assert not dense.persist()
    assert dense.progress() == (index.snippet_count, index.snippet_count)


def test_vectors_are_shared_with_the_judge_cache(tmp_path: Path, embedder: CountingEmbedder) -> None:
    index = built(tmp_path)
    judged = next(s for s in index.snippets if s is not None and s.symbol == "shout")
    text = snippet_text(judged.path, judged.symbol, judged.text)
    cache = EmbeddingCache()
    cache.put(text, load_encoder().embedder.embed_snippets([text])[0])  # the judge embedded it first
    dense = dense_of(index, embedder, cache)
    dense.embed_pending(100)
    assert text not in embedder.texts
    assert len(embedder.texts) == index.snippet_count - 1

    other = next(s for s in index.snippets if s is not None and s.symbol == "circle_area")
    fresh = EmbeddingCache()
    dense_of(index, embedder, fresh).share([other])  # what the shortlist does for its candidates
    assert fresh.get(snippet_text(other.path, other.symbol, other.text)) is None  # that one had no vectors yet
    dense.share([other])
    assert cache.get(snippet_text(other.path, other.symbol, other.text)) is not None


def test_without_a_model_nothing_is_embedded(tmp_path: Path) -> None:
    index = built(tmp_path)
    dense = DenseIndex.for_root(index, lambda: None)
    assert not dense.available()
    assert dense.embed_pending(100) == 0
    assert dense.query_vector("anything") is None
    assert dense.progress() == (0, index.snippet_count)


def test_background_embedding_does_code_before_prose_documentation(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """Behavior searches leave documentation out, so the vectors they use come first, whatever the file order."""
    # Their headings would read as `#` comments: documentation gets no commentary vector.
    docs = {f"a_docs/guide{i}.md": f"# Area guide {i}\n\nHow to compute the area of shape {i}.\n" for i in range(3)}
    index = RootIndex(
        write_tree(tmp_path / "ws", {**docs, "README.md": "# Shapes\n", **TREE}), cache_dir=tmp_path / "cache"
    )
    index.refresh()
    dense = dense_of(index, embedder)
    order: list[str] = []
    while dense.embed_pending(2):
        order.extend(text.splitlines()[0] for text in embedder.texts[len(order) :])
    prose = [i for i, header in enumerate(order) if header.endswith(".md")]
    assert len(prose) == 4 and prose == list(range(len(order) - 4, len(order)))  # all four, and last
    assert dense.progress() == (index.snippet_count, index.snippet_count)


def test_what_the_judge_reads_besides_the_code_persists_and_reaches_it(
    tmp_path: Path, embedder: CountingEmbedder
) -> None:
    """A commented snippet's commentary and a long snippet's passages get a vector each, embedded once; after a
    restart neither they nor the snippets that have none are read again."""
    said = "Compute the price after the customer's discount."
    index, dense = embedded_with_readings(tmp_path, embedder, said)
    ruled = next(s for s in index.snippets if s is not None and s.symbol == "apply_rules")
    windows = passage_texts(ruled.path, ruled.symbol, ruled.text, embedder.token_counts)
    assert len(windows) == MAX_PASSAGES and all(text in embedder.texts for text in windows)
    assert embedder.texts.count(said) == 1 and len(embedder.texts) == index.snippet_count + 1 + len(windows)
    assert dense.progress() == (index.snippet_count, index.snippet_count)
    assert index.persist() and dense.persist()

    restarted = RootIndex(index.root, cache_dir=index.cache_dir)
    assert restarted.load_persisted()
    again = CountingEmbedder()
    judge_cache = EmbeddingCache()
    warm = dense_of(restarted, again, judge_cache)
    assert warm.embed_pending(100) == 0 and again.texts == []  # nothing read again, short or silent ones included
    priced, ruled = (
        next(s for s in restarted.snippets if s and s.symbol == name) for name in ("net_price", "apply_rules")
    )
    warm.share([priced, ruled])
    commentary = judge_cache.get_key(commentary_key(content_key(snippet_text(priced.path, priced.symbol, priced.text))))
    passages = judge_cache.get_key(passage_key(content_key(snippet_text(ruled.path, ruled.symbol, ruled.text))))
    assert commentary is not None and passages is not None
    short = judge_cache.get_key(passage_key(content_key(snippet_text(priced.path, priced.symbol, priced.text))))
    assert short is not None and len(short) == 0  # known to have none: the judge need not read the text to see it
    real = load_encoder().embedder
    # The very values the judge computes itself when the index has not got there: an answer does not depend on it.
    np.testing.assert_array_equal(commentary, real.embed_groups([[said]])[0])
    np.testing.assert_array_equal(passages, real.embed_groups([windows])[0])


def test_readings_are_kept_apart_from_the_rows_a_query_multiplies(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """Only snippets' own vectors are float32 rows a query multiplies; commentary and passage vectors are float16
    rows apart, before and after a restart, and a retired snippet's are neither kept nor persisted."""
    said = "Compute the price after the customer's discount."
    steps = "".join(f"    total = apply_rule_{i}(total, rules[{i}], context)\n" for i in range(40))
    tree = {
        **TREE,
        "shop/price.py": f'def net_price(price, rate):\n    """{said}"""\n    return price * (1 - rate)\n',
        "shop/rules.py": f"def apply_rules(total, rules, context):\n{steps}    return total\n",
    }

    def apart(d: DenseIndex) -> None:
        code = {s.key for s in d.index.snippets if s is not None}
        priced = next(s for s in d.index.snippets if s is not None and s.symbol == "net_price")
        ruled = next(s for s in d.index.snippets if s is not None and s.symbol == "apply_rules")
        assert set(d._code.row_of) == code and d._code.matrix.dtype == np.float32
        assert set(d._read.row_of) == {commentary_key(priced.key), passage_key(ruled.key)}
        assert d._read.matrix.dtype == np.float16

    index = RootIndex(write_tree(tmp_path / "ws", tree), cache_dir=tmp_path / "cache")
    index.refresh()
    dense = dense_of(index, embedder)
    while dense.embed_pending(100):
        pass
    apart(dense)
    edited = tree["shop/price.py"].replace("customer's discount", "member's discount")
    assert index.update_text("shop/price.py", edited)  # retires the commented snippet: a new key, a new commentary
    while dense.embed_pending(100):
        pass
    assert index.persist() and dense.persist()

    apart(dense)
    payload = store.load(dense_path(index.cache_dir, index.root), version=dense_module.VECTORS_FORMAT)  # type: ignore[arg-type]
    assert payload is not None and sorted(payload["keys"]) == sorted([*dense._code.row_of, *dense._read.row_of])
    restarted = RootIndex(index.root, cache_dir=index.cache_dir)
    assert restarted.load_persisted()
    apart(dense_of(restarted, CountingEmbedder()))


def test_a_narrow_scope_gathers_the_cosines_the_whole_root_gives(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """`cosines` gathers the rows of a scope under an eighth of the code rows and multiplies all of them otherwise:
    both give each doc the same value."""
    source = "\n\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(20))
    index = RootIndex(write_tree(tmp_path / "ws", {"many.py": source}), cache_dir=tmp_path / "cache")
    index.refresh()
    dense = dense_of(index, embedder)
    while dense.embed_pending(100):
        pass
    query = dense.query_vector("add a number")
    assert query is not None
    docs = np.flatnonzero([s is not None for s in index.snippets])
    whole = dense.cosines(query, docs)
    assert not np.isnan(whole).any()
    for doc in (0, 7, len(docs) - 1):
        np.testing.assert_allclose(dense.cosines(query, docs[[doc]]), whole[[doc]], atol=1e-6)
