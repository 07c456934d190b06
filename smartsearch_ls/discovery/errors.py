"""Errors raised before anything is searched, each phrased as what the caller should do next."""


class DiscoveryError(Exception):
    """Base class: the search cannot look where it was asked to."""


class RipgrepNotFound(DiscoveryError):
    """No `rg` binary next to the interpreter nor on PATH."""


class OutsideWorkspace(DiscoveryError):
    """A directory resolves outside every search root (through `..`, an absolute path or a symlink)."""


class ListingFailed(DiscoveryError):
    """ripgrep could list nothing under a root (the root itself unreadable or gone)."""


class CapExceeded(DiscoveryError):
    """The search would read more than the caps allow."""
