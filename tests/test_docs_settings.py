"""Every setting the server reads is documented, with its default, in README's table and in docs/protocol.md.

The keys come from `Settings` itself (nested sections dotted, as clients may send them), so a setting added to
the code and not to the docs fails here, as `indexWait` once would have.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from smartsearch_ls.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def documented_keys(model: type[BaseModel], prefix: str = "") -> dict[str, object]:
    """Each wire key of `model` (its alias where it has one) with its default; sections become dotted keys."""
    keys: dict[str, object] = {}
    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.update(documented_keys(annotation, f"{key}."))
        else:
            keys[key] = field.get_default(call_default_factory=True)
    return keys


def table_rows(text: str) -> dict[str, str]:
    """First cell (a backticked key) -> second cell of every Markdown table row."""
    rows = {}
    for line in text.splitlines():
        if match := re.match(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|", line):
            rows[match.group(1)] = match.group(2).strip()
    return rows


@pytest.mark.parametrize("document", ["README.md", "docs/protocol.md"])
def test_every_setting_is_in_the_settings_table_with_its_default(document: str) -> None:
    rows = table_rows((ROOT / document).read_text(encoding="utf-8"))
    for key, default in documented_keys(Settings).items():
        assert key in rows, f"{document} does not list the setting `{key}`"
        if key == "cacheDir":
            assert "XDG_CACHE_HOME" in rows[key]
        else:
            assert rows[key].strip("`") == shown(default), (
                f"{document}: `{key}` shows {rows[key]!r}, the default is {default!r}"
            )


def shown(default: object) -> str:
    """A default as the docs write it: `true`, `30` for 30.0, `[]`."""
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, float):
        return f"{default:g}"
    return str(default)
