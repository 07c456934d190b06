"""The local judge's inert-snippet check."""

from __future__ import annotations

import pytest

from smartsearch_ls.judge.local.inert import performs_nothing


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("auth/sessions.py", "import time\n"),
        (
            "auth/sessions.py",
            '"""Sessions."""\n\nfrom __future__ import annotations\n\nfrom x import (\n    a,\n    b,\n)\n',
        ),
        ("auth/sessions.py", "if TYPE_CHECKING:\n    from auth.tokens import Token\n"),
        ("auth/sessions.py", "    @overload\n    def get(self, key: str) -> int: ...\n"),
        (
            "auth/sessions.py",
            'class Store(Protocol):\n    """Where sessions live."""\n\n    def get(self) -> None: ...\n',
        ),
        ("web/cart.ts", 'import { a } from "./a";\nimport type { B } from "./b";\n// cart\nexport * from "./c";\n'),
        ("web/cart.js", 'const fs = require("fs");\n'),
        ("cmd/main.go", 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n'),
        ("src/lib.rs", "use std::io;\nmod cache;\n"),
        ("App.java", "package shop;\nimport java.util.List;\n"),
        ("lib/cart.rb", "require 'json'\n"),
    ],
)
def test_imports_docstrings_and_stubs_perform_nothing(path: str, code: str) -> None:
    assert performs_nothing(path, code)


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("auth/sessions.py", "SESSION_SECONDS = 3600\n"),  # "where is the session length set" is answered here
        ("auth/sessions.py", "import time\n\ndef expired(s):\n    return s.expires < time.time()\n"),
        ("auth/sessions.py", "    if session.expired:\n"),  # a block cut out of a long function: not judged inert
        ("web/cart.ts", 'import x from "y";\nx.reject();\n'),
        ("notes.txt", "import the data first\n"),
        ("config.h", "#define DEFAULT_TIMEOUT_MS 5000\n"),  # `#` is no comment in C, nor in CSS
        ("style.css", "#header { color: red; }\n"),
        ("auth/sessions.py", "\n"),
    ],
)
def test_code_that_does_or_sets_something_is_not_inert(path: str, code: str) -> None:
    assert not performs_nothing(path, code)
