"""The server tests' fixtures: a VS Code-like session on the sample project (defined in `tests.support.sessions`)."""

from tests.support.sessions import session, workspace

__all__ = ("session", "workspace")
