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

Quoted values count in any file. An unquoted value counts only where the file's syntax makes it a literal (config
files, shell, Markdown, files of no known language), not in a programming language's source, where
`password = hunter2` reads a variable and says nothing secret. Values that cannot be secrets are left alone
whatever the name: templates of other values, masks (`"****"`), fragments that start or end with a space, and in
unquoted values that are keywords (`true`, `null`), code shown in documents (`get_password()`), structures and
placeholders (`{...}`, `<your-password>`).
"""

from __future__ import annotations

import re
from typing import Literal

from smartsearch_ls.discovery.documentation import is_documentation

Syntax = Literal["code", "prose", "config"]
"""How a file writes values: `code` (a programming language or markup: an unquoted value is an expression or
markup), `prose` (documentation: an unquoted value is one word, the rest of the line is prose) or `config`
(everything else: an unquoted value is the rest of the line, as YAML, INI, `.properties` and shell read it)."""

_SEPARATOR = r"(?::=|=>|===|==|=|:)"
_PREFIX = r"[rbuRBUfF]{0,2}"


def _quoted(group: str) -> str:
    """A string literal on one line (`"..."`, `f'...'`, `` `...` ``), its prefix, quote and text captured as
    `<group>prefix`, `<group>q` and `<group>value`: a pattern names each of its literals apart."""
    return (
        rf"(?P<{group}prefix>{_PREFIX})(?P<{group}q>[\"'`])"
        rf"(?P<{group}value>(?:\\.|(?!(?P={group}q))[^\\\n]){{1,500}}?)(?P={group}q)"
    )


_BETWEEN_LITERALS = r"(?:\s|#[^\n]*\n)*"
"""What may stand between the literals of a parenthesised value: spaces, line ends and `#` comments (each taken to
its line end, so a quote inside one is never taken for a literal's)."""

ASSIGNMENT = re.compile(
    r"(?P<lead>(?<!\w)(?P<nq>[\"'`]?)(?P<name>(?=[\w.-]{0,80}?(?i:pass|pwd|pw|secret|cred|token|key|auth))"
    r"[A-Za-z_][\w.-]{0,80})(?P=nq)\]?"
    r"(?:[ \t]*:[ \t]*[A-Za-z_][\w.\[\], |]{0,60}?(?=[ \t]*=[^=>]))?"  # an annotation: `password: str = "..."`
    rf"[ \t]*{_SEPARATOR}[ \t]*)"
    rf"(?:(?P<paren>\({_BETWEEN_LITERALS})?{_quoted('')}"
    rf"(?(paren)(?:{_BETWEEN_LITERALS}{_quoted('next')})*)"  # in parentheses, the literals joined to the first
    r"|(?P<bare>[^\s\"'`#;,:=][^\n\"'`]{0,500}))"
)
"""`name <separator> value`: `=`, `:`, `:=`, `=>`, `==`, `===` (a hard-coded comparison leaks as much), the name
optionally quoted (`"password": ...`, `config["password"] = ...`) or annotated (`password: str = ...`); the value
quoted, the literals in parentheses that a long value is split into (`PASSWORD = (` with `"..."` on each line
below, which Python and C join into one string), or the rest of the line. Only a parenthesised value's match spans
lines, the ones `LITERAL_LINE` tells."""

LITERAL_LINE = re.compile(rf"[ \t]*(?:{_PREFIX}[\"'`]|#)")
"""A line that may go on a parenthesised value (`ASSIGNMENT`): one starting with a literal or a comment."""

_LITERAL_OR_COMMENT = re.compile(rf"#[^\n]*|{_quoted('')}")
"""The literals of an `ASSIGNMENT` value, read past the comments between them."""

XML_ELEMENT = re.compile(
    r"<(?P<name>(?=[\w.:-]{0,80}?(?i:pass|pwd|pw|secret|cred|token|key|auth))[A-Za-z_][\w.:-]{0,80})>"
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
    r"(?P<name>(?=[\w.-]{0,80}?(?i:pass|pwd|pw|secret|cred|token|key|auth))[A-Za-z_][\w.-]{0,80})[ \t]+)"
    r"(?P<value>[^\s=][^\n]{0,500}?)[ \t]*$",
    re.MULTILINE,
)
"""A Dockerfile's `ENV NAME value` (the legacy form: a space, not `=`, between name and value)."""

SECRET_WORD = re.compile(r"(?i)pass|pwd|pw|secret|cred|token|key|auth")
"""A part of the name of every match of the patterns above: a snippet without one is not scanned by them."""
SECRET_WORD_LOWERED = re.compile(r"p(?:ass|wd|w)|secret|cred|token|key|auth")
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


def is_secret(name: str, value: str, *, quoted: bool) -> bool:
    """Whether `value`, assigned to `name`, is to be taken for a secret (see the module's docstring)."""
    words = [w.lower() for w in _WORDS.findall(name) if not w.isdigit()]
    if not words or words[-1] in _ABOUT_THE_SECRET:
        return False
    if value != value.strip() or not any(c.isalnum() for c in value):
        return False  # a fragment of a message or a command line, or a mask (`"****"`)
    if "://" in value or value.startswith(("/", "./", "~/")):
        return False  # a URL (one with a password is the URL rule's) or a path
    if not quoted and (value.lower() in _NOT_LITERALS or "(" in value or ")" in value or value[0] in "{[<"):
        return False  # a keyword, a type, code shown in a document, a structure or a `<placeholder>`
    if words[-1] in _CHOSEN_LAST or any(chosen in "".join(words) for chosen in _CHOSEN):
        return len(value) >= 4
    if words[-1] in _GENERATED or words[-1].endswith("token"):
        return _looks_generated(value)
    return False


def _looks_generated(value: str) -> bool:
    """Random-looking rather than made of words: a key, not `"__f2py_cb_#name#"` or `"textDocument/semanticTokens"`.

    Generated values of 8 characters or more nearly always hold several digits (hex, base64) or runs of letters
    whose case changes inside them (base64); names, paths and messages rarely do."""
    if len(value) < 8 or any(c.isspace() for c in value):
        return False
    if _DOTTED_NAME.fullmatch(value) or not any(c.isalpha() for c in value):
        return False
    digits = sum(c.isdigit() for c in value)
    return digits >= 3 or (digits >= 1 and any(_MIXED_CASE.search(run) for run in _LETTER_RUN.findall(value)))


def redacted(found: re.Match[str], mark: str, syntax: Syntax) -> str | None:
    """An `ASSIGNMENT` match with its value replaced by `mark`, or None when the value is not taken for a secret."""
    name = found["name"]
    if found["q"]:
        literals = [m for m in _LITERAL_OR_COMMENT.finditer(found.string, found.end("lead"), found.end()) if m["q"]]
        if not is_secret(name, "".join(_literal_part(m) for m in literals), quoted=True):
            return None
        # Each literal is marked, what is between them (the parenthesis, line ends, comments) kept.
        pieces, at = [found["lead"]], found.end("lead")
        for literal in literals:
            pieces += (found.string[at : literal.start()], f"{literal['prefix']}{literal['q']}{mark}{literal['q']}")
            at = literal.end()
        return "".join(pieces)
    if syntax == "code":
        return None
    value, rest = _without_comment(found["bare"])
    if syntax == "prose":  # one word, without the punctuation of the sentence it is in; what follows is prose
        word, space, more = value.partition(" ")
        value = word.rstrip(",;.")
        rest = word[len(value) :] + space + more + rest
    return f"{found['lead']}{mark}{rest}" if is_secret(name, value, quoted=False) else None


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


def _without_comment(bare: str) -> tuple[str, str]:
    """An unquoted value and what follows it: a trailing comment (` # ...`, INI's ` ; ...`) or spaces."""
    at = _COMMENT.search(bare)
    assert at is not None  # `\s*$` matches any string
    return bare[: at.start()], bare[at.start() :]


_TEMPLATE_FIELD = re.compile(r"\{(?:[A-Za-z_][A-Za-z0-9_.]*(?:\([^{}]*\)|\[[^{}]*\])*|[0-9]*)(?:![rsa])?(?::[^{}]*)?\}")
"""A replacement field of an f-string or `str.format`: `{user}`, `{self.name!r}`, `{time.time()}`, `{0}`, `{}`."""
_JS_TEMPLATE_FIELD = re.compile(r"\$\{[^{}]*\}")


def _literal_part(found: re.Match[str]) -> str:
    """A quoted value without the fields of a template, which hold other values rather than a secret.

    Only an f-string, a string `.format(...)` is called on, or a JavaScript template literal is a template;
    `{{`/`}}` are literal braces in the first two, and a field must name a value: `f"{user}-{time.time()}"` and
    `` `${user}:${pass}` `` leave too little to be a secret, `f"hunter2-{suffix}"` leaves `hunter2-`, and
    `"{hunter2}"` and `"${s3cr3t}"` are not templates at all.
    """
    value = found["value"]
    if found["q"] == "`" and "${" in value:
        return _JS_TEMPLATE_FIELD.sub("", value).strip()
    if "f" in found["prefix"].lower() or found.string.startswith(".format(", found.end()):
        return _TEMPLATE_FIELD.sub("", value.replace("{{", "\0\0").replace("}}", "\0\0")).strip()
    return value
