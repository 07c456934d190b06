"""Small values a result carries besides its matches: files to open first, and imports that led nowhere."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class FileCandidate:
    """A file worth opening, and why (`declares GitIndexer`, `judged relevant 0.82`, `imported by app.ts`)."""

    root: Path
    path: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class UnresolvedImport:
    """An import that could not be followed to a file of the workspace. Lines are 1-based."""

    root: Path
    path: str
    line: int
    specifier: str
    name: str | None
    """The imported name, when the import names one (`from a import B`, `import { B } from './a'`)."""
    reason: str
    """`external`: a package outside the workspace; `missing`: it should be in the workspace but no file matches."""
