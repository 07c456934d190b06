"""Every kind of secret the redactor knows is caught, whatever else the snippet holds.

The redactor skips a pattern unless a literal its matches must contain is in the text (a judged search redacts
every shortlisted snippet); these cases pin that each kind's literal check still lets its secrets through to
the pattern, in any letter case the pattern accepts; others pin the assignment syntaxes of code and config
files, and ordinary code with secret-sounding names that must stay as it is. The end-to-end cases are in
`tests/faults`.
"""

from __future__ import annotations

import re
import time

import pytest

from smartsearch_ls.chunking import chunk_file
from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge import redact as redact_module
from smartsearch_ls.judge.redact import Redacted, redact, redact_lines, redact_snippet

PEM = "-----BEGIN RSA PRIVATE KEY-----"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXBhcnQ"
CASES = [
    ("openai-key", 'client = OpenAI(api="sk-proj-Ab3dEf6hIj9kLm2nOp5q")', "sk-proj-Ab3dEf6hIj9kLm2nOp5q"),
    ("aws-access-key", "aws_id = ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
    ("github-token", "gh = 'gho_16C7e42F292c6912E7710c838347Ae178B4a'", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("slack-token", "hook(token_value=xoxb-123456789012-abcdefghij)", "xoxb-123456789012-abcdefghij"),
    ("google-api-key", "maps(AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q)", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("stripe-key", "stripe.api = rk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("jwt", f"headers = auth({JWT})", JWT),
    ("bearer-token", "h = {'Authorization': 'BEARER abcdefghijklmnop1234'}", "abcdefghijklmnop1234"),
    ("url-password", "DSN = postgres://admin:hunter2pass@db.example.com/app", "hunter2pass"),
    ("assignment", 'settings = {"Client_Secret": "a8f5f167f44f4964e6c9"}', "a8f5f167f44f4964e6c9"),
    ("assignment", 'PassPhrase = "correct horse battery"', "correct horse battery"),
    ("assignment", "export SERVICE_API_KEY=abcdef123456789", "abcdef123456789"),
    ("private-key", f"{PEM}\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_each_kind_of_secret_is_redacted_among_other_code(kind: str, text: str, secret: str) -> None:
    code = f"def handler(request):\n    {text}\n    return request\n"
    redacted = redact(code)
    assert kind in redacted.kinds and secret not in redacted.text
    assert redacted.text.count("\n") == code.count("\n")


def test_code_without_any_secret_word_comes_back_unchanged() -> None:
    code = "def add(left, right):\n    return left + right  # https://example.com/docs\n"
    assert redact(code).text == code and redact(code).count == 0


SYNTAXES = {
    # path: text with the secret between « and »
    "deploy/app.yaml": "database:\n  password: «Hunter2-yaml»  # rotate\n",
    "deploy/app.ini": "[db]\npassword = «ini-s3cret» ; old\n",
    "src/main/resources/app.properties": "spring.datasource.password=«Pr0ps-pass»\n",
    "aws.cfg": "aws_secret_access_key = «wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY»\n",
    "deploy/run.sh": "export DB_PASSWORD=«shell-pass-1»\n",
    "settings.py": 'DB_PASS = "«hunter2-db»"\n',
    "models.py": 'class Settings:\n    db_password: str = "«changeme-now»"\n',
    "mail.py": 'config["smtp_password"] = "«mail-pass-9»"\n',
    "client.ts": 'const headers = { "auth": "Basic «ZGVwbG95OnMzY3JldA==»" };\n',
    "client.go": 'req.Header.Set("Authorization", "Bearer «abc123def»")\n',
    "keys.go": 'apiKey := "«k3y-9f8e7d6c5b»"\n',
    "login.js": 'login({ password: userInput, token: "«abc123def456»" });\n',  # after a value that is no secret
    "index.php": "$password = '«php-pass-1»';\n",
    "settings.xml": "<server><password>«maven-pass»</password></server>\n",
    "web.config": '<appSettings>\n  <add key="DbPassword" value="«dotnet-pass-1»" />\n</appSettings>\n',
    "Dockerfile": "FROM python:3.11\nENV DB_PASSWORD «docker-pass-1»\nENV PATH /usr/local/bin\n",
    "deploy/values.yaml": "db:\n  password: |\n    «yaml-block-pass-1»\n  host: db.internal\n",
    "docs/setup.md": "Then set `password: «docs-pass-1»` in the config.\n",
}


@pytest.mark.parametrize("path", SYNTAXES)
def test_secrets_in_config_syntaxes_and_unquoted_values_are_redacted(path: str) -> None:
    text = SYNTAXES[path].replace("«", "").replace("»", "")
    secret = SYNTAXES[path].split("«")[1].split("»")[0]
    redacted = redact_snippet(Snippet(path, 1, text.count("\n"), text))
    assert secret not in redacted.text and redacted.count == 1, redacted.text
    assert redacted.text.count("\n") == text.count("\n")


ORDINARY_CODE = [
    ("web.config", '<add key="ApiKeyName" value="primary" />\n<add key="sortKey" value="name" />\n'),
    ("Dockerfile", "ENV TOKEN_URL https://auth.example.com/token\nENV SECRET_FILE /run/secrets/db\n"),
    ("cache.py", 'key = dict_key\nsort_key = "name"\ncache_key = f"{user}:{page}"\nkeys = sorted(keys)\n'),
    ("auth.py", 'password = request.form["password"]\ntoken = get_token()\nauth = HTTPBasicAuth(user, pw)\n'),
    ("hooks.py", "@post_load(pass_many=True)\ndef make(self, data, **kwargs):\n    pass\n"),
    ("lexer.py", 'if token == "else":\n    TOKEN_EOF = "end of template"\n'),
    ("lsp.py", 'SEMANTIC_TOKENS_FULL = "textDocument/semanticTokens/full"\n'),
    ("urls.py", 'TOKEN_URL = "https://auth.example.com/oauth/token"\npassword_prompt = "Password: "\n'),
    ("c.c", 'char *key = "__f2py_cb_#name#";\n'),
    ("masks.py", 'password = ":****"\nshown = {"secret": "**********"}\n'),
    ("ws.js", "opts.auth = `${url.username}:${url.password}`;\n"),
    ("settings.py", 'AUTH_BACKEND = "django.contrib.auth.backends.ModelBackend"\n'),
    ("config.yaml", "auth_type: basic\ntoken_ttl: 3600\nkey: password\nsecretKeyRef:\n  name: db\n"),
    ("messages.py", 'MESSAGE = (\n    "hello"\n)\nPASSWORD_PROMPT = (\n    "Enter your "\n    "password: "\n)\n'),
    ("env.py", 'token = (\n    os.environ["TOKEN"]\n)\nkey = get_key(\n    "scope"\n)\n'),
    ("values.yaml", "description: | # what it does\n  Rotates the password\npassword_hint: | # shown\n  a pet\n"),
    ("list.yaml", "- description: |\n    Rotates the token\n- notes: >-\n    none\n"),
    # Tuples and lists whose name says what their items are, not that they are secrets, a ternary and a sum
    (
        "secrets.py",
        'SECRET_SETTINGS = ("DEBUG", "SECRET_KEY")\n_CREDENTIAL_HEADERS = ("x-goog-api-key", "authorization")\n',
    ),
    ("oauth2.py", '_SECRET_TOKEN_ENDPOINT_AUTH_METHODS = ("client_secret_post", "client_secret_basic")\n'),
    (
        "hashers.py",
        'PASSWORD_HASHERS = (\n    "django.contrib.auth.hashers.PBKDF2PasswordHasher",\n'
        '    "django.contrib.auth.hashers.Argon2PasswordHasher",\n)\nAUTH_METHODS = ["password", "oauth"]\n',
    ),
    ("expressions.py", 'token = ("abc123def456" if prod else "dev")\nPASSWORD = ("hunter2" + suffix)\n'),
    ("auth.json", '{"auth_methods": [\n  "password_grant",\n  "client_secret_basic"\n]}\n'),
    ("README.md", "password = get_password()\nkey = dict_key\nBasic usage: call it.\nBearer authentication\n"),
    # Collections of names: a lazy-import table (a module path and a class), helpers, environment variables' names
    (
        "vaults/__init__.py",
        '_TABLE = {\n    "Credentials": (".credentials", "Credentials"),\n'
        '    "AsyncCredentialsWithRawResponse": (".credentials", "AsyncCredentialsWithRawResponse"),\n}\n',
    ),
    ("utils.py", '{"_git_credential": [\n    "list_credential_helpers",\n    "set_git_credential",\n]}\n'),
    ("ci.py", 'SECRETS = ["OPENAI_API_KEY", "GITHUB_TOKEN", "DATABASE_URL"]\nREQUIRED_SECRETS = ("TOKEN",)\n'),
    ("aws.py", 'CREDENTIALS = ("aws_access_key_id", "aws_secret_access_key")\n'),
    ("_parser.py", '        >>> tokens = ["foo", " ", "bar", " ", "19June2000", "baz"]\n'),  # a text cut into tokens
]


@pytest.mark.parametrize(("path", "text"), ORDINARY_CODE, ids=[p for p, _ in ORDINARY_CODE])
def test_ordinary_code_with_secret_sounding_names_is_left_alone(path: str, text: str) -> None:
    redacted = redact_snippet(Snippet(path, 1, text.count("\n"), text))
    assert redacted.count == 0 and redacted.text == text, redacted.text


@pytest.mark.parametrize("path", ["deploy/keys.txt", "deploy/keys.py"])
def test_a_key_block_cut_between_snippets_is_redacted_in_every_one(path: str) -> None:
    """Windows (.txt) overlap by 10 lines and a Python statement longer than 160 lines is cut at plain line counts:
    either way a snippet starts inside the block, below its BEGIN line, and must not carry its body or END line."""
    body = [f"QUJD{n:060d}" for n in range(200)]
    lines = [f"setting_{n} = {n}" for n in range(140)]
    lines += ['DEPLOY_KEY = """-----BEGIN RSA PRIVATE KEY-----', *body, '-----END RSA PRIVATE KEY-----"""']
    lines += [f"after_{n} = {n}" for n in range(30)]
    snippets = chunk_file(path, "\n".join(lines) + "\n").snippets
    inside = [s for s in snippets if 141 < s.start_line <= 342]
    assert inside, [(s.start_line, s.end_line) for s in snippets]
    for snippet in snippets:
        judged = redact_snippet(snippet)
        assert not any(line in judged.text for line in body) and "-----END" not in judged.text
        assert judged.text.count("\n") == snippet.text.count("\n")
    assert all(redact_snippet(s).text.splitlines()[0] == "[REDACTED:private-key]" for s in inside)
    assert any('"""' in redact_snippet(s).text for s in inside)  # what follows the END armor is kept


def _redact_marked(path: str, written: str) -> tuple[Redacted, str]:
    """`written` holds its secrets between « and »: what redacting the snippet of it makes, and what it should make
    (each secret a marker, everything else as written)."""
    text = written.replace("«", "").replace("»", "")
    return redact_snippet(Snippet(path, 1, text.count("\n"), text)), re.sub("«[^»]*»", "[REDACTED:secret]", written)


MULTILINE_VALUES = [
    # (path, text with each secret line between « and »): values on the lines below their name
    ("settings.py", 'PASSWORD = (\n    "«hunter2»"\n    "«more»"\n)\n'),
    ("client.py", 'api_key = (\n    "«k3y-9f8e7d6c5b4a»"\n)\nTIMEOUT = 30\n'),
    ("config.py", 'class Config:\n    TOKEN: str = (\n        f"«abc123def456ghi»"\n    )\n'),
    ("db.py", 'DB_PASSWORD = (  # rotated "yearly"\n    "«hunter2»"  # the first half\n    \'«-more»\'\n)\n'),
    ("deploy/values.yaml", "db:\n  password: | # the prod one\n    «hunter2-block»\n\n    «second-line»\n  host: x\n"),
    ("deploy/api.yaml", "api:\n  token: >- # rotated monthly\n    «abc123def456ghi789»\n  port: 1\n"),
    ("deploy/crlf.yaml", "db:\r\n  password: | # the prod one\r\n    «hunter2-crlf»\r\n  host: x\r\n"),
    (
        "deploy/users.yaml",
        "users:\n  - name: alice\n  - password: |\n      «bob-pass-22»\n      «line-two»\n    name: bob\n",
    ),
    ("deploy/app.yaml", '"password": |\n  «json-ish-pass»\n"port": 1\n'),
    ("deploy/keys.yaml", "'api_key': >\n  «AbC123xyzDEF456»\n  «more-of-it»\n'port': 1\n"),
    # Empty and whitespace-only lines, and parentheses in a comment or a literal, inside the parentheses
    ("blank.py", 'PASSWORD = (\n\n    "«hunter2»"\n\n    "«more»"\n)\n'),
    ("spaces.py", 'PASSWORD = (\n    "«hunter2»"\n    \n    "«more»"\n)\n'),
    ("comment.py", 'PASSWORD = (  # see the docs)\n    "«hunter2»"\n)\n'),
    ("paren.py", 'PASSWORD = ("«a)b-x»"\n    "«more»")\n'),
    # Literals written next to each other on one line, an empty one among them, and a one-line triple-quoted one
    ("adjacent.py", 'PASSWORD = "«abc»" "«def»"\n'),
    ("empty.py", 'PASSWORD = (\n    ""\n    "«hunter2»"\n)\n'),
    ("triple.py", 'PASSWORD = """«hunter2»"""\n'),
    # A line continued by a backslash joins the literals below it, as Python and C's preprocessor read them
    ("continued.py", 'SECRET_KEY = "«abcdefgh»" \\\n    "«def123456789»"\n'),
    ("continued-crlf.py", 'SECRET_KEY = "«abcdefgh»" \\\r\n    "«def123456789»"\r\n'),
    ("continued-in-parens.py", 'PASSWORD = ("«hunter22»" \\\n    "«more-of-it»")\n'),
    # A block scalar's head with an anchor or a tag, or an empty line between it and its value
    ("deploy/anchor.yaml", "db:\n  password: &pw |\n    «hunter2-anchored»\n  host: x\n"),
    ("deploy/tag.yaml", "db:\n  password: !!str |\n    «hunter2-tagged»\n  host: x\n"),
    ("deploy/gap.yaml", "db:\n  password: |\n\n    «hunter2-after-a-gap»\n  host: x\n"),
    # A `#` before the name inside a string literal, not a comment
    ("hash.py", 'x = "#"; PASSWORD = (\n    "«hunter22»"\n)\n'),
    ("anchor.py", 'url = "https://example.com/#top"; token = (\n    "«abc123def456»"\n)\n'),
]


@pytest.mark.parametrize(("path", "written"), MULTILINE_VALUES, ids=[p for p, _ in MULTILINE_VALUES])
def test_a_secret_written_on_the_lines_below_its_name_is_redacted_line_by_line(path: str, written: str) -> None:
    """A value in parentheses below its name (`PASSWORD = (`, also past an empty line), literals side by side
    (`"abc" "def"`, a one-line triple-quoted string), and a YAML block scalar whose head carries a comment, an anchor
    or a tag, is a list item's (`- password: |`, its value indented under the key), has a quoted key or an empty
    line above its value were sent as written, whole or in part: each of its strings or lines is blanked, what is
    around them (comments, quotes, line ends, empty literals) kept, and counted once."""
    redacted, expected = _redact_marked(path, written)
    assert redacted.text == expected and redacted.kinds == ("assignment",)


SPANNING_STRINGS = [
    # (path, text with each secret line between « and »): a string over the lines below its name, which was read as
    # an empty literal (its opening quotes) and sent whole
    ("settings.py", 'API_KEY = """\n    «9f8e7d6c5b4a3f2e1d0c»\n    «1a2b3c4d5e6f7a8b9c0d»\n"""\n'),
    ("single.py", "API_KEY = '''\n«9f8e7d6c5b4a3f2e1d0c»\n'''\n"),
    ("client.js", "const apiKey = `\n  «9f8e7d6c5b4a3f2e1d0c»\n`;\n"),
    ("Client.kt", 'val apiKey = """\n    «9f8e7d6c5b4a3f2e1d0c»\n""".trimIndent()\n'),
    ("escaped.py", 'API_KEY = """\\\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n'),  # `"""\` at the end of the opening line
    ("crlf.py", 'API_KEY = """\r\n    «9f8e7d6c5b4a3f2e1d0c»\r\n"""\r\n'),
    ("wrapped.py", 'API_KEY = (\n    """\n    «9f8e7d6c5b4a3f2e1d0c»\n    """\n)\n'),
    ("parens.py", 'API_KEY = ("""\n    «9f8e7d6c5b4a3f2e1d0c»\n""")\n'),
    ("first-line.py", 'PASSWORD = """«hunter2-first»\n    «and-the-rest»"""\n'),
    ("template.py", 'PASSWORD = f"""\n«hunter2-{suffix}»\n"""\n'),  # what is left without the field decides
    ("cut.py", 'API_KEY = """\n    «9f8e7d6c5b4a3f2e1d0c»\n'),  # a snippet that ends inside the string
    ("after-a-quoted-one.py", 'MARK = \'"""\'\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n'),
    # Quotes in comments, and apostrophes around a backtick in one, open nothing
    (
        "comments.py",
        '# Bob\'s `x\'s` value\nx = 1  # use \'\'\' for docs\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n',
    ),
    ("console.js", "// press ` to open the console\nconst apiKey = `\n«9f8e7d6c5b4a3f2e1d0c»\n`;\n"),
    # The quotes on a line below the name: Kotlin's wrapped layout, a comment between, a call, a backslash
    ("Wrapped.kt", 'val apiKey =\n    """\n    «9f8e7d6c5b4a3f2e1d0c»\n    """.trimIndent()\n'),
    ("wrapped.js", "const apiKey =\n  `\n«9f8e7d6c5b4a3f2e1d0c»\n`;\n"),
    ("commented.py", 'API_KEY = (\n    # the prod key\n    """\n    «9f8e7d6c5b4a3f2e1d0c»\n    """\n)\n'),
    ("dedent.py", 'API_KEY = textwrap.dedent("""\n    «9f8e7d6c5b4a3f2e1d0c»\n""")\n'),
    ("backslash.py", 'API_KEY = \\\n"""\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n'),
    # A key wrapped over lines: its pieces that would not read as a key alone go with it
    ("pieces.py", 'API_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n«AbCdEfGhIjKlMnOpQrSt»\n«d0c»\n"""\n'),
    # Lone CR line ends; a text that begins inside a docstring (a window cut through it) or a template literal
    ("cr.py", 'API_KEY = """\r    «9f8e7d6c5b4a3f2e1d0c»\r"""\r'),
    ("cut-docstring.py", '    More docs.\n    """\n    x = 1\n\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n'),
    ("cut-template.js", "end of a template`;\n\nconst apiKey = `\n«9f8e7d6c5b4a3f2e1d0c»\n`;\n"),
    # In documentation, the strings of each fenced block, whatever the prose or the blocks before say
    ("docs/four.md", '````python\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n````\n'),
    (
        "docs/open.md",
        'Ex:\n\n```python\n    """Start\n```\n\n```python\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n```\n',
    ),
    ("docs/quotes.md", 'Type \'\'\' or """ to start.\n\n```python\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n```\n'),
    ("docs/list.md", '1. Set it:\n\n    ```python\n    API_KEY = """\n    «9f8e7d6c5b4a3f2e1d0c»\n    """\n    ```\n'),
    ("docs/cut.md", 'API_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n```\n\nMore prose.\n'),  # a window cut inside a block
    ("docs/cr.md", '```python\rAPI_KEY = """\r«9f8e7d6c5b4a3f2e1d0c»\r"""\r```\r'),
    # JavaScript's private fields are no comments
    ("private.js", "class C {\n  #apiKey = `\n«9f8e7d6c5b4a3f2e1d0c»\n`;\n}\n"),
    ("static.js", "class C {\n  static #token = `\n«1a2b3c4d5e6f7a8b9c0d»\n`;\n}\n"),
    # A text that begins inside a string of another kind, or holds a stray backtick: the later quotes are read too
    (
        "cut-other-kind.py",
        "    more\n    '''\n\nAPI_KEY = \"\"\"\n«9f8e7d6c5b4a3f2e1d0c»\n\"\"\"\n\ndef f():\n    '''Doc.'''\n",
    ),
    ("stray-backtick.py", '    pressed with ` here.\n    """\n\nAPI_KEY = """\n«9f8e7d6c5b4a3f2e1d0c»\n"""\n'),
    # Passwords of a list holding parentheses or opening with a bracket, as generated ones do
    ("list.py", 'PASSWORDS = """\n«Xk9#pL2(mQ7!vR4)»\n«<aB3$dE6^gH9&»\n"""\n'),
]


@pytest.mark.parametrize(("path", "written"), SPANNING_STRINGS, ids=[p for p, _ in SPANNING_STRINGS])
def test_a_secret_string_over_the_lines_below_its_name_is_redacted_line_by_line(path: str, written: str) -> None:
    """A triple-quoted string or a template literal that opens after a secret's name and goes on over the lines
    below (wrapped in parentheses or not, with a prefix, a line-continuing backslash, CRLF line ends, or cut by the
    snippet's end) was sent as written: each of its lines that reads as a value of that name is blanked, its
    indentation and line end kept, and the string counted once."""
    redacted, expected = _redact_marked(path, written)
    assert redacted.text == expected and redacted.kinds == ("assignment",)


SPANNING_TEXTS = [
    # Strings over lines below a secret's name that hold no secret of it, and quotes that close a string
    'expired_token = """\nError 401: token expired at 2024-01-01\n"""\n',  # prose under a key's name
    'QUERIES = {\n    "get_token": """\n        SELECT token FROM tokens WHERE user_id = 12345\n    """,\n}\n',
    'API_KEY = f"""\n{user}-{host}\n"""\n',  # nothing but a template's fields
    'API_KEY = """\n{user}-{host}\n""".format(user=u, host=h)\n',  # and a string `.format` is called on
    # A docstring whose last line ends in `password=`: its closing quotes open nothing, the code below is code
    'def f():\n    """Set up.\n\n    password="""\n    connect(user, pw)\n    """Doc"""\n',
    'SECRET = """\n[REDACTED:secret]\n"""\n',  # a marker the source holds
    # Text under a name of something chosen (any 4 characters are a password): a string of several lines with spaces
    'CREATE_CREDENTIALS_TABLE = """\nCREATE TABLE credentials (\n    id INTEGER PRIMARY KEY\n);\n"""\n',
    'PASSWORD_RULES = """\nAt least 8 characters.\nOne digit.\n"""\n',
    # A stray backtick in a comment, and the code after a comment naming a secret's key
    "# `\\` is an escape\nx = 1\n# the `password=` key\nconnect(user, pw)\nreturn session\n",
    'class Token:\n    """A token.\n\n    Attributes:\n        value: the text\n    """\n',  # a block, not a value
    # Text, code and markup under a name of something chosen, with lines without spaces among them
    '_SECRET_TABLE = """\ntable(\n  name.basename():label=NAME,\n  createTime.date():label=CREATED\n)\n"""\n',
    'MISSING_CREDENTIALS_TEXT = """\nCredentials file not found at {path}.\n\n{fix_suggestion}.\n"""\n',
    'CREDENTIALS_QUERY = """\nSELECT\n    id,\n    username\nFROM\n    credentials\nWHERE\n    id = %s\n"""\n',
    'PASSWORD_RESET_HTML = """\n<html>\n<body>\n<p>Click the link</p>\n</body>\n</html>\n"""\n',
    # Quotes that close a template after a secret's name, with code after them on their line
    "const url = `${base}/login?user=${u}&password=`;\nfetch(url);\nreturn;\n}\nconst y = `x`;\n",
    # A call that does not keep the value: a prompt, a pattern
    'password = input("""\nEnter the new password:\n""")\n',
    'PASSWORD_RE = re.compile(r"""\n^(?=.*\\d)\n(?=.*[a-z])\n.{8,}$\n""", re.X)\n',
    # A backtick in a comment or a docstring after a key's name: no assignment, the code below is code
    "    # e.g. `password=`\n    return\n",
    "    // send `password=`\n    return;\n  }\n}\n",
    'def f():\n    """Set `password=`\n    then\n    restart\n    """\n',
]


@pytest.mark.parametrize(
    "text",
    SPANNING_TEXTS,
    ids=[
        "prose",
        "sql",
        "fields",
        "format-fields",
        "docstring-end",
        "marker",
        "sql-credentials",
        "rules",
        "stray-backtick",
        "class",
        "format-table",
        "template-text",
        "sql-keywords",
        "html",
        "template-end",
        "prompt",
        "pattern",
        "comment-backtick",
        "slash-comment-backtick",
        "docstring-backtick",
    ],
)
def test_a_string_over_lines_that_holds_no_secret_of_its_name_is_left_as_written(text: str) -> None:
    """Decided line by line, as a lone literal of the name would be: the spaces of prose and SQL keep them from
    reading as a key, where joining the lines would have taken them out, and in a string of several lines they keep
    them from reading as a password; a docstring's closing quotes are told from opening ones by reading the text's
    strings in order, comments and one-line literals stepped over."""
    assert redact(text, syntax="code") == Redacted(text)


@pytest.mark.parametrize(
    "text",
    [
        "Don't quote `can't` here.\nSet `password:` below.\nThis is prose 1234.\nSee the docs.\n",
        "Set `password=`\nthen\nrestart\n\n```python\nx = 1\n```\n",  # prose before a block, read as code
    ],
)
def test_backticks_and_apostrophes_in_documentation_prose_open_no_string(text: str) -> None:
    assert redact(text, syntax="prose") == Redacted(text)


def test_a_string_the_scan_saw_is_read_under_its_own_name_after_quotes_read_the_other_way_round() -> None:
    """Quotes that close a template after `token=` end their line, so what follows them is read as a string too;
    that reading stops at the next string the scan saw, which is decided under its own name."""
    text = "url = f\"\"\"{base}?token=\"\"\"\nAPI_KEY = '''\nk-9f8e7d6c5b4a\n'''\nPASSWORD = '''\nhunter2hunter2\n'''\n"
    redacted = redact(text, syntax="code")
    assert "k-9f8e7d6c5b4a" not in redacted.text and "hunter2hunter2" not in redacted.text


def test_a_blanked_string_keeps_its_lone_cr_line_ends() -> None:
    text = 'PASSWORD = """\nhunter22\rhunter33\n"""\nx = 1\n'
    redacted = redact(text, syntax="code")
    assert redacted.text == 'PASSWORD = """\n[REDACTED:secret]\r[REDACTED:secret]\n"""\nx = 1\n'


def test_a_provider_key_in_a_string_over_lines_keeps_its_own_marker_and_is_counted_once() -> None:
    text = 'SECRET_KEY = """\nsk-abcdefghijklmnopqrstuvwxyz123456\n"""\n'
    assert redact(text, syntax="code") == Redacted('SECRET_KEY = """\n[REDACTED:openai-key]\n"""\n', ("openai-key",))


COLLECTIONS = [
    # (path, text with each secret item between « and »): tuples and lists under a name saying what their items are
    ("auth.py", 'BASIC_AUTH_CREDENTIALS = ("«admin»", "«hunter2»")\n'),
    ("passwords.py", 'PASSWORDS = (\n    "«hunter2»",  # the old one\n    "«s3cret99»",\n)\n'),
    ("creds.py", 'DB_CREDS = ["bob", "«hunter2»"]\n'),  # an item too short to be a password stays
    ("deploy/keys.json", '{"api_keys": [\n  "«abc123def456»",\n  "«xyz789ghi012»"\n]}\n'),
    ("tokens.py", 'API_TOKENS = ("«a1b2c3d4e5f6»", "not generated")\n'),  # decided as a lone `API_TOKENS` value
    # Items that read as words, not as names of something: a password holding a secret word is still one
    ("weak.py", 'PASSWORDS = ["«Password123»", "«secret99»", "«hunter2»"]\n'),
    # Items written as names that look generated: digits, or a digit and mixed case
    ("named.py", 'PASSWORDS = ["«Passw0rd_2024»", "«mySecretPass1»"]\n'),
    ("django.py", 'SECRET_KEYS = ["«django_insecure_key_12345»"]\n'),
    ("env.py", 'API_KEYS = ["«SK_LIVE_ABC123XYZ789»"]\n'),
    ("tokens2.py", 'AUTH_TOKENS = ["«Token_abc123XYZ»"]\n'),
    ("deploy/keys.yaml", 'api_key: ["«Secret_Key_2024»"]\n'),
    # C's array initializer in braces under a name with `[]`, and `//` comments between the items of a list
    ("keys.c", 'static const char *passwords[] = {"«hunter22»", "«letmein99»"};\n'),
    ("keys.h", 'const char *api_keys[2] = {\n  "«k-1234567890»",  // prod\n  "«k-0987654321»",\n};\n'),
    ("tokens.js", 'const tokens = [\n  // prod\n  "«tok_abc123456»",\n];\n'),
    ("keys.ts", 'const api_keys = [\n  "«k-1234567890»", /* prod */\n  "«k-0987654321»",\n];\n'),
]


@pytest.mark.parametrize(("path", "written"), COLLECTIONS, ids=[p for p, _ in COLLECTIONS])
def test_the_secret_items_of_a_tuple_or_list_named_for_secrets_are_redacted(path: str, written: str) -> None:
    """A tuple or list is a collection, and its name's last word says what its items are: under `CREDENTIALS`,
    `PASSWORDS`, `API_KEYS` each item is decided as a lone value of that name would be. Its first item was blanked
    and the others sent (`("admin", "hunter2")` sent the password), or it was sent whole; `SECRET_SETTINGS`,
    `PASSWORD_HASHERS` hold settings and hashers (`ORDINARY_CODE`)."""
    redacted, expected = _redact_marked(path, written)
    assert redacted.text == expected and redacted.kinds == ("assignment",)


@pytest.mark.parametrize(
    "adversarial",
    [
        "token=(# " * 22_000,  # a comment after each `(` on one line with no line end: each ran to the line's end
        "token=(# " * 11_000 + "\n" + "token=(# " * 11_000 + "\n",
        "password = (\n" + '"x" # y\n' * 25_000,  # one open parenthesis over 200 KB of literals and comments
        ('"x",' * 450 + "#" + "token=(#" * 24 + "\n") * 60,  # a value read from each `token=(` to the end
        "# token=(\n" * 20_000,  # comment lines, each read below its line to the text's end
        '"y"#token=(\n' * 16_000 + "z\n",  # and a comment after a literal, which no value reaches
        "PATTERNS = [\n" + '"token=(#",\n' * 8_000 + "]\n",  # a `token=(` in each literal, read to the `]`
        "PATTERNS = [\n" + '"#token=(#token=(#",\n' * 8_000 + "]\n",  # and after a `#` in it
        "// token=(\n" * 20_000,  # the same with `//` comments, which a value's gaps take too
        "// token = [\n" * 20_000,
        '"y"//token=(\n' * 16_000 + "z\n",
        "/* token=( */\n" * 20_000,  # and one-line block comments
        'token = f"{a' + "()" * 27 + '"\n',  # a template's field of calls, which could be split two ways a pair
        'token = "{a' + "[]" * 27 + '".format(x)\n',
        'token = """\n' * 20_000,  # strings over lines, each below a secret's name
        "token = `\n" * 20_000,
        "x = '\"\"\"' # '\n" * 10_000,  # triple quotes inside one-line literals, and unclosed quotes
        'API_KEY = """\n' + "k" * 200_000 + "\n",  # one line of a string the text ends inside
        "token = (\n" + ("api_key " * 40 + '"""\n"""') * 600,  # strings far from any line end, below names
        ("password = " * 30 + '"""\nx\n"""\n') * 500,
        "const token = `a`;" + ("x=" + "f(a,b);" * 50 + "y=`\n`;") * 500,  # a minified bundle's shape
        'PASSWORD = """\n' + "abcd\n" * 40_000 + '"""\n',  # a string of many short lines: a password list
        "password = " + "`#" * 100_000,  # quotes and comments on one long line, each checked to the line's end
        "password = " + "`//" * 66_666,
        "password = `x`" + "#f =1;" * 33_333,  # private fields' `#`, each taken to the line's end first
        "API_KEY = '''\r" + "'''#\r" * 40_000,  # lone CR line ends, which a look for a line's start missed
        "API_KEY = '''\r" + "'''\r" * 50_000,
    ],
    ids=[
        "one-line",
        "two-lines",
        "below-the-name",
        "sixty-long-lines",
        "comment-lines",
        "after-literals",
        "in-literals",
        "after-a-hash-in-literals",
        "slash-comment-lines",
        "slash-comment-brackets",
        "after-literals-slash",
        "block-comment-lines",
        "template-field-calls",
        "template-field-subscripts",
        "triple-quotes-below-names",
        "backticks-below-names",
        "triple-quotes-in-literals",
        "a-long-line-in-a-string",
        "strings-far-from-line-ends",
        "names-before-strings-on-long-lines",
        "minified-templates",
        "many-short-lines",
        "backticks-and-hashes-on-one-line",
        "backticks-and-slashes-on-one-line",
        "private-fields-on-one-line",
        "lone-cr-comments",
        "lone-cr-strings",
    ],
)
def test_redaction_stays_fast_on_text_made_to_slow_it(adversarial: str) -> None:
    """About 200 KB made of what a parenthesised value may hold, which took seconds (quadratic in a line's length,
    or in the text's; exponential in a template field's calls): redacting a snippet, an error message or an import
    specifier must not stall a search."""
    started = time.perf_counter()
    redacted = redact(adversarial, syntax="code")
    assert time.perf_counter() - started < 2.0
    assert redacted.text.count("\n") == adversarial.count("\n")


BLOCK_HEADS = [
    # (the block's head line, its value's indentation)
    ("  password: |", 4),
    ("  password: | # the prod one", 4),
    ("  password: >- # folded, no final line end", 4),
    ("  - password: |", 6),  # a list item: the value is indented under the key, not under the dash
    ('  "password": |', 4),
    ("  'api_key': >", 4),
    ("  password: &pw |", 4),  # an anchor
    ("  password: !!binary >-", 4),  # a tag
]


@pytest.mark.parametrize(("head", "indent"), BLOCK_HEADS, ids=[head.strip() for head, _ in BLOCK_HEADS])
def test_a_secret_block_scalar_cut_between_snippets_is_redacted_in_every_one(head: str, indent: int) -> None:
    """YAML windows overlap by 10 lines, so a 70-line `password: |` value goes on in a snippet without the
    `password: |` line: its lines are blanked there too, counted as the assignment they are (not as a private key),
    while a block scalar under a name that says nothing secret (`description: |`) reaches the judge as written."""
    secret = [f"Hunter{n:02d}x9Q-chosen-pass-line" for n in range(70)]  # a password and a generated key alike
    described = [f"line {n:02d} of what the service does" for n in range(70)]
    sibling = " " * (indent - 2)  # where the next key of the same mapping is
    lines = ["service:", head, *(" " * indent + line for line in secret)]  # the block: lines 2-72
    lines += [f"{sibling}description: |", *(" " * indent + line for line in described), f"{sibling}port: 8080"]
    snippets = chunk_file("deploy/values.yaml", "\n".join(lines) + "\n").snippets
    inside = [s for s in snippets if 2 < s.start_line <= 72]
    assert inside, [(s.start_line, s.end_line) for s in snippets]
    for snippet in snippets:
        judged = redact_snippet(snippet)
        assert not any(line in judged.text for line in secret), (snippet.start_line, judged.text)
        assert judged.text.count("\n") == snippet.text.count("\n")
        assert "private-key" not in judged.kinds
        kept = [line for line in described if line in snippet.text]
        assert all(line in judged.text for line in kept)  # the description is not a secret's
    for snippet in inside:
        judged = redact_snippet(snippet)
        assert judged.kinds == ("assignment",)
        assert judged.text.splitlines()[0] == " " * indent + "[REDACTED:secret]"  # indentation kept, as a block's is


def test_a_secret_block_scalar_with_crlf_line_ends_is_redacted_and_keeps_them() -> None:
    """A `password: |` line ending in `\\r\\n` was not taken for a block scalar's head, and its value was sent."""
    text = "db:\r\n  password: |\r\n    hunter2hunter2\r\n    second-line-of-it\r\n  host: x\r\n"
    redacted = redact_snippet(Snippet("deploy/values.yaml", 1, 5, text))
    assert "hunter2" not in redacted.text and "second-line" not in redacted.text and redacted.kinds == ("assignment",)
    assert redacted.text == text.replace("hunter2hunter2", "[REDACTED:secret]").replace(
        "second-line-of-it", "[REDACTED:secret]"
    )


def test_lines_of_a_snippet_are_redacted_as_the_whole_snippet_is() -> None:
    """An excerpt (the MCP server's) is a few lines of a snippet: lines inside a key block that began above them
    are blanked, though nothing in them says so, and only what was redacted in those lines is counted."""
    body = [f"QUJD{n:060d}" for n in range(6)]
    lines = ['TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"', 'KEY = """-----BEGIN RSA PRIVATE KEY-----', *body]
    lines += ['-----END RSA PRIVATE KEY-----"""', 'NOTE = "[REDACTED:secret] stands for a value"', "TIMEOUT = 30"]
    snippet = Snippet("deploy/keys.py", 10, 10 + len(lines) - 1, "\n".join(lines))

    inside = redact_lines(snippet, 13, 16)  # body lines only
    assert inside.text == "\n\n\n" and inside.kinds == ("private-key",)
    assert redact_lines(snippet, 10, 10) == redact("\n".join(lines[:1]))  # ("github-token",)
    tail = redact_lines(snippet, 18, 20)  # the END line's tail, a marker the source holds, plain code
    assert tail.text == '"""\n' + "\n".join(lines[-2:]) and tail.kinds == ("private-key",)
    assert redact_lines(snippet, 19, 20).kinds == ()


def test_a_snippet_shortlisted_again_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The searches of a session shortlist mostly the same snippets: each is scanned once, and every search still
    gets (and counts) its redactions."""
    scans: list[str] = []
    real = redact_module.redact

    def counting(text: str, **options: object) -> redact_module.Redacted:
        scans.append(text)
        return real(text, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(redact_module, "redact", counting)
    redact_module._remembered.cache_clear()
    leaked = Snippet("app/keys.py", 1, 1, 'TOKEN = "gho_16C7e42F292c6912E7710c838347Ae178B4a"', "TOKEN")
    plain = Snippet("app/sum.py", 1, 2, "def total(xs):\n    return sum(xs)", "total")
    first = [redact_snippet(s) for s in (leaked, plain)]
    again = [redact_snippet(s) for s in (leaked, plain)]
    assert again == first and first[0].kinds == ("github-token",) and "gho_" not in first[0].text
    assert len(scans) == 2
    edited = Snippet("app/sum.py", 1, 2, "def total(xs):\n    return sum(xs) + 1", "total")
    assert redact_snippet(edited).text.endswith("+ 1") and len(scans) == 3  # new text, new scan


@pytest.mark.parametrize(
    "before",
    ["# plain ASCII above", "# naïve café, a non-ASCII line above", "# İstanbul: lower-casing lengthens this line"],
)
def test_an_assignment_below_any_text_is_found_on_its_own_line(before: str) -> None:
    """Assignments are looked for only on the lines naming a secret, found on the lower-cased text when that keeps
    every position and on the text itself otherwise: either way the secret goes and the lines stay."""
    code = f'{before}\nuser = "alice"\nDB_PASSWORD = "hunter2hunter2"\nport = 5432\n'
    redacted = redact(code, syntax="python")
    assert "hunter2hunter2" not in redacted.text and redacted.kinds == ("assignment",)
    assert redacted.text.splitlines()[0] == before and redacted.text.count("\n") == code.count("\n")
    assert 'user = "alice"' in redacted.text and "port = 5432" in redacted.text


def test_a_secret_block_scalar_with_empty_lines_in_its_value_is_redacted_past_them() -> None:
    """YAML counts empty lines inside a block scalar as part of it (certificates of a bundle, a value's paragraphs):
    the value went on being sent after its first empty line, in the snippet that holds `password: |` and in the next."""
    secret = [f"hunter{n:02d}-chosen-pass-line" for n in range(70)]
    body = [("" if n % 20 == 19 else f"    {line}") for n, line in enumerate(secret)]
    lines = ["service:", "  password: |", *body, "  port: 8080"]
    snippets = chunk_file("deploy/values.yaml", "\n".join(lines) + "\n").snippets
    assert len(snippets) > 1
    for snippet in snippets:
        judged = redact_snippet(snippet)
        assert not any(line in judged.text for line in secret), (snippet.start_line, judged.text)
        assert judged.text.count("\n") == snippet.text.count("\n")
    assert "port: 8080" in redact_snippet(snippets[-1]).text


COMMENTS_IN_VALUES = [
    # (path, text with each secret between « and »)
    ("settings.py", 'PASSWORD = (\n    "«hunter2»"  # old: password = "«letmein1»"\n)\n'),
    ("above.py", 'PASSWORD = (\n    # password = "«letmein1»"\n    "«hunter2»"\n)\n'),
    ("keys.py", 'API_KEYS = [\n    "«abc123def456»",  # token = "«zz99yy88xx77»"\n]\n'),
]


@pytest.mark.parametrize(("path", "written"), COMMENTS_IN_VALUES, ids=[p for p, _ in COMMENTS_IN_VALUES])
def test_an_assignment_in_a_comment_inside_a_redacted_value_is_redacted_too(path: str, written: str) -> None:
    """A value read across lines was replaced whole, and the comments inside it were never searched: the old
    password written in one was sent, where a value on one line leaves its comment to be searched."""
    redacted, expected = _redact_marked(path, written)
    assert redacted.text == expected and redacted.kinds == ("assignment", "assignment")


SIDE_BY_SIDE = [
    # (text with each secret between « and », the kinds redacted)
    ('password = "«hunter2»" " "\n', ("assignment",)),
    ('api_key = "«s3cr3t-P4ss»" "a b"\n', ("assignment",)),
    ('PASSWORD = "«hunter2»" "sk-abcdefghijklmnopqrstuvwx"\n', ("openai-key", "assignment")),
]


@pytest.mark.parametrize(("written", "kinds"), SIDE_BY_SIDE, ids=["space", "words", "provider-key"])
def test_a_secret_literal_beside_others_is_redacted_when_they_are_not_one_secret_together(
    written: str, kinds: tuple[str, ...]
) -> None:
    """Literals side by side are one value when together they read as a secret; when they do not (a space, words, a
    provider key already redacted), each is decided alone, as a lone literal of the name was before they were
    joined."""
    text = written.replace("«", "").replace("»", "")
    redacted = redact(text, syntax="code")
    expected = re.sub("«[^»]*»", "[REDACTED:secret]", written).replace(
        "sk-abcdefghijklmnopqrstuvwx", "[REDACTED:openai-key]"
    )
    assert redacted.text == expected and redacted.kinds == kinds


@pytest.mark.parametrize("line", ["password=|1234", "password: >2024", "PASSWORD = >-12345 ; c", "password: &a |1234"])
def test_an_unquoted_value_shaped_like_a_block_head_with_more_than_one_digit_is_a_value(line: str) -> None:
    """YAML's block head takes one indentation digit (and a chomping sign): `|1234` is a value of its own, which
    was read as a head and sent."""
    redacted = redact(line + "\n", syntax="config")
    assert redacted.kinds == ("assignment",) and "[REDACTED:secret]" in redacted.text
    assert not any(digits in redacted.text for digits in ("1234", "2024", "12345")), redacted.text
