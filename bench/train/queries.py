"""From a doc comment to a training query: its first sentence, without markup, and only when it says what the
function does in words a person would search with.

Why so strict: a query is worth training on only if the answer cannot be found by reading the query's words off
the function's name. `Gets the user name.` above `getUserName`, or `NewReader returns a new Reader.`, teaches
name matching, which BM25 does already; `See foo.` or a license header teach noise. Each rule below drops one
such kind (the tests pin them):
- comment markers, JSDoc / YARD / Sphinx tags and inline markup (links, code spans, HTML) are removed; a JSDoc
  `@summary` or `@description` is the summary when there is one (date-fns writes its docs that way);
- a first paragraph that is a call signature (`foo(a, b) -> c`) or an RDoc `:call-seq:` is passed over;
- a leading mention of the function's own name as the subject is dropped (Go's convention, `Foo returns ...`),
  and the rest must still make a query;
- the sentence has `MIN_WORDS` to `MAX_WORDS` words, does not start with the function's name (`Filter the
  list` above `filter`), is not mostly code, names the function nowhere (when the name is an identifier no
  sentence would hold, like `to_dict` or `getUserName`), and holds some word beyond the words of the name and
  the generic verbs (`Returns the user name` for `user_name` does not);
- references elsewhere (`See`, `Alias for`, `Deprecated`, `Same as`), tool directives and license text are
  not descriptions.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

MIN_WORDS = 5
MAX_WORDS = 60
"""Longer "first sentences" are a paragraph with no full stop, not one sentence."""

_MARKERS = re.compile(r"^\s*(?:/\*\*+|/\*|\*/|\*(?!\*)|//[/!]?|#+|=begin|=end)[ \t]?")
_BLOCK_END = re.compile(r"\s*\*+/\s*$")
_TAG = re.compile(r"^\s*@!?\w")  # JSDoc and YARD tags, YARD directives (`@!visibility`)
_SPHINX_FIELD = re.compile(r"^\s*:(?:param|type|returns?|rtype|raises?|yields?|arg|kwarg|ivar|var)\b")
_SECTION = re.compile(
    r"^\s*(?:#+\s*\w|```|(?:Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Examples?|Usage|Notes?)"
    r":?\s*$)"
)
_SIGNATURE = re.compile(r"^[\w.:#$]+\s*\(.*\)\s*(?:(?:->|=>|→)\s*.*)?$")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "eg", "ie", "viz", "approx", "incl", "resp", "no", "al"})
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
_URL = re.compile(r"(?:https?://|www\.)\S+")
_CODE_CHARS = re.compile(r"[(){}\[\]=<>;|]|::|->")

_NOT_A_DESCRIPTION = re.compile(
    r"^(?:see|alias|aliases|deprecated|todo|fixme|xxx|hack|inheritdoc|copied|same as|equivalent to|shorthand|"
    r"shortcut for|implements|satisfies|overrides?|this is an alias)\b",
    re.IGNORECASE,
)
_DIRECTIVES = re.compile(
    r"copyright|licen[cs]e|eslint|istanbul|jshint|@ts-|prettier-ignore|noinspection|type:\s*ignore|pylint:|noqa|"
    r"nolint|go:generate|:nodoc:|\bnocov\b|@internal|#region|\bissue #?\d+|github|(?:public|official) api",
    re.IGNORECASE,
)
_GENERIC = frozenset(
    "a an the of to for in on at by with from and or this that these it its is are be being as if whether "
    "given specified provided passed new current object instance value method function class helper wrapper "
    "return get set create make build do check true false otherwise one".split()
)
"""Words that say nothing about behavior: a query made of these and the name's words only restates the name."""

_DETERMINERS = frozenset("a an the this that these those all each every any some no one two its their your our".split())


def _link(match: re.Match[str]) -> str:
    """`{@link Target|text}` or `{@link Target text}` reads as its text, `{@link Target}` as the target."""
    return (match.group(2) or match.group(1)).strip()


def _role(match: re.Match[str]) -> str:
    """A Sphinx role, `:class:`~pkg.Version`` reads as `Version` (what `~` shows), else as its whole target."""
    return match.group(1).split(".")[-1] if "~" in match.group(0) else match.group(1)


_INLINE_MARKUP: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"<!--.*?-->"), ""),
    (re.compile(r"\{@link(?:code|plain)?\s+([^}|\s]+)(?:[|\s]+([^}]*))?\}"), _link),
    (re.compile(r"\{@\w+\s+([^}]*)\}"), r"\1"),
    (re.compile(r"\{@\w+\}"), ""),
    (re.compile(r":(?:[\w-]+:)+`~?([^`<]*?)\s*(?:<[^>]*>)?`"), _role),
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),
    (re.compile(r"\[`([^`\]]+)`\]"), r"\1"),
    (re.compile(r"\[([A-Za-z_][\w.:#]*(?:\(\))?)\]"), r"\1"),
    (re.compile(r"\{([A-Za-z_#][\w:#.]*)\}"), r"\1"),
    (re.compile(r"`+([^`]+)`+"), r"\1"),
    (re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>"), ""),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<!\w)\+(\w[\w.:#]*)\+(?!\w)"), r"\1"),
)


def prose(comment: str) -> str:
    """A comment's text without its markers (`/** */`, leading `*`, `//`, `///`, `#`, `=begin`)."""
    lines = []
    for line in comment.split("\n"):
        line = _BLOCK_END.sub("", line)
        lines.append(_MARKERS.sub("", line, count=1).rstrip())
    return "\n".join(lines)


def summary(doc: str) -> str:
    """The paragraph of `doc` that summarizes it: a JSDoc `@summary` or `@description`, else the first paragraph
    before any tag or section that is not a call signature. Empty when there is none."""
    lines = doc.split("\n")
    for tag in ("@summary", "@description"):
        for i, line in enumerate(lines):
            if line.lstrip().startswith(tag):
                rest = [line.lstrip()[len(tag) :], *lines[i + 1 :]]
                text = _first_paragraph(rest)
                if text:
                    return text
    if any(":nodoc:" in line for line in lines):
        return ""
    body: list[str] = []
    for line in lines:
        if _TAG.match(line) or _SPHINX_FIELD.match(line) or (body and _SECTION.match(line)):
            break
        body.append(line)
    for paragraph in _paragraphs(body):
        if paragraph.startswith(":call-seq:") or _SIGNATURE.match(paragraph) or _SECTION.match(paragraph):
            continue
        return paragraph
    return ""


def _paragraphs(lines: list[str]) -> list[str]:
    paragraphs: list[str] = []
    current: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    return paragraphs


def _first_paragraph(lines: list[str]) -> str:
    """The first paragraph of a tag's text, which ends at the next tag as well as at a blank line."""
    head: list[str] = []
    for line in lines:
        if _TAG.match(line):
            break
        head.append(line)
    paragraphs = _paragraphs(head)
    return paragraphs[0] if paragraphs else ""


def strip_markup(text: str) -> str:
    """Inline markup replaced by its words: JSDoc `{@link}`, Sphinx roles, Markdown and Rust doc links, YARD
    `{Foo}`, code spans, HTML tags and entities, emphasis, RDoc `+code+`."""
    for pattern, replacement in _INLINE_MARKUP:
        text = pattern.sub(replacement, text)
    return " ".join(html.unescape(text).split())


def first_sentence(text: str) -> str:
    """`text` up to its first full stop that is not an abbreviation's (`e.g.`, `etc.`)."""
    for match in _SENTENCE_END.finditer(text):
        words = text[: match.start()].split()
        if words and words[-1].lower().lstrip("([{\"'").rstrip(".") in _ABBREVIATIONS:
            continue
        return text[: match.end()]
    return text


def name_words(name: str) -> list[str]:
    """The words of an identifier: `getHTTPResponse_code` -> get, http, response, code."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)]


def _stem(word: str) -> str:
    """A crude singular, present form, enough to tell `returns` from `return` and `values` from `value`."""
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    return word


def _same_word(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def restates(query: str, name: str) -> bool:
    """Whether every word of `query` is a word of `name` or a generic one."""
    own = [_stem(w) for w in name_words(name)]
    for word in re.findall(r"[A-Za-z]+", query):
        stem = _stem(word.lower())
        if stem in _GENERIC or word.lower() in _GENERIC:
            continue
        if not any(_same_word(stem, w) for w in own):
            return False
    return True


def _is_identifier_like(name: str) -> bool:
    """A name no English sentence would hold by chance: `to_dict`, `getUser`, `utf8`; not `copy` or `Reader`."""
    core = name.strip("_")
    return "_" in core or bool(re.search(r"[a-z][A-Z]|\d", core))


def _drop_leading_name(text: str, name: str) -> str:
    """`text` without a first word that is the function's name as its subject (`Foo returns...`, `foo: ...`,
    `The foo method ...`), Go's convention.

    Only the name written exactly, case included, counts: `Resolve the path` above `resolve` uses the name as an
    English verb, and so does `Add a hook` above `Add` (a determiner follows); both are kept as they are, for
    `clean` to refuse as starting with the name.
    """
    words = text.split()
    if len(words) > 1 and words[0].lower() == "the" and words[1].strip("`'\"():,") == name:
        words = words[1:]
    if not words:
        return text
    first = words[0].strip("`'\"").rstrip(":,")
    first = first[:-2] if first.endswith("()") else first
    if first.split(".")[-1].split("#")[-1].split("::")[-1] != name:
        return text
    rest = words[1:]
    if rest and rest[0].lower() in ("method", "function", "func"):
        rest = rest[1:]
    if not rest:
        return ""
    if rest[0].lower() in _DETERMINERS:
        return text
    return " ".join([rest[0][:1].upper() + rest[0][1:], *rest[1:]])


def clean(doc: str, name: str) -> str | None:
    """The query for a function called `name` documented by `doc` (comment markers already removed), or None
    when the doc says nothing a query could use."""
    text = strip_markup(summary(doc))
    text = first_sentence(_URL.sub("", text)).strip()
    text = _drop_leading_name(text, name)
    text = " ".join(text.split()).rstrip(".:;, ")
    words = text.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    if _NOT_A_DESCRIPTION.match(text) or _DIRECTIVES.search(text):
        return None
    if words[0].strip("`'\"(").split("(")[0].lower() == name.lower():
        return None  # still starts with the name: `foo(x) does...`
    if sum(1 for w in words if _CODE_CHARS.search(w)) * 3 > len(words):
        return None
    if _is_identifier_like(name) and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text):
        return None
    if restates(text, name):
        return None
    return text
