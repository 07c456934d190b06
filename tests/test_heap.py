"""Freed memory goes back to the system when asked (`smartsearch_ls.heap`), in a process of its own so no other test's
allocations blur what is measured."""

import subprocess
import sys

import pytest

SCRIPT = """
from smartsearch_ls.heap import release_free_memory

def resident_mb():
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS:")).split()[1]) / 1024

# Many objects too large for Python's own small-object pools (as arrays and token lists are), every sixteenth kept:
# the freed ones sit between survivors, where the allocator keeps their pages.
made = [bytes(1000) + i.to_bytes(4, "little") for i in range(100_000)]
kept = made[::16]
del made
before = resident_mb()
asked = release_free_memory()
print(asked, before - resident_mb(), len(kept))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim is Linux's")
def test_freed_allocations_go_back_to_the_system():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    asked, released_mb, _ = result.stdout.split()
    assert asked == "True"
    assert float(released_mb) > 20, result.stdout
