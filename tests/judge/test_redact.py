"""Every kind of secret the redactor knows is caught, whatever else the snippet holds.

The redactor skips a pattern unless a literal its matches must contain is in the text (a judged search redacts
every shortlisted snippet); these cases pin that each kind's literal check still lets its secrets through to
the pattern, in any letter case the pattern accepts. The end-to-end case is in `tests/faults`.
"""

from __future__ import annotations

import pytest

from smartsearch_ls.chunking import chunk_file
from smartsearch_ls.judge.redact import redact, redact_snippet

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
