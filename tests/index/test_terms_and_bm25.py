"""Identifier-aware terms and the incremental BM25 index."""

from __future__ import annotations

import pickle
import random
import sys
import threading

import numpy as np

from smartsearch_ls.index.bm25 import Bm25Index, Postings
from smartsearch_ls.index.terms import SYNONYM_WEIGHT, distinct_terms, identifier_terms, query_weights, text_terms
from tests.support.postings import postings_of


def test_identifiers_are_split_and_kept_whole() -> None:
    assert identifier_terms("refreshToken") == ("refreshtoken", "refresh", "token")
    assert identifier_terms("REFRESH_TOKEN")[0] == identifier_terms("refresh_token")[0] == "refreshtoken"
    assert "http" in identifier_terms("parseHTTPResponse")


def test_inflections_meet() -> None:
    assert identifier_terms("expired") == identifier_terms("expires") == identifier_terms("expiring")
    assert text_terms("cached = cache_hit")["cach"] == 2


def test_numbers_and_hex_literals_are_one_token_each() -> None:
    terms = text_terms("raise HttpError(404) if flags & 0x1F else retry_2fa(token)")
    assert terms["404"] == 1 and terms["0x1f"] == 1  # not split into `0` and `x1F`
    assert {"retry2fa", "retr", "fa"} <= terms.keys()  # letters and digits still split inside a name (stemmed)
    assert query_weights("HTTP 404 handler")["404"] == 1.0  # queries are cut the same way


def test_distinct_terms_are_the_terms_a_text_counts() -> None:
    text = "def parseHTTPResponse(raw_body):\n    return parse(raw_body) or PARSE_ERROR  # parses 0x1F é"
    assert distinct_terms(text) == set(text_terms(text))
    assert distinct_terms("") == set()


def test_query_words_outrank_their_synonyms() -> None:
    weights = query_weights("where do we delete expired sessions?")
    assert weights["delet"] == 1.0 and weights["remov"] == SYNONYM_WEIGHT
    assert "where" not in weights and "we" not in weights


def _index(docs: list[tuple[str, str]]) -> Bm25Index:
    index = Bm25Index()
    for body, meta in docs:
        index.add(text_terms(body), set(text_terms(meta)))
    return index


def test_bm25_ranks_the_document_that_uses_the_terms() -> None:
    index = _index(
        [
            ("def total(lines): return sum(lines)", "billing.py total"),
            ("def reject_expired(session): raise Expired(session)", "auth.py reject_expired"),
            ("def render(page): return page", "web.py render"),
        ]
    )
    scores = index.scores(query_weights("reject expired session"))
    assert scores.argmax() == 1 and scores[0] == 0 and scores[2] == 0


def test_path_and_symbol_terms_are_boosted() -> None:
    index = _index([("value = token", "misc.py helper"), ("value = token", "auth/token.py token")])
    scores = index.scores(query_weights("token"))
    assert scores[1] > scores[0] > 0


def test_two_query_words_in_the_body_outrank_one_in_the_name() -> None:
    """A name hit is a bonus, not a second body: with the bonus at 2.0 a method of `session.py` that never
    touches expiry outranked the function that drops expired entries (5.5 vs 3.7), and every snippet of a file
    named after one query word did the same, flooding the top of the shortlist."""
    filler = [
        (f"result = compute_{i}(value)\nreturn render(result)", f"app/views_{i}.py handler_{i}") for i in range(20)
    ]
    sweep = (
        "def sweep(store):\n    for key, entry in store.items():\n        if entry.expired:\n"
        "            store.drop(key, reason='session')"
    )
    index = _index(
        [*filler, (sweep, "app/janitor.py sweep"), ("def get(self, key): return self.rows[key]", "session.py get")]
    )
    scores = index.scores(query_weights("expired session"))
    assert scores[20] > scores[21] > 0


def test_retired_documents_stop_scoring_and_compaction_keeps_ids() -> None:
    index = _index([("alpha beta", "a.py"), ("alpha gamma", "b.py")])
    index.retire(0)
    assert index.scores({"alpha": 1.0})[0] == 0
    before = index.scores({"gamma": 1.0})[1]
    index.compact()
    assert index.scores({"gamma": 1.0})[1] == before
    assert index.add(text_terms("alpha"), set()) == 2


DOCS = [
    ("def reject_expired(session): raise Expired(session)", "auth.py reject_expired"),
    ("def total(lines): return sum(lines)", "billing.py total"),
    ("session = load_session(token)", "auth/session.py load"),
    ("def expire_all(sessions): sessions.clear()", "auth/session.py expire_all"),
]
QUERIES = ["reject expired session", "sum of the billing lines", "load a session token"]


def test_an_index_absorbed_in_shares_scores_as_one_built_whole() -> None:
    whole = _index(DOCS)
    merged = _index(DOCS[:1])
    for share in (DOCS[1:3], DOCS[3:]):  # a cold build's workers each index a share with ids from 0
        assert merged.absorb(_index(share).packed()) == len(merged.lengths) - len(share)
    for query in QUERIES:
        assert merged.scores(query_weights(query)).tolist() == whole.scores(query_weights(query)).tolist()


def test_a_laid_out_edited_index_is_absorbed_with_the_terms_cut_out_of_its_buffer() -> None:
    share = pickle.loads(pickle.dumps(_index(DOCS[1:])))  # its postings in one buffer, as loaded
    whole = _index(DOCS)
    for index in (share, whole):
        index.add(text_terms("expired session token"), {"auth"})  # its terms gain values beside the share's buffer
    assert share.body.packed().gains
    merged = _index(DOCS[:1])
    assert merged.absorb(share.packed()) == 1  # every id of the share raised by one
    assert postings_of(merged.body) == postings_of(whole.body) and postings_of(merged.meta) == postings_of(whole.meta)
    for query in [*QUERIES, "expired session token"]:
        assert merged.scores(query_weights(query)).tolist() == whole.scores(query_weights(query)).tolist()


def test_a_pickled_index_scores_the_same_retired_documents_included() -> None:
    index = _index(DOCS)
    index.retire(2)
    copy = pickle.loads(pickle.dumps(index))
    assert (copy.live, copy.retired) == (3, 1)
    for query in QUERIES:
        assert copy.scores(query_weights(query)).tolist() == index.scores(query_weights(query)).tolist()
    assert copy.add(text_terms("expired session"), set()) == index.add(text_terms("expired session"), set())


def test_a_loaded_index_reads_without_copying_and_cuts_out_only_what_an_edit_adds_to() -> None:
    index = _index(DOCS)
    loaded = pickle.loads(pickle.dumps(index))
    weights = query_weights(QUERIES[0])
    assert loaded.scores(weights).tolist() == index.scores(weights).tolist()
    assert loaded.body.arrays == {} and loaded.meta.arrays == {}  # read as views of the packed buffer

    for copy in (index, loaded):  # the same edits on both: new terms, known terms, a retirement, compaction
        copy.add(text_terms("expired session token refresh"), {"auth", "refresh"})
        if copy is loaded:
            assert set(loaded.body.arrays) == set(text_terms("expired session token refresh"))
        copy.retire(0)
        copy.retire(1)
        copy.compact()
    assert loaded.body.arrays == {}  # compaction lays the postings out again
    assert postings_of(loaded.body) == postings_of(index.body)
    assert postings_of(loaded.meta) == postings_of(index.meta)
    again = pickle.loads(pickle.dumps(loaded))
    for query in QUERIES:
        assert again.scores(query_weights(query)).tolist() == index.scores(query_weights(query)).tolist()


def test_an_edit_of_a_loaded_index_copies_nothing_of_the_buffer() -> None:
    """An edit cut each term it added to out of the buffer whole, and the commonest words' postings are most of it."""
    index = _index(DOCS)
    loaded = pickle.loads(pickle.dumps(index))
    known = next(term for term in text_terms("expired session token") if loaded.body.get(term) is not None)
    for copy in (index, loaded):
        doc = copy.add(text_terms("expired session token"), {"auth"})
    assert loaded.body.arrays[known].tolist() == [doc, text_terms("expired session token")[known]]
    assert bytes(loaded.body.get(known)) == bytes(index.body.get(known))  # the buffer's values, then the new ones
    assert loaded.frequency(known) == index.frequency(known)
    for query in [*QUERIES, "expired session token"]:
        assert loaded.scores(query_weights(query)).tolist() == index.scores(query_weights(query)).tolist()


def test_an_edited_loaded_index_persists_its_buffer_and_its_cut_terms() -> None:
    index = _index(DOCS)
    loaded = pickle.loads(pickle.dumps(index))
    for copy in (index, loaded):
        copy.add(text_terms("expired session token"), {"auth"})  # grows terms that are in the packed buffer
    packed = loaded.body.packed()
    assert packed.flat is loaded.body.packed().flat  # shared, not joined anew
    assert set(packed.gains) == set(text_terms("expired session token"))
    again = pickle.loads(pickle.dumps(loaded))  # what a persist writes
    for query in [*QUERIES, "expired session token"]:
        assert again.scores(query_weights(query)).tolist() == index.scores(query_weights(query)).tolist()
    assert postings_of(again.body) == postings_of(index.body)


def test_a_packed_index_scores_and_grows_as_before() -> None:
    index, packed = _index(DOCS), _index(DOCS)
    packed.pack_if_worth_it()  # built by `add`: every term an array
    assert packed.body.arrays == {} and packed.meta.arrays == {}
    for copy in (index, packed):
        copy.add(text_terms("expired session token"), {"auth"})
    for query in [*QUERIES, "expired session token"]:
        assert packed.scores(query_weights(query)).tolist() == index.scores(query_weights(query)).tolist()
    assert postings_of(packed.body) == postings_of(index.body)


def test_compacting_a_loaded_edited_index_keeps_exactly_the_live_postings() -> None:
    """Compaction filters the buffer in one pass, the cut arrays apart, and drops the stale bytes of cut terms:
    after each of many seeded edits it holds what an index that was never packed holds."""
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    reference, loaded = _index(DOCS), pickle.loads(pickle.dumps(_index(DOCS)))
    for _ in range(60):
        action = rng.random()
        if action < 0.5:
            text = " ".join(rng.choices(words, k=rng.randint(1, 8)))
            meta = set(rng.choices(words, k=2))
            assert reference.add(text_terms(text), meta) == loaded.add(text_terms(text), meta)
        elif action < 0.8 and reference.live:
            doc = rng.choice([d for d in range(len(reference.lengths)) if reference.alive[d]])
            reference.retire(doc)
            loaded.retire(doc)
        elif action < 0.9:
            loaded = pickle.loads(pickle.dumps(loaded))
        else:
            loaded.compact()
            assert loaded.body.arrays == {} and loaded.meta.arrays == {}
            assert loaded.postings_problem() is None
        for query in ("w1 w2 w3", "expired session", "w7"):
            assert loaded.scores(query_weights(query)).tolist() == reference.scores(query_weights(query)).tolist()
    alive = [d for d in range(len(reference.lengths)) if reference.alive[d]]
    loaded.compact()
    for table in (loaded.body, loaded.meta):
        for term, values in postings_of(table).items():
            assert values and all(doc in alive for doc in values[:: 2 if table is loaded.body else 1]), term


def test_compacting_a_loaded_index_whose_buffered_documents_are_all_retired() -> None:
    """Nothing of the buffer is kept: compaction lays out the arrays alone (an empty view of rows raised)."""
    reference, loaded = _index(DOCS), pickle.loads(pickle.dumps(_index(DOCS)))
    for index in (reference, loaded):
        for doc in range(len(DOCS)):
            index.retire(doc)
        index.add(text_terms("expired session token"), {"auth"})
        index.compact()
    assert postings_of(loaded.body) == postings_of(reference.body)
    assert loaded.scores(query_weights("expired session")).tolist() == [0.0] * len(DOCS) + [
        reference.scores(query_weights("expired session")).tolist()[-1]
    ]


def test_empty_tables_load_back() -> None:
    for index in (Bm25Index(), _index([("value = 1", "")])):  # nothing at all; body terms but no names
        loaded = pickle.loads(pickle.dumps(index))
        assert loaded.scores({"value": 1.0}).tolist() == index.scores({"value": 1.0}).tolist()


def test_look_ups_racing_a_pack_see_each_term_whole_once() -> None:
    """Symbol popularity reads postings without the index's lock while the index lays out what edits added to terms
    beside the buffer (`pack`): a reader must see each term's values once, never the buffer's and its additions
    twice, nor a term with its additions missing."""
    index = _index([(f"word{i} shared{i % 7}", f"file{i}.py") for i in range(3_000)])
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads swap as often as they can, so they meet inside `get`, `count` and `pack`
    try:
        for _ in range(10):
            table = pickle.loads(pickle.dumps(index)).body
            terms = list(postings_of(table))
            for term in terms[::3]:  # an edit's gains, beside the buffer
                table.writable(term).extend((99_999, 1))  # type: ignore[union-attr]
            sizes = {term: np.frombuffer(table.get(term), dtype=np.int32).size for term in terms}  # type: ignore[arg-type]
            assert _misread_while_packing(table, sizes, readers=3) == 0
    finally:
        sys.setswitchinterval(switching)


def _misread_while_packing(table: Postings, sizes: dict[str, int], readers: int) -> int:
    """How many reads (`get` and `count`) of `sizes`' terms saw another size while one thread packed the table."""
    start = threading.Barrier(readers + 1)
    misread: list[int] = []

    def read() -> None:
        start.wait()
        misread.append(
            sum(np.frombuffer(table.get(t), dtype=np.int32).size != n for t, n in sizes.items())  # type: ignore[arg-type]
            + sum(table.count(t) != n for t, n in sizes.items())
        )

    def pack() -> None:
        start.wait()
        table.pack()

    workers = [threading.Thread(target=pack), *(threading.Thread(target=read) for _ in range(readers))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(misread)
