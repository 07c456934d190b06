"""Import statements, read from the index's snippets, and where they lead.

Python: `import a.b as c`, `from a.b import C, D as E`, `from . import x`, `from ..pkg import (A, B)`. A module
is found by its dotted path's last parts (`pkg.mod` is any indexed `.../pkg/mod.py` or `.../pkg/mod/__init__.py`),
the candidate nearest the importing file winning, so neither the source root (`src/`, `lib/`) nor the install
layout has to be known. JS/TS: `import ... from './x'`, `export ... from`, `import './x'`, `require('./x')`,
`import('./x')`; relative specifiers try the TypeScript extensions, `index` files and the `.js` -> `.ts`
mapping of ESM TypeScript; bare specifiers go through the nearest `tsconfig.json`/`jsconfig.json` `paths`
(and `baseUrl`), else they name a package outside the workspace.

Only indexed files are considered: nothing hidden, ignored or excluded is read, and the text is the
index's (an unsaved buffer's text when there is one).
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

PY_SUFFIXES = (".py", ".pyi", ".pyw")
SOURCE_ROOTS = frozenset({"src", "lib"})
"""Folders a Python project keeps its top-level packages in."""
JS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
_JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
TSCONFIG_NAMES = ("tsconfig.json", "jsconfig.json")

_PY_FROM = re.compile(
    r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*(?:\\\n[^\n#;]*)*)", re.MULTILINE
)
_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w. \t,]+)", re.MULTILINE)
_JS_FROM = re.compile(
    r"\b(import|export)\s+(?:type\s+)?((?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)?)\s*from\s*['\"]([^'\"\n]+)['\"]"
)
_JS_BARE = re.compile(r"\bimport\s*['\"]([^'\"\n]+)['\"]|\b(?:require|import)\s*\(\s*['\"]([^'\"\n]+)['\"]\s*\)")
_AS = re.compile(r"^\s*(?:type\s+)?([\w$*]+|default)(?:\s+as\s+([\w$]+))?\s*$")


@dataclass(frozen=True, slots=True)
class ImportRef:
    """One import statement of one file. Lines are 1-based, inclusive."""

    path: str
    start_line: int
    end_line: int
    specifier: str
    """The module as written: `a.b`, `..pkg`, `./x.js`, `@lib/util`."""
    names: tuple[tuple[str, str], ...]
    """(imported name, local name) pairs; `*` for a star import; empty for `import a.b` / a side-effect import."""
    language: str
    """`python` or `js`."""
    reexport: bool = False
    """A JS `export ... from`, or a Python import in an `__init__.py` (a package's re-export)."""


def language_of(path: str) -> str | None:
    if path.endswith(PY_SUFFIXES):
        return "python"
    if path.endswith(JS_SUFFIXES):
        return "js"
    return None


def parse_imports(path: str, pieces: Iterable[tuple[int, str]]) -> list[ImportRef]:
    """The import statements in a file's snippets, given as (start line, text); repeats collapse."""
    language = language_of(path)
    if language is None:
        return []
    found: dict[tuple[int, str], ImportRef] = {}
    for start, text in pieces:
        if "import" not in text and "require" not in text and "export" not in text:
            continue
        refs = _python(path, start, text) if language == "python" else _js(path, start, text)
        for ref in refs:
            found.setdefault((ref.start_line, ref.specifier), ref)
    return sorted(found.values(), key=lambda r: r.start_line)


def _line_of(text: str, offset: int, start: int) -> int:
    return start + text.count("\n", 0, offset)


def _python(path: str, start: int, text: str) -> list[ImportRef]:
    package = path.endswith("/__init__.py") or path == "__init__.py"
    refs: list[ImportRef] = []
    for m in _PY_FROM.finditer(text):
        names = []
        for part in m.group(2).strip().strip("()").replace("\\\n", " ").split(","):
            part = part.split("#", 1)[0].strip()
            if not part:
                continue
            bits = part.split()
            if len(bits) == 3 and bits[1] == "as":
                names.append((bits[0], bits[2]))
            elif len(bits) == 1:
                names.append((bits[0], bits[0]))
        first, last = _line_of(text, m.start(), start), _line_of(text, m.end(), start)
        refs.append(ImportRef(path, first, last, m.group(1), tuple(names), "python", package))
    for m in _PY_IMPORT.finditer(text):
        line = _line_of(text, m.start(), start)
        for part in m.group(1).split(","):
            bits = part.split()
            if not bits:
                continue
            module = bits[0]
            local = bits[2] if len(bits) == 3 and bits[1] == "as" else module.split(".")[0]
            refs.append(ImportRef(path, line, line, module, ((module, local),) if len(bits) == 3 else (), "python"))
    return refs


def _js(path: str, start: int, text: str) -> list[ImportRef]:
    refs: list[ImportRef] = []
    for m in _JS_FROM.finditer(text):
        names: list[tuple[str, str]] = []
        clause = m.group(2).strip()
        braces = re.search(r"\{([^}]*)\}", clause)
        head = clause[: braces.start()] if braces else clause
        for part in head.split(","):
            part = part.strip()
            if part.startswith("*"):
                alias = part.split()[-1] if " as " in part else "*"
                names.append(("*", alias))
            elif part:
                names.append(("default", part))
        if braces:
            for part in braces.group(1).split(","):
                found = _AS.match(part)
                if found:
                    names.append((found.group(1), found.group(2) or found.group(1)))
        first, last = _line_of(text, m.start(), start), _line_of(text, m.end(), start)
        reexport = m.group(1) == "export"
        refs.append(ImportRef(path, first, last, m.group(3), tuple(names), "js", reexport))
    for m in _JS_BARE.finditer(text):
        line = _line_of(text, m.start(), start)
        refs.append(ImportRef(path, line, line, m.group(1) or m.group(2), (), "js"))
    return refs


# -- resolution ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where an import leads: a file, or why it leads nowhere in the workspace."""

    target: str | None
    reason: str | None = None
    """Why `target` is None: `external` (a package outside the workspace) or `missing` (should be here, is not)."""


class Resolver:
    """Resolves imports against one root's indexed files."""

    def __init__(self, paths: Iterable[str], read_text: Callable[[str], str | None]) -> None:
        self.paths = set(paths)
        self.modules: dict[str, list[str]] = {}
        self.top_level: set[str] = set()
        self.root_packages: set[str] = set()
        """First folders (or modules) of the Python files, under `src/` or `lib/` when there: importable as is."""
        for path in self.paths:
            if not path.endswith(PY_SUFFIXES):
                continue
            stem = path.rsplit(".", 1)[0]
            parts = stem.split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not parts:
                continue
            for k in range(1, len(parts) + 1):
                self.modules.setdefault(".".join(parts[-k:]), []).append(path)
            self.top_level.update(parts)
            self.root_packages.add(parts[1] if parts[0] in SOURCE_ROOTS and len(parts) > 1 else parts[0])
        self._configs: dict[str, dict[str, object] | None] = {}
        self._read_text = read_text
        self._config_dirs = {posixpath.dirname(p) for p in self.paths if posixpath.basename(p) in TSCONFIG_NAMES}

    def resolve(self, ref: ImportRef, name: str | None = None) -> Resolution:
        """The file `ref` imports; with `name`, a submodule of that name if there is one (`from pkg import mod`)."""
        if ref.language == "python":
            return self._python(ref.path, ref.specifier, name)
        return self._js(ref.path, ref.specifier)

    # Python

    def _python(self, importer: str, specifier: str, name: str | None) -> Resolution:
        level = len(specifier) - len(specifier.lstrip("."))
        module = specifier[level:]
        if level:
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            stem = posixpath.join(base, *module.split(".")) if module else base
            if name and name != "*":
                found = self._py_file(posixpath.join(stem, name))
                if found:
                    return Resolution(found)
            found = self._py_file(stem)
            return Resolution(found) if found else Resolution(None, "missing")
        if name and name != "*":
            found = self._py_module(f"{module}.{name}", importer)
            if found:
                return Resolution(found)
        found = self._py_module(module, importer)
        if found:
            return Resolution(found)
        top = module.split(".")[0]
        # The standard library is outside the workspace even where a folder deeper down shares its name
        # (`tests/typing/`), unless the workspace has a top-level package of that name (its own `email/`).
        missing = top in self.top_level and (top not in sys.stdlib_module_names or top in self.root_packages)
        return Resolution(None, "missing" if missing else "external")

    def _py_file(self, stem: str) -> str | None:
        stem = stem.lstrip("/")
        for candidate in (f"{stem}.py", f"{stem}.pyi", f"{stem}/__init__.py", f"{stem}/__init__.pyi"):
            if candidate.removeprefix("./") in self.paths:
                return candidate.removeprefix("./")
        return None

    def _py_module(self, module: str, importer: str) -> str | None:
        found = self.modules.get(module)
        if not found:
            return None
        return min(found, key=lambda p: (-_shared_prefix(p, importer), len(p), p))

    # JS / TS

    def _js(self, importer: str, specifier: str) -> Resolution:
        base = posixpath.dirname(importer)
        if specifier.startswith(("./", "../")) or specifier in (".", ".."):
            found = self._js_file(posixpath.normpath(posixpath.join(base, specifier)))
            return Resolution(found) if found else Resolution(None, "missing")
        if specifier.startswith("/"):
            return Resolution(None, "external")
        config_dir, config = self._tsconfig(importer)
        if config is not None:
            options = config.get("compilerOptions")
            options = options if isinstance(options, dict) else {}
            base_url = posixpath.normpath(posixpath.join(config_dir, str(options.get("baseUrl") or ".")))
            paths = options.get("paths")
            if isinstance(paths, dict):
                matched = False
                for pattern, targets in paths.items():
                    star = _match_pattern(str(pattern), specifier)
                    if star is None or not isinstance(targets, list):
                        continue
                    matched = True
                    for target in targets:
                        candidate = posixpath.normpath(posixpath.join(base_url, str(target).replace("*", star)))
                        found = self._js_file(candidate)
                        if found:
                            return Resolution(found)
                if matched:
                    return Resolution(None, "missing")
            if options.get("baseUrl"):
                found = self._js_file(posixpath.normpath(posixpath.join(base_url, specifier)))
                if found:
                    return Resolution(found)
        return Resolution(None, "external")

    def _js_file(self, stem: str) -> str | None:
        stem = "" if stem == "." else stem.removeprefix("./")
        if stem.startswith("../"):
            return None
        if stem in self.paths and stem.endswith(JS_SUFFIXES):
            return stem
        root, ext = posixpath.splitext(stem)
        for replacement in _JS_TO_TS.get(ext, ()):
            if root + replacement in self.paths:
                return root + replacement
        for ext in _JS_EXTENSIONS:
            if stem + ext in self.paths:
                return stem + ext
        for ext in _JS_EXTENSIONS:
            candidate = posixpath.join(stem, "index" + ext) if stem else "index" + ext
            if candidate in self.paths:
                return candidate
        return None

    def _tsconfig(self, importer: str) -> tuple[str, dict[str, object] | None]:
        directory = posixpath.dirname(importer)
        while True:
            if directory in self._config_dirs:
                return directory, self._load_config(directory, 0)
            if not directory:
                return "", None
            directory = posixpath.dirname(directory)

    def _load_config(self, directory: str, depth: int) -> dict[str, object] | None:
        key = directory
        if key in self._configs:
            return self._configs[key]
        config: dict[str, object] | None = None
        for name in TSCONFIG_NAMES:
            path = posixpath.join(directory, name) if directory else name
            if path in self.paths:
                text = self._read_text(path)
                config = parse_jsonc(text) if text is not None else None
                break
        if config is not None and depth < 3 and isinstance(config.get("extends"), str):
            parent = posixpath.normpath(posixpath.join(directory, str(config["extends"])))
            parent_dir = posixpath.dirname(parent) if parent.endswith(".json") else parent
            base = self._load_config("" if parent_dir == "." else parent_dir, depth + 1)
            if base is not None:
                options = dict(base.get("compilerOptions") or {})  # type: ignore[call-overload]
                mine = config.get("compilerOptions")
                if "baseUrl" in options and "baseUrl" not in (mine or {}):  # type: ignore[operator]
                    rel = posixpath.relpath(posixpath.join(parent_dir, str(options["baseUrl"])), directory or ".")
                    options["baseUrl"] = rel
                options.update(mine if isinstance(mine, dict) else {})
                config = {**config, "compilerOptions": options}
        self._configs[key] = config
        return config

    @property
    def configs(self) -> list[str]:
        return sorted(self._config_dirs)


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def _match_pattern(pattern: str, specifier: str) -> str | None:
    """What `*` stands for when `specifier` matches a tsconfig `paths` pattern; None when it does not."""
    if "*" not in pattern:
        return "" if pattern == specifier else None
    prefix, _, suffix = pattern.partition("*")
    if specifier.startswith(prefix) and specifier.endswith(suffix) and len(specifier) >= len(prefix) + len(suffix):
        return specifier[len(prefix) : len(specifier) - len(suffix)]
    return None


_JSONC_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def parse_jsonc(text: str) -> dict[str, object] | None:
    """A tsconfig: JSON with comments and trailing commas. None when it does not parse."""
    stripped = _JSONC_TOKEN.sub(lambda m: m.group() if m.group().startswith('"') else "", text)
    stripped = _TRAILING_COMMA.sub(r"\1", stripped)
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
