"""Assignments whose name says their value is a secret, in the syntaxes code and config files write them in.

A module of its own because the decision is about names and values, not one pattern: quoted values of a few
names let YAML `password: x`, INI `password = x`, `.properties` `spring.datasource.password=x`, an AWS
credentials line and `DB_PASS = "x"` reach the judge, while any name holding "key" or "pass" with any value would
redact ordinary code (`key = dict_key`, `sort_key="name"`, `bypass = True`).

Names are split into words (`aws_secret_access_key`: aws, secret, access, key; `apiKey`: api, key), and a word
decides what the value must look like:

- something a person chooses (password, passwd, passphrase, secret, credential anywhere in the name; pass, pwd,
  pw, creds as its last word): any literal of 4 characters or more;
- something generated (a last word token, key, auth, authorization, apikey, ...): a literal that looks
  generated: 8 characters or more without spaces, not a dotted name, a URL or a path, with 3 digits or more, or a
  digit and a change of case inside a run of letters (base64); `sort_key = "name"` and
  `SEMANTIC_TOKENS = "textDocument/semanticTokens"` are not keys;
- a last word naming something about the secret rather than the secret (`password_prompt`, `TOKEN_URL`,
  `auth_type`, `key_name`): not a secret.

A tuple or list of literals is a collection, and its name's last word says what each item is, as it says what a
lone value is: under `CREDENTIALS`, `PASSWORDS` or `API_KEYS` each item is decided as a lone value of that name
would be (`("admin", "hunter2")` loses both), while `SECRET_SETTINGS = ("DEBUG", "SECRET_KEY")`,
`PASSWORD_HASHERS` and `AUTH_METHODS` hold settings, hashers and methods, whatever the name says they are for.
A collection holding a fragment of text (`" "`) is a text cut into pieces, a tokenizer's, and an item written as a
name is not a secret either: an environment variable's (`SECRETS = ["OPENAI_API_KEY"]`), or an identifier or module
path naming a secret (`"_git_credential": ["set_git_credential"]`, a lazy-import table's `"Credentials":
(".credentials", "Credentials")`), where `PASSWORDS = ["Password123"]` is one word and a password and
`["Passw0rd_2024"]` looks generated (as a key does: digits, or a digit and mixed case), so both are passwords.

Quoted values count in any file. An unquoted value counts only where the file's syntax makes it a literal (config
files, shell, Markdown, files of no known language), not in a programming language's source, where
`password = hunter2` reads a variable and says nothing secret. Values that cannot be secrets are left alone
whatever the name: templates of other values, masks (`"****"`), fragments that start or end with a space, and in
unquoted values that are keywords (`true`, `null`), code shown in documents (`get_password()`), structures and
placeholders (`{...}`, `<your-password>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from smartsearch_ls.chunking.secret_blocks import BLOCK_INDICATOR
from smartsearch_ls.chunking.secret_words import SECRET_NAME_WORDS
from smartsearch_ls.discovery.documentation import is_documentation

Syntax = Literal["code", "prose", "config"]
"""How a file writes values: `code` (a programming language or markup: an unquoted value is an expression or
markup), `prose` (documentation: an unquoted value is one word, the rest of the line is prose) or `config`
(everything else: an unquoted value is the rest of the line, as YAML, INI, `.properties` and shell read it)."""

_SEPARATOR = r"(?::=|=>|===|==|=|:)"
STRING_PREFIX_LETTERS = "rbuRBUfF"
"""What may stand before a string literal's opening quote, one or two of them: `r`, `b`, `f`, `rb`..."""
_PREFIX = rf"[{STRING_PREFIX_LETTERS}]{{0,2}}"


def _literal(quote: str, *, parts: bool = False) -> str:
    """A string literal on one line (`"..."`, `f'...'`, `` `...` ``, `""`), its quote captured as `quote` (the
    back-reference that closes it, so a pattern names each of its literals apart) and, with `parts`, its prefix and
    text as `prefix` and `value`. Its text ends at its first unescaped quote however it is taken, so it is taken
    possessively: a value that fails further on does not try it again shorter."""
    prefix, value = ("(?P<prefix>", "(?P<value>") if parts else ("(?:", "(?:")
    return rf"{prefix}{_PREFIX})(?P<{quote}>[\"'`]){value}(?:\\.|(?!(?P={quote}))[^\\\n]){{0,500}}+)(?P={quote})"


_GAP = r"(?:\s|(?:#|//)[^\n]{0,200}+(?:\n|\Z)|/\*(?:(?!\*/)[^\n]){0,200}+\*/|\\(?=\r?\n))*+"
"""What may stand between the literals of a value in brackets and around its commas: spaces, line ends (empty lines
too), a backslash continuing the line, `#` and `//` comments, each taken to its line end, and `/* ... */` on one line,
so that a quote, comma or bracket in one is not read as code.
Possessive, and a comment of 200 characters at most (a longer one ends the value, which is then not read as one):
taking each comment to its line end whatever its length made every `token=(#` of a line written over and over
read the rest of the line, quadratic in its length."""

_LEAD = (
    rf"(?<!\w)(?P<nq>[\"'`]?)(?P<name>(?=[\w.-]{{0,80}}?(?i:{SECRET_NAME_WORDS}))"
    r"[A-Za-z_][\w.-]{0,80})(?P=nq)(?:\]|\[\w{0,20}\])?"  # `config["password"]`, C's `char *keys[2]`
    r"(?:[ \t]*:[ \t]*[A-Za-z_][\w.\[\], |]{0,60}?(?=[ \t]*=[^=>]))?"  # an annotation: `password: str = "..."`
    rf"[ \t]*{_SEPARATOR}[ \t]*"
)

ASSIGNMENT = re.compile(
    rf"(?P<lead>{_LEAD})"
    rf"(?:(?P<open>(?:(?P<paren>\()|(?P<brace>\{{)|\[){_GAP})?+{_literal('q')}"
    # More literals: in brackets, after a comma or not, on any line; else on the same line (`"abc" "def"`), or on
    # the next after a backslash that continues the line (`"abc" \` over `"def"`).
    rf"(?:(?(open){_GAP}(?:,{_GAP})?+|(?:[ \t]|\\\r?\n)*+){_literal('nextq')})*+"
    # In brackets, nothing else up to the closing one (C's array initializer closes with a brace).
    rf"(?(open)(?:{_GAP},)?+{_GAP}(?:(?(paren)\)|(?(brace)\}}|\]))|\Z))"
    r"|(?P<bare>[^\s\"'`#;,:=][^\n\"'`]{0,500}))"
)
"""`name <separator> value`: `=`, `:`, `:=`, `=>`, `==`, `===` (a hard-coded comparison leaks as much), the name
optionally quoted (`"password": ...`, `config["password"] = ...`) or annotated (`password: str = ...`); the value
quoted, or the rest of the line. A quoted value is one literal or several that the language joins into one
(`"abc" "def"`; `PASSWORD = (` over a `"..."` on each line below, as Python and C split a long one; a line
continued by a backslash), or a tuple or list of literals (`("admin", "hunter2")`, `[\n "k1",\n "k2",\n]`, C's
`{"k1", "k2"}` under `keys[]`): a bracket counts only when its literals (comments, line ends and commas between them)
close it, and a snippet's end closes it too, since the snippet may be cut inside; `("DEBUG" if prod else "dev")`,
`("hunter2" + suffix)` and `get_key(` are bare values (in code, an expression, left as written). Only a value in
brackets or continued by a backslash goes on below its line: `redact` looks for assignments on the lines naming a
secret (`ASSIGNMENT_LEAD`) and reads each one on the whole text from there."""

ASSIGNMENT_LEAD = re.compile(_LEAD)
"""Where an `ASSIGNMENT` may start: its name and separator, which are on one line."""

_PIECE = re.compile(rf"(?:#|//)[^\n]*|/\*(?:(?!\*/)[^\n])*\*/|(?P<comma>,)|{_literal('q', parts=True)}")
"""An `ASSIGNMENT`'s quoted value read again piece by piece (a pattern keeps only the last literal a repetition
took): its literals, the commas between a tuple's or list's items, and comments, taken whole so that a quote or
comma in one is not read as code."""

XML_ELEMENT = re.compile(
    rf"<(?P<name>(?=[\w.:-]{{0,80}}?(?i:{SECRET_NAME_WORDS}))[A-Za-z_][\w.:-]{{0,80}})>"
    r"(?P<value>[^<\n]{1,500})</(?P=name)>"
)
"""`<password>...</password>`, as Maven's `settings.xml` and many servers' configs write it."""

XML_ADD = re.compile(
    r"<add\s+key\s*=\s*(?P<q>[\"'])(?P<name>[\w.:-]{1,80})(?P=q)\s+value\s*=\s*(?P<vq>[\"'])"
    r"(?P<value>(?:(?!(?P=vq))[^\n]){1,500})(?P=vq)",
    re.IGNORECASE,
)
"""`<add key="ApiKey" value="..."/>`: .NET's `appSettings` (`web.config`, `app.config`), name and value in two
attributes."""

DOCKER_ENV = re.compile(
    r"^(?P<lead>[ \t]*ENV[ \t]+"
    rf"(?P<name>(?=[\w.-]{{0,80}}?(?i:{SECRET_NAME_WORDS}))[A-Za-z_][\w.-]{{0,80}})[ \t]+)"
    r"(?P<value>[^\s=][^\n]{0,500}?)[ \t]*$",
    re.MULTILINE,
)
"""A Dockerfile's `ENV NAME value` (the legacy form: a space, not `=`, between name and value)."""

REDACTED = "[REDACTED:"
"""How every marker `judge.redact` puts in place of a secret starts: a literal holding one was redacted already."""

SECRET_WORD = re.compile(f"(?i){SECRET_NAME_WORDS}")
"""A part of the name of every match of the patterns above: a snippet without one is not scanned by them."""
SECRET_WORD_LOWERED = re.compile(SECRET_NAME_WORDS)
"""`SECRET_WORD` for lower-cased text, where it finds the same places (`redact._lines_naming_a_secret` says when):
a case-insensitive alternation is tried at every position, this one only where one of its first letters is."""

_CHOSEN = ("password", "passwd", "passphrase", "secret", "credential")
"""Found anywhere in the name, its case and separators aside: `PassPhrase`, `dbpassword`, `clientSecret`."""
_CHOSEN_LAST = frozenset({"pass", "pwd", "pw", "creds"})
"""Words that name a password only at the end of a name (`DB_PASS`): `pass_many=True` passes something on."""
_GENERATED = frozenset(
    {"token", "tokens", "key", "keys", "auth", "authorization", "apikey", "accesskey", "secretkey", "privatekey"}
)
_ABOUT_THE_SECRET = frozenset(
    {
        "url", "uri", "urls", "endpoint", "path", "file", "filename", "dir", "directory", "name", "names", "type",
        "types", "kind", "field", "fields", "label", "length", "len", "size", "count", "header", "prefix", "suffix",
        "env", "var", "format", "pattern", "regex", "mode", "prompt", "message", "msg", "hint", "help",
        "placeholder", "id", "ids", "class", "cls", "error", "errors", "column", "attr", "param", "policy", "ttl",
        "timeout", "expiry", "scheme", "backend", "backends", "provider", "method", "widget", "validator", "version",
        "location", "source", "style", "template", "view", "handler", "manager", "store", "required", "enabled",
        "encryption", "algorithm",
    }
)  # fmt: skip
"""Last words of names that hold something about a secret (where it is, what it is called), not the secret."""

_NOT_LITERALS = frozenset(
    {
        "true", "false", "yes", "no", "on", "off", "null", "nil", "none", "undefined", "str", "string", "bytes",
        "int", "bool", "boolean", "number", "any", "optional", "required", "~",
    }
)  # fmt: skip
"""Unquoted values that are a config file's keywords or a type in code shown in a document, not a literal."""

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_LETTER_RUN = re.compile(r"[A-Za-z]+")
_MIXED_CASE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
"""Case changing inside a run of letters, not at a word's start: `bPxRfiC`, `XUtn`; not `Tokens`, `VC`, `Win`."""
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_IDENTIFIER_OR_PATH = re.compile(r"\.{0,2}[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
"""An identifier, a dotted one or a relative module path: `set_git_credential`, `a.b`, `.credentials`."""

CODE_SUFFIXES = frozenset(
    {
        ".py", ".pyi", ".pyw", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", ".go", ".rs",
        ".java", ".rb", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".php", ".kt", ".kts", ".scala",
        ".swift", ".m", ".mm", ".lua", ".pl", ".pm", ".r", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj",
        ".groovy", ".vue", ".svelte", ".fs", ".jl", ".zig", ".nim", ".html", ".htm", ".xhtml", ".xml", ".svg",
    }
)  # fmt: skip
"""Programming languages and markup: there an unquoted value is an expression (or markup), not a literal."""


def syntax_of(path: str) -> Syntax:
    """How the file at a root-relative path writes values, by its suffix and name."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot > 0 and name[dot:].lower() in CODE_SUFFIXES:
        return "code"
    return "prose" if is_documentation(path) else "config"


def is_secret(name: str, value: str, *, quoted: bool, item: bool = False) -> bool:
    """Whether `value`, assigned to `name`, is to be taken for a secret (see the module's docstring). `item`: the
    value is an item of a tuple or list assigned to `name`."""
    words = _words(name)
    if not words or words[-1] in _ABOUT_THE_SECRET:
        return False
    if item and not (_chosen(words[-1:]) or _generated(words[-1])):
        return False  # a collection of something else: `SECRET_SETTINGS`, `PASSWORD_HASHERS`, `AUTH_METHODS`
    if item and _names_something(value, words):
        return False  # `SECRETS = ["OPENAI_API_KEY"]`, `"Credentials": (".credentials", "Credentials")`
    if _is_fragment(value) or not any(c.isalnum() for c in value):
        return False  # a fragment of a message or a command line, or a mask (`"****"`)
    if "://" in value or value.startswith(("/", "./", "~/")):
        return False  # a URL (one with a password is the URL rule's) or a path
    if not quoted and (value.lower() in _NOT_LITERALS or "(" in value or ")" in value or value[0] in "{[<"):
        return False  # a keyword, a type, code shown in a document, a structure or a `<placeholder>`
    if _chosen(words):
        return len(value) >= SHORTEST
    if _generated(words[-1]):
        return looks_generated(value)
    return False


SHORTEST = 4
"""The fewest characters a value taken for a secret has (a chosen one; a generated one has 8)."""


def _words(name: str) -> list[str]:
    """A name's words, lower-cased, without its numbers: `aws_secret_access_key2`: aws, secret, access, key."""
    return [w.lower() for w in _WORDS.findall(name) if not w.isdigit()]


def _chosen(words: list[str]) -> bool:
    """Whether a name (its words) names something a person chooses: a password, a secret, credentials. Asked of a
    name's last word alone, whether that word names the secret itself rather than something it qualifies
    (`CREDENTIALS`, not `SECRET_SETTINGS`)."""
    return words[-1] in _CHOSEN_LAST or any(chosen in "".join(words) for chosen in _CHOSEN)


def _generated(word: str) -> bool:
    """Whether a name's last word names something generated, in the singular or the plural (`key`, `tokens`,
    `access_token`)."""
    return word in _GENERATED or word.endswith("token")


def _names_something(item: str, words: list[str]) -> bool:
    """Whether an item of a collection named by `words` is written as a name rather than as a secret: an environment
    variable's (`OPENAI_API_KEY`, `DATABASE_URL`), or an identifier or module path holding a secret word that is
    written as a name is, in several words (`set_git_credential`, `ClientSecrets`), after a dot or an underscore
    (`.credentials`, `_token`), in capitals (`TOKEN`) or as the collection's own name (`"Credentials":
    ("Credentials", ...)`). One word holding a secret word is left a secret: `Password123`, `secret99`, and so is
    an item that looks generated, a name's shape aside (`Passw0rd_2024`, `mySecretPass1`, `SK_LIVE_ABC123XYZ789`)."""
    if looks_generated(item):
        return False
    if _ENV_NAME.fullmatch(item):
        return True
    if not _IDENTIFIER_OR_PATH.fullmatch(item) or not SECRET_WORD.search(item):
        return False
    own = _words(item)
    return len(own) > 1 or not item[0].isalnum() or item.isupper() or "".join(own) == "".join(words)


def looks_generated(value: str) -> bool:
    """Random-looking rather than made of words: a key, not `"__f2py_cb_#name#"` or `"textDocument/semanticTokens"`.

    Generated values of 8 characters or more nearly always hold several digits (hex, base64) or runs of letters
    whose case changes inside them (base64); names, paths and messages rarely do."""
    if len(value) < 8 or any(c.isspace() for c in value):
        return False
    if _DOTTED_NAME.fullmatch(value) or not any(c.isalpha() for c in value):
        return False
    digits = sum(c.isdigit() for c in value)
    return digits >= 3 or (digits >= 1 and any(_MIXED_CASE.search(run) for run in _LETTER_RUN.findall(value)))


def redacted(found: re.Match[str], mark: str, syntax: Syntax, kept: Callable[[str], str]) -> str | None:
    """An `ASSIGNMENT` match with its value replaced by `mark`, or None when the value is not taken for a secret.
    `kept`: what the text between a quoted value's secret literals (its comments, the other items) becomes; it is
    searched for assignments of its own (`# old: password = "..."`), which redacting the value whole would send."""
    name = found["name"]
    if found["q"]:
        return _redacted_literals(found, mark, kept)
    if syntax == "code" or REDACTED in found["bare"]:
        return None  # in code, an expression; or a value an earlier pattern redacted, counted there
    value, rest = _without_comment(found["bare"])
    if _BLOCK_HEAD.fullmatch(value):
        return None  # `password: &pw |`: the value is the block scalar's below (`YAML_BLOCK`), not the head's rest
    if syntax == "prose":  # one word, without the punctuation of the sentence it is in; what follows is prose
        word, space, more = value.partition(" ")
        value = word.rstrip(",;.")
        rest = word[len(value) :] + space + more + rest
    return f"{found['lead']}{mark}{rest}" if is_secret(name, value, quoted=False) else None


def _redacted_literals(found: re.Match[str], mark: str, kept: Callable[[str], str]) -> str | None:
    """An `ASSIGNMENT` match of a quoted value with each literal of its secret replaced by `mark`, what is between
    them (brackets, commas, line ends, comments, other literals) passed through `kept`; or None when nothing in it
    is a secret. A literal holding a marker was redacted by an earlier pattern (a provider's key) and is left out,
    so that the literals beside it are still decided."""
    items: list[list[re.Match[str]]] = [[]]
    for piece in _PIECE.finditer(found.string, found.end("lead"), found.end()):
        if piece["comma"]:
            items.append([])
        elif piece["q"] and REDACTED not in piece["value"]:
            items[-1].append(piece)
    # A list, or a tuple (a comma in parentheses), is a collection, and its name says what each item is; literals
    # in parentheses without one are a single value the language joins, as are literals side by side.
    collection = bool(found["open"]) and (not found["paren"] or len(items) > 1)
    if collection and any(_is_fragment("".join(map(_literal_part, item))) for item in items):
        return None  # text cut into pieces, a tokenizer's (`tokens = ["foo", " ", "19June2000"]`), not secrets
    marked: list[re.Match[str]] = []
    for item in items:
        marked += _secret_literals(found["name"], item, collection=collection)
    if not marked:
        return None
    pieces, at = [found["lead"]], found.end("lead")
    for literal in marked:
        pieces += (kept(found.string[at : literal.start()]), f"{literal['prefix']}{literal['q']}{mark}{literal['q']}")
        at = literal.end()
    pieces.append(kept(found.string[at : found.end()]))
    return "".join(pieces)


def _is_fragment(value: str) -> bool:
    """A piece of a text rather than a value of its own: spaces before or after it, or nothing but spaces."""
    return value != value.strip()


def _secret_literals(name: str, literals: list[re.Match[str]], *, collection: bool) -> list[re.Match[str]]:
    """The literals of one value of `name` (an item, in a collection) to be blanked: all of them when together they
    read as a secret (`"abc" "def"`), else each that reads as one alone, as a lone literal of the name would
    (`"hunter2" " "` has a space at its end together). An empty literal is left, as it hides nothing (a
    triple-quoted string on one line reads as three literals, the outer two empty)."""
    parts = [_literal_part(literal) for literal in literals]
    if is_secret(name, "".join(parts), quoted=True, item=collection):
        return [literal for literal in literals if literal["value"]]
    if len(literals) < 2:
        return []
    # Shorter ones are not asked about: `"a" "a" ...` over a long line asked once for each.
    return [
        literal
        for literal, part in zip(literals, parts, strict=True)
        if len(part) >= SHORTEST and is_secret(name, part, quoted=True, item=collection)
    ]


def redacted_attribute(found: re.Match[str], mark: str) -> str | None:
    """An `XML_ADD` match with its `value` attribute replaced by `mark`, or None when it is not taken for a secret."""
    if not is_secret(found["name"], found["value"], quoted=True):
        return None
    return found[0][: found.start("value") - found.start()] + mark + found["vq"]


def redacted_env(found: re.Match[str], mark: str) -> str | None:
    """A `DOCKER_ENV` match with its value replaced by `mark` (quotes kept), or None when it is not a secret."""
    value = found["value"]
    quote = value[0] if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0] else ""
    literal = value[1:-1] if quote else value
    if not is_secret(found["name"], literal, quoted=bool(quote)):
        return None
    return f"{found['lead']}{quote}{mark}{quote}"


def redacted_block(found: re.Match[str], mark: str) -> str | None:
    """A `YAML_BLOCK` match (`chunking.secret_blocks`, where the chunker finds blocks on the whole file) with each
    line of its value replaced by `mark` (the lines and their indentation kept), or None when the value is not taken
    for a secret."""
    lines = found["body"].split("\n")
    first = next((line.strip() for line in lines if line.strip()), "")
    if not is_secret(found["name"], first, quoted=True):
        return None
    # A `\r` line end is kept: the judged text keeps the snippet's line count and line ends.
    kept = [
        line[: len(line) - len(line.lstrip())] + mark + line[len(line.rstrip("\r")) :] if line.strip() else line
        for line in lines
    ]
    return found["lead"] + "\n".join(kept)


def redacted_element(found: re.Match[str], mark: str) -> str | None:
    """An `XML_ELEMENT` match with its text replaced by `mark`, or None when it is not taken for a secret."""
    if not is_secret(found["name"], found["value"], quoted=False):
        return None
    return f"<{found['name']}>{mark}</{found['name']}>"


_COMMENT = re.compile(r"\s+[#;]|\s*$")
_BLOCK_HEAD = re.compile(BLOCK_INDICATOR)


def _without_comment(bare: str) -> tuple[str, str]:
    """An unquoted value and what follows it: a trailing comment (` # ...`, INI's ` ; ...`) or spaces."""
    at = _COMMENT.search(bare)
    assert at is not None  # `\s*$` matches any string
    return bare[: at.start()], bare[at.start() :]


_TEMPLATE_FIELD = re.compile(
    r"\{(?:[A-Za-z_][A-Za-z0-9_.]*(?:\((?:[^{}()]|\([^{}()]*+\))*+\)|\[[^{}\[\]]*+\])*+|[0-9]*)(?:![rsa])?(?::[^{}]*)?\}"
)
"""A replacement field of an f-string or `str.format`: `{user}`, `{self.name!r}`, `{time.time()}`, `{f(g(x))}`, `{0}`,
`{}`. Its calls and subscripts are taken possessively, one level of nesting deep: taken as they came, a field of
pairs (`{a()()()...`) could be split in two ways at every pair: time exponential in the number of pairs."""
_JS_TEMPLATE_FIELD = re.compile(r"\$\{[^{}]*\}")


def _literal_part(found: re.Match[str]) -> str:
    """A quoted value without the fields of a template, which hold other values rather than a secret."""
    formatted = is_formatted(found["prefix"], found.string, found.end())
    return without_template_fields(found["value"], found["q"], formatted=formatted)


def is_formatted(prefix: str, text: str, end: int) -> bool:
    """Whether a literal with this prefix, ending at `end` in `text`, is a template of Python's: an f-string, or a
    string `.format(...)` is called on."""
    return "f" in prefix.lower() or text.startswith(".format(", end)


def without_template_fields(value: str, quote: str, *, formatted: bool) -> str:
    """A literal's text without the fields of a template, which hold other values rather than a secret.

    Only an f-string or a string `.format(...)` is called on (`formatted`), or a JavaScript template literal
    (`quote` a backtick), is a template; `{{`/`}}` are literal braces in the first two, and a field must name a
    value: `f"{user}-{time.time()}"` and `` `${user}:${pass}` `` leave too little to be a secret,
    `f"hunter2-{suffix}"` leaves `hunter2-`, and `"{hunter2}"` and `"${s3cr3t}"` are not templates at all.
    """
    if quote == "`" and "${" in value:
        return _JS_TEMPLATE_FIELD.sub("", value).strip()
    if formatted:
        return _TEMPLATE_FIELD.sub("", value.replace("{{", "\0\0").replace("}}", "\0\0")).strip()
    return value
