"""Python files: declarations via `ast`, split long ones, editor line numbers, fallback to windows."""

import textwrap

from smartsearch_ls.chunking import chunk_file

CACHE = textwrap.dedent(
    '''\
    """A tiny cache."""

    import functools

    MAX_SIZE = 128
    default_ttl = 30


    class Cache:
        """Keeps values."""

        hits: int = 0

        def __init__(self) -> None:
            self.data = {}

        # Look a key up.
        @functools.lru_cache
        def get(self, key):
            return self.data.get(key)

        class Entry:
            pass


    async def fetch(url):
        def inner():
            return url

        return inner()


    if __name__ == "__main__":
        print(Cache().get("x"))
    '''
)


def by_name(chunked):
    return {declaration.qualified_name: declaration for declaration in chunked.declarations}


def test_declarations_and_kinds(invariants):
    chunked = chunk_file("pkg/cache.py", CACHE)
    invariants(CACHE, chunked)
    kinds = {name: declaration.kind for name, declaration in by_name(chunked).items()}
    assert kinds == {
        "MAX_SIZE": "constant",
        "default_ttl": "variable",
        "Cache": "class",
        "Cache.hits": "field",
        "Cache.__init__": "method",
        "Cache.get": "method",
        "Cache.Entry": "class",
        "fetch": "function",
        "fetch.inner": "function",
    }
    get = by_name(chunked)["Cache.get"]
    assert (get.start_line, get.name_line, get.end_line, get.name_column) == (18, 19, 20, 8)
    assert get.path == "pkg/cache.py"
    fetch = by_name(chunked)["fetch"]
    assert (fetch.name_line, fetch.name_column) == (26, 10)


def test_short_declarations_are_whole_snippets():
    chunked = chunk_file("cache.py", CACHE)
    spans = [(snippet.symbol, snippet.start_line, snippet.end_line) for snippet in chunked.snippets]
    assert spans == [(None, 1, 6), ("Cache", 9, 23), ("fetch", 26, 30), (None, 33, 34)]


def long_class(methods: int = 3, body: int = 70) -> str:
    source = ["import os", "", "", "class Cache:", '    """Doc."""', "    LIMIT = 3", ""]
    for number in range(methods):
        source.append(f"    # method {number}")
        source.append(f"    def get{number}(self, key):")
        source.extend(f"        x{line} = key + {line}" for line in range(body))
        source.append("")
    source.append("def tail():\n    return 1")
    return "\n".join(source) + "\n"


def test_long_class_is_split_into_methods(invariants):
    text = long_class()
    chunked = chunk_file("cache.py", text)
    invariants(text, chunked)
    spans = [(snippet.symbol, snippet.start_line, snippet.end_line) for snippet in chunked.snippets]
    assert spans == [
        (None, 1, 1),
        ("Cache", 4, 6),
        ("Cache.get0", 8, 79),  # the comment above the method comes with it
        ("Cache.get1", 81, 152),
        ("Cache.get2", 154, 225),
        ("tail", 227, 228),
    ]


def test_long_function_is_split_into_statement_groups(invariants):
    body = "\n".join(f"    value_{n} = compute({n})" for n in range(400))
    text = f"def handler(request):\n{body}\n    return value_1\n"
    chunked = chunk_file("h.py", text)
    invariants(text, chunked)
    assert [snippet.symbol for snippet in chunked.snippets] == ["handler"] * 3
    assert [(s.start_line, s.end_line) for s in chunked.snippets] == [(1, 160), (161, 320), (321, 402)]


def test_long_nested_block_is_split_inside(invariants):
    body = "\n".join(f"            step({n})" for n in range(300))
    text = f"class Job:\n    def run(self):\n        for item in self.items:\n{body}\n        return 1\n"
    chunked = chunk_file("job.py", text)
    invariants(text, chunked)
    spans = [(snippet.symbol, snippet.start_line, snippet.end_line) for snippet in chunked.snippets]
    assert spans == [("Job", 1, 1), ("Job.run", 2, 161), ("Job.run", 162, 304)]


def test_module_code_longer_than_budget_is_grouped(invariants):
    text = "\n".join(f"import mod{n}" for n in range(500)) + "\n"
    chunked = chunk_file("imports.py", text)
    invariants(text, chunked)
    assert [(s.start_line, s.end_line, s.symbol) for s in chunked.snippets] == [
        (1, 160, None),
        (161, 320, None),
        (321, 480, None),
        (481, 500, None),
    ]


def test_crlf_lone_cr_and_form_feed_keep_editor_line_numbers(invariants):
    for newline in ("\r\n", "\r"):
        text = newline.join(["import os", "", "\f", "def first():", "    return 1", "", "def second():", "    pass"])
        chunked = chunk_file("a.py", text)
        invariants(text, chunked)
        declarations = by_name(chunked)
        assert declarations["first"].name_line == 4
        assert declarations["second"].name_line == 7
        assert chunked.snippets[-1].text == "def second():\n    pass"


def test_form_feed_and_unicode_separators_are_not_line_breaks(invariants):
    text = 'x = 1 \f\ns = "a\u2028b"  # \x85 \u2029\nclass \u00e9t\u00e9:\n    pass\n\fdef f(): pass\n'
    chunked = chunk_file("a.py", text)
    invariants(text, chunked)
    declarations = by_name(chunked)
    assert declarations["\u00e9t\u00e9"].name_line == 3
    assert declarations["f"].name_line == 5
    assert declarations["f"].name_column == 5


def test_name_column_counts_characters():
    text = 'VALUES = ["\u00e9\u00e9\u00e9"]; \u00c9CHO = 1\n'
    declarations = by_name(chunk_file("a.py", text))
    assert declarations["\u00c9CHO"].name_column == 18
    assert declarations["\u00c9CHO"].kind == "constant"


def test_syntax_error_falls_back_to_windows(invariants):
    text = "def broken(:\n" + "x = 1\n" * 120
    chunked = chunk_file("broken.py", text)
    invariants(text, chunked, budget=None)
    assert chunked.declarations == ()
    assert [(s.start_line, s.end_line, s.symbol) for s in chunked.snippets] == [
        (1, 60, None),
        (51, 110, None),
        (101, 121, None),
    ]


def test_deep_nesting_falls_back_to_windows(invariants):
    for text in (
        "x = " + "-" * 100_000 + "1\n",
        "x = " + "(" * 1000 + ")" * 1000 + "\n",
        "x = a" + ".b" * 100_000 + "\n",
        "x = " + "+".join(["1"] * 100_000) + "\n",
        "".join(" " * n + "if x:\n" for n in range(150)) + " " * 150 + "pass\n",
    ):
        chunked = chunk_file("deep.py", text)
        invariants(text, chunked, budget=None)
        assert chunked.declarations == ()
        assert chunked.snippets


def test_null_byte_falls_back_to_windows(invariants):
    text = "def f():\n    return '\0'\n"
    chunked = chunk_file("nul.py", text)
    invariants(text, chunked)
    assert len(chunked.snippets) == 1


def test_empty_and_blank_files_have_no_snippets():
    for text in ("", "\n", "\n\n  \n\t\n", "\r\n\r\n"):
        assert chunk_file("empty.py", text).snippets == ()


def test_byte_order_mark_is_not_content():
    chunked = chunk_file("a.py", "\ufeffdef f():\n    pass\n")
    assert [(d.name, d.name_column) for d in chunked.declarations] == [("f", 4)]
    assert chunked.snippets[0].text == "def f():\n    pass"
