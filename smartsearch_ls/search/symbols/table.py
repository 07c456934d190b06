"""Every declaration of a root in columns, a `Declaration` made only for one a look-up reads.

The symbol index holds a root's declarations for the life of the server, and as objects (eight fields, three of them
line numbers too large for Python's shared small ints, and a qualified name that repeats its scope's) they were the
largest thing it held. Here a declaration is a slot: its name, its scope's name (shared by the declarations of one
scope in a file), its path (the symbol index's own key for the file), a kind code and four line numbers in an
`array`. A slot freed by a file that changed or went is taken by the next declaration learned.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass

from smartsearch_ls.chunking.snippet import Declaration


@dataclass(frozen=True, slots=True)
class Converted:
    """A file's declarations, their line numbers and kind codes in the table's columns' types."""

    declarations: tuple[Declaration, ...]
    lines: array[int]
    kinds: bytearray


class DeclarationTable:
    """Declarations by slot number: `add` a file's, `get` one back, `drop` a file's when it changes or goes.

    A slot's number is reused, so whoever keeps one past the symbol index's lock keeps its `generations` entry with it
    and reads the slot (under the lock) only while that is unchanged: it moves when the slot is freed and again when
    it is taken, so it is even while a declaration holds the slot and odd while it is free.
    """

    def __init__(self) -> None:
        self.names: list[str] = []
        self.paths: list[str] = []
        self.generations = array("I")
        self._scopes: list[str | None] = []
        """What a qualified name holds before `.name`; None when it is the name itself."""
        self._unscoped: dict[int, str] = {}
        """Qualified names that are neither the name nor `scope.name`: none a chunker makes today, kept whole."""
        self._kinds = bytearray()
        self._kind_names: list[str] = []
        self._kind_codes: dict[str, int] = {}
        self._lines = array("i")
        """Start, end, name line and name column of each slot, four to a slot."""
        self._free: list[int] = []

    def convert(self, declarations: Iterable[Declaration]) -> Converted:
        """A file's declarations as the table stores them, for `add`.

        Everything that can fail (a line number outside `array`'s range, a 257th kind) fails here, so that the symbol
        index converts an edited file's new declarations before it frees the old ones' slots: freed first, a failure
        left the file holding free slots, which another file could then take and the file's next edit free."""
        declarations = tuple(declarations)
        lines = array("i")
        for declaration in declarations:
            lines.extend((declaration.start_line, declaration.end_line, declaration.name_line, declaration.name_column))
        kinds = bytearray(self._kind_code(declaration.kind) for declaration in declarations)
        return Converted(declarations, lines, kinds)

    def add(self, path: str, converted: Converted) -> array[int]:
        """Slots for a file's declarations (`convert`ed), in their order; `path` is the file's key, which each of them
        names. Nothing in it fails (but memory), so an edited file's old slots can be freed before it runs."""
        declarations, lines, kinds = converted.declarations, converted.lines, converted.kinds
        slots = array("i")
        scopes: dict[str, str] = {}  # one string per scope of this file, however many declarations it holds
        for number, declaration in enumerate(declarations):
            name, qualified = declaration.name, declaration.qualified_name
            scope: str | None = None
            whole: str | None = None
            if qualified != name:
                if qualified.endswith("." + name):
                    scope = qualified[: -len(name) - 1]
                    scope = scopes.setdefault(scope, scope)
                else:
                    whole = qualified
            at = path if declaration.path == path else declaration.path
            if self._free:
                slot = self._free.pop()
                self.names[slot], self.paths[slot], self._scopes[slot] = name, at, scope
                self._kinds[slot] = kinds[number]
                self._lines[4 * slot : 4 * slot + 4] = lines[4 * number : 4 * number + 4]
                self.generations[slot] = (self.generations[slot] + 1) & 0xFFFFFFFF
            else:
                slot = len(self.names)
                self.names.append(name)
                self.paths.append(at)
                self._scopes.append(scope)
                self._kinds.append(kinds[number])
                self._lines.extend(lines[4 * number : 4 * number + 4])
                self.generations.append(0)
            if whole is not None:
                self._unscoped[slot] = whole
            slots.append(slot)
        return slots

    def _kind_code(self, kind: str) -> int:
        code = self._kind_codes.get(kind)
        if code is None:
            if len(self._kind_names) > 255:
                raise ValueError(f"more than 256 kinds of declaration: {kind!r}")
            code = self._kind_codes[kind] = len(self._kind_names)
            self._kind_names.append(kind)
        return code

    def in_use(self, slot: int) -> bool:
        """Whether a declaration holds the slot: `drop` skips a free one rather than put it on the free list twice."""
        return not self.generations[slot] & 1

    def drop(self, slots: Iterable[int]) -> None:
        """Free a file's slots (their strings go with them); a slot already free is left alone, so that a slot freed
        twice is not handed to two declarations."""
        for slot in slots:
            if not self.in_use(slot):
                continue
            self.names[slot] = self.paths[slot] = ""
            self._scopes[slot] = None
            self._unscoped.pop(slot, None)
            self.generations[slot] = (self.generations[slot] + 1) & 0xFFFFFFFF
            self._free.append(slot)

    def qualified_name(self, slot: int) -> str:
        scope = self._scopes[slot]
        if scope is not None:
            return f"{scope}.{self.names[slot]}"
        return self._unscoped.get(slot, self.names[slot])

    def kind(self, slot: int) -> str:
        return self._kind_names[self._kinds[slot]]

    def start_line(self, slot: int) -> int:
        return self._lines[4 * slot]

    def get(self, slot: int) -> Declaration:
        start, end, name_line, name_column = self._lines[4 * slot : 4 * slot + 4]
        name = self.names[slot]
        kind = self.kind(slot)
        return Declaration(name, self.qualified_name(slot), kind, self.paths[slot], start, end, name_line, name_column)
