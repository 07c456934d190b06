"""A snippet holds its text compressed: what comes back must be exactly what went in, persisted or not; and it
keeps the key of its vector, so nothing that keys snippets has to unpack their texts."""

import pickle
import sys

from smartsearch_ls.chunking.snippet import Snippet, content_key, snippet_text

TEXTS = [
    "",
    "def f():\n    return 1\n",
    "line\r\nwith crlf\rand a lone cr\x0cform feed",
    'emoji = "\U0001f600 caf\u00e9 \u4e2d\u6587"',
    "an editor's unsaved buffer may hold a lone surrogate: \ud800",
]


def test_text_round_trips_exactly_through_construction_copies_and_pickling():
    for text in TEXTS:
        snippet = Snippet("src/a.py", 3, 4, text, symbol="A.f", key_until=0)
        assert snippet.text == text
        copied = pickle.loads(pickle.dumps(snippet))
        assert copied == snippet and hash(copied) == hash(snippet) and copied.text == text
        marked = snippet.replace(key_until=4)
        assert (marked.text, marked.key_until, marked.symbol, marked.path) == (text, 4, "A.f", "src/a.py")
        in_secret = pickle.loads(pickle.dumps(snippet.replace(secret_until=4)))
        assert (in_secret.secret_until, in_secret.key_until, in_secret.key) == (4, 0, snippet.key)
        redacted = snippet.replace(text="[redacted]")
        assert (redacted.text, redacted.start_line, redacted.end_line) == ("[redacted]", 3, 4)
        assert snippet.text == text  # the original is untouched


def test_a_declaration_s_text_takes_a_fraction_of_its_string():
    body = "".join(f"    total += values[{i}] * weights[{i}]  # accumulate \u00e9\n" for i in range(200))
    snippet = Snippet("src/a.py", 1, 201, "def f(values, weights):\n" + body)
    assert len(snippet.packed) * 4 < sys.getsizeof(snippet.text)


def test_equal_snippets_are_equal_and_different_texts_are_not():
    assert Snippet("a.py", 1, 1, "x = 1") == Snippet("a.py", 1, 1, "x = 1")
    assert Snippet("a.py", 1, 1, "x = 1") != Snippet("a.py", 1, 1, "x = 2")


def test_a_snippet_keeps_the_key_of_what_is_embedded_for_it_through_copies_and_pickling():
    for text in TEXTS:
        snippet = Snippet("src/a.py", 3, 4, text, symbol="A.f")
        assert snippet.key == content_key(snippet_text("src/a.py", "A.f", text))
        assert pickle.loads(pickle.dumps(snippet)).key == snippet.key
        assert snippet.replace(key_until=4).key == snippet.key
        assert snippet.replace(text="[redacted]").key == content_key(snippet_text("src/a.py", "A.f", "[redacted]"))
    assert Snippet("a.py", 1, 1, "x = 1").key != Snippet("b.py", 1, 1, "x = 1").key  # a move is a new vector


def test_a_snippet_pickled_by_an_earlier_release_loads_as_it_was():
    """How a snippet is unpickled may change without `store.FORMAT` moving only while this still loads: a persisted
    index would otherwise come back wrong rather than be rebuilt."""
    earlier = (
        b"\x80\x05\x95\x9f\x00\x00\x00\x00\x00\x00\x00\x8c\x1fsmartsearch_ls.chunking.snippet\x94\x8c\x11"
        b"_unpickle_snippet\x94\x93\x94(\x8c\x08src/a.py\x94K\x03K\x04C\x1cx\x01KIMSH\xd3\xd0\xb4\xe2R\x00\x82\xa2"
        b"\xd4\x92\xd2\xa2<\x05C.\x00C7\x05\xc6\x94\x8c\x03A.f\x94K\x00\x8c(e665002006b500153096c6226ce264d65f022b2c"
        b"\x94t\x94R\x94."
    )
    loaded = pickle.loads(earlier)
    snippet = Snippet("src/a.py", 3, 4, "def f():\n    return 1\n", symbol="A.f")
    assert loaded == snippet and loaded.key == snippet.key and loaded.text == snippet.text
    assert pickle.loads(pickle.dumps(snippet, protocol=pickle.HIGHEST_PROTOCOL)) == loaded
