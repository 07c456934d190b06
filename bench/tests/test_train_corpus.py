"""The training corpus recipe, offline: stripping keeps every line in every language, docs are found where each
language writes them, queries are cleaned by the documented rules, golds are engine snippets, and no pin is a
project the engine is measured on."""

import re

import pytest

from bench.corpora import CORPORA
from bench.quality.sets import PARTS
from bench.train import build, pins, queries
from bench.train.comments import ParsedFile
from smartsearch_ls.chunking.chunker import chunk_file

# One sample per language: doc comments, line and block comments (inline too), and comment-like text in strings
# that must survive.
SAMPLES = {
    "lib/a.js": (
        "javascript",
        """/**
 * Reverse the characters of a text.
 * @param {string} s the text
 */
export function flip(s) {
  const url = "http://x//y"; // trailing
  return s.split(/* inline */ "").reverse().join("");
}
""",
        ["Reverse the characters", "trailing", "inline", "@param"],
        ['"http://x//y"', 'split( "")'],
    ),
    "lib/b.ts": (
        "typescript",
        """class Box {
  /** Count the items held in the box. */
  @memo
  size(): number { return this.items.length; } // why
}
""",
        ["Count the items", "why"],
        ["@memo", "size(): number"],
    ),
    "b.go": (
        "go",
        """package b

// Sum adds every number of the slice together.
// It returns zero for an empty slice.
func Sum(xs []int) int {
	t := 0 /* running total */
	for _, x := range xs { t += x }
	return t // done
}
""",
        ["adds every number", "running total", "done"],
        ["t := 0", "func Sum"],
    ),
    "src/c.rs": (
        "rust",
        """//! Module docs.
/// Double the value given to it.
#[inline]
pub fn double(x: u32) -> u32 {
    /* outer /* nested */ still */ x * 2 // why
}
""",
        ["Module docs", "Double the value", "nested", "still", "why"],
        ["#[inline]", "x * 2"],
    ),
    "lib/d.rb": (
        "ruby",
        """# Says hello to the person named.
# @param name [String]
def greet(name)
  "hi #{name} # not a comment"
end
=begin
a block comment
=end
""",
        ["Says hello", "@param", "a block comment", "=begin"],
        ['"hi #{name} # not a comment"', "def greet(name)"],
    ),
    "src/E.java": (
        "java",
        """class E {
  /** Tell whether the number is even. */
  @Override
  public boolean even(int n) { return n % 2 == 0; } // why
}
""",
        ["Tell whether", "why"],
        ["@Override", "n % 2 == 0"],
    ),
    "pkg/f.py": (
        "python",
        '''def scale(xs, k):
    """Multiply every element of the list by a factor."""
    return [x * k for x in xs]  # why
''',
        ["Multiply every element", "why"],
        ["return [x * k for x in xs]"],
    ),
}


@pytest.mark.parametrize("rel", SAMPLES)
def test_stripping_blanks_comments_and_keeps_lines(rel):
    language, text, gone, kept = SAMPLES[rel]
    stripped = build.process_file(rel, text).stripped
    assert stripped.count("\n") == text.count("\n")
    for fragment in gone:
        assert fragment not in stripped
    for fragment in kept:
        assert fragment in stripped
    if language != "python":
        ParsedFile(language, stripped)  # still parses without errors
    # Code stays on its own line: every non-blank stripped line is a prefix-trimmed piece of the same original line.
    for before, after in zip(text.split("\n"), stripped.split("\n"), strict=True):
        assert not after.strip() or after.split()[0] in before


@pytest.mark.parametrize(
    ("rel", "symbol", "query"),
    [
        ("lib/a.js", "flip", "Reverse the characters of a text"),
        ("lib/b.ts", "Box.size", "Count the items held in the box"),
        ("b.go", "Sum", "Adds every number of the slice together"),
        ("src/c.rs", "double", None),  # four words: too short
        ("lib/d.rb", "greet", "Says hello to the person named"),
        ("src/E.java", "E.even", "Tell whether the number is even"),
        ("pkg/f.py", "scale", "Multiply every element of the list by a factor"),
    ],
)
def test_each_language_yields_its_doc_as_query_and_an_engine_snippet_as_gold(rel, symbol, query):
    result = build.process_file(rel, SAMPLES[rel][1])
    got = {c.symbol: c for c in result.candidates}
    if query is None:
        assert symbol not in got
        return
    assert got[symbol].query == query
    snippets = {(s.start_line, s.end_line) for s in chunk_file(rel, result.stripped).snippets}
    assert (got[symbol].start_line, got[symbol].end_line) in snippets


def test_doc_comment_must_touch_its_declaration():
    text = "// A header about the section below it.\n\nfunction f() { return 1; }\nx(); // Trailing words here.\n"
    parsed = ParsedFile("javascript", text)
    assert parsed.doc_above(3) is None
    assert parsed.doc_above(5) is None
    rust = "// plain comment, not a doc\nfn f() {}\n//! inner doc\nfn g() {}\n"
    assert ParsedFile("rust", rust).doc_above(2) is None
    assert ParsedFile("rust", rust).doc_above(4) is None


def test_bodiless_declarations_have_no_body():
    trait = "trait T {\n    /// Compute the thing from inputs.\n    fn f(&self) -> u32;\n}\n"
    decl = next(d for d in chunk_file("t.rs", trait).declarations if d.name == "f")
    assert not ParsedFile("rust", trait).has_body(decl.name_line, decl.name_column, decl.start_line, decl.end_line)
    ramda = "/** Add two numbers together and return it. */\nvar add = _curry2(function add(a, b) { return a + b; });\n"
    decl = next(d for d in chunk_file("add.js", ramda).declarations if d.name == "add")
    assert ParsedFile("javascript", ramda).has_body(decl.name_line, decl.name_column, decl.start_line, decl.end_line)


@pytest.mark.parametrize(
    ("doc", "name", "expected"),
    [
        # markup and tags
        (
            "Return the {@link Foo|foo thing} for `key` from <b>the</b> cache.",
            "lookup",
            "Return the foo thing for key from the cache",
        ),
        (
            "Parse a :class:`~pkg.mod.Version` string into **parts**.",
            "parse_version",
            "Parse a Version string into parts",
        ),
        (
            "Resolve [`Path`](crate::Path) segments into an absolute path.",
            "absolutize",
            "Resolve Path segments into an absolute path",
        ),
        (
            "@name addDays\n@summary Add the specified number of days to the date.\n\n@description\nLong.",
            "addDays",
            "Add the specified number of days to the date",
        ),
        ("@param x the value\n@returns nothing", "f", None),
        (
            "scale(xs, k) -> list\n\nMultiply each element by a constant factor.",
            "scale",
            "Multiply each element by a constant factor",
        ),
        # first sentence, abbreviations
        (
            "Split the text at separators, e.g. commas or tabs. More text.",
            "tokenize",
            "Split the text at separators, e.g. commas or tabs",
        ),
        # the function's own name
        ("NewReader returns a reader that buffers its input.", "NewReader", "Returns a reader that buffers its input"),
        ("Add a hook to every instance of the logger.", "Add", None),  # the name as a verb still starts it
        ("Split the text at separators, e.g. commas or tabs.", "split", None),
        ("Gets the user name of this object.", "getUserName", None),
        ("Calls to_dict on every element and merges the results.", "to_dict", None),
        # too short, references, directives
        ("Return the sum.", "total", None),
        ("See the parse function for all the details.", "parse2", None),
        ("Deprecated: use the other function instead of this.", "old", None),
        ("Copyright 2020 the authors, licensed under MIT terms.", "f", None),
        ("a + b == c; d = e(f); g[h] = i; j < k", "f", None),
    ],
)
def test_query_cleaning_rules(doc, name, expected):
    assert queries.clean(doc, name) == expected


def test_comment_markers_are_removed():
    assert queries.prose("/**\n * First line.\n * Second.\n */") == "\nFirst line.\nSecond.\n"
    assert queries.prose("/// Rust doc.\n/// More.") == "Rust doc.\nMore."
    assert queries.prose("# Ruby doc.\n# @param x") == "Ruby doc.\n@param x"


def _query(path, line, text):
    return build.Query(path, line, line + 2, f"s{line}", "python", text, (line, line + 2))


def test_sample_drops_duplicates_caps_and_is_seeded():
    candidates = [
        _query("a.py", 1, "Return the first element of the list"),
        _query("b.py", 1, "Return the first element of the list"),  # same doc: which one is meant?
        *(_query("c.py", i, f"Compute the checksum number {i} of the given bytes") for i in range(10, 40)),
        _query("d.py", 1, "Open the file in binary mode for reading"),
        _query("d.py", 5, "Open the file in binary mode for reading quickly"),  # a near duplicate
    ]
    unique, picked = build.sample(candidates, 100, 0, "pkg")
    assert unique == len(candidates) - 2
    assert not {q.path for q in picked} & {"a.py", "b.py"}
    assert sum(q.path == "d.py" for q in picked) == 1
    assert build.sample(candidates, 5, 0, "pkg") == build.sample(candidates, 5, 0, "pkg")
    assert len(build.sample(candidates, 5, 0, "pkg")[1]) == 5


def test_library_source_rules():
    pin = pins.BY_NAME["lodash"]
    assert build.is_library_source("chunk.js", pin)
    for rel in ("fp/chunk.js", "lodash.js", "test/a.js", "a.test.js", "a.min.js", "types/a.d.ts", "README.md"):
        assert not build.is_library_source(rel, pin)
    python = pins.BY_NAME["attrs"]
    for rel in ("src/attr/tests/x.py", "src/attr/test_x.py", "src/attr/x_test.py", "conftest.py", "docs/conf.py"):
        assert not build.is_library_source(rel, python)
    assert build.is_generated("// Code generated by stringer. DO NOT EDIT.\npackage x\n")
    assert build.is_generated("var a=" + "1," * 600 + "2;\n")
    assert not build.is_generated("package x\n")


def test_pins_are_enough_mixed_and_none_is_excluded():
    assert len(pins.PINS) >= 50
    counts = {
        lang: sum(p.language in langs for p in pins.PINS)
        for lang, langs in {
            "python": {"python"},
            "js": {"javascript", "typescript"},
            "go": {"go"},
            "rust": {"rust"},
            "ruby": {"ruby"},
        }.items()
    }
    assert counts["python"] >= 20 and counts["js"] >= 12 and counts["go"] >= 8
    assert counts["rust"] >= 6 and counts["ruby"] >= 5
    for pin in pins.PINS:
        assert pins.excluded_by(pin.name, pin.source.name, pin.source.top) is None, pin.name
        assert re.fullmatch(r"[0-9a-f]{64}", pin.source.sha256)
        assert pin.source.version


@pytest.mark.parametrize(
    "name",
    [
        "requests",
        "rich-click",
        "flask-login",
        "golang-github-spf13-cobra-dev",
        "librust-ureq-dev",
        "ruby-rack-test",
        "@tanstack/query-core",
        "golang-github-gorilla-mux-dev",
        "librust-semver-dev",
        "ruby-thor",
        "zod",
        "ws",
        "usr/share/gocode/src/github.com/spf13/pflag",
    ],
)
def test_excluded_projects_and_their_copies_are_caught(name):
    assert pins.excluded_by(name) is not None


@pytest.mark.parametrize("corpus", sorted(set(PARTS["all"])))
def test_every_quality_project_is_kept_out_of_training_under_each_of_its_names(corpus):
    sources = CORPORA[corpus].sources
    assert pins.excluded_by(corpus) is not None or all(pins.excluded_by(source.name) for source in sources)
    assert all(pins.excluded_by(source.name) or pins.excluded_by(source.top) for source in sources)
