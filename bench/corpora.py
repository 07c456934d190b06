"""Benchmark corpora: real projects fetched by exact version, checked by sha256, unpacked under `bench/.corpora/`.

Why archives from package registries rather than git checkouts: PyPI and npm are the only outside sources this
project's machines reach, and a pinned sdist or tarball with a pinned hash gives every developer and CI the very
same bytes, so a timing or quality number measured on one machine means the same on another.

Each corpus is a directory tree. `click` and `zod` are small enough to read by hand (the behavior quality set is
written against them); `large` stacks several big sdists side by side to match the scale of the Pydantic AI
repository (~2,400 files, ~1.4 M lines counting docs and data), which is what the engine timings are about.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

BENCH_DIR = Path(__file__).resolve().parent
CORPORA_DIR = BENCH_DIR / ".corpora"
"""Git-ignored: nothing fetched is committed."""
DOWNLOADS_DIR = CORPORA_DIR / ".downloads"
STAMPS_DIR = CORPORA_DIR / ".stamps"
"""One JSON file per prepared corpus, kept outside the tree so a search of the corpus never sees it."""


@dataclass(frozen=True, slots=True)
class Source:
    """One archive from a registry, and which part of it becomes corpus files."""

    registry: str
    """`pypi` (a source distribution) or `npm` (a package tarball)."""
    name: str
    version: str
    filename: str
    """The archive's file name as the registry client saves it."""
    sha256: str
    keep: tuple[str, ...] = ()
    """Archive-relative prefixes (after the top folder is dropped) to keep; empty keeps everything."""
    dest: str = ""
    """Subfolder of the corpus to unpack into; empty unpacks at the corpus root."""

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}" if self.registry == "pypi" else f"{self.name}@{self.version}"


@dataclass(frozen=True, slots=True)
class Corpus:
    """A named tree assembled from one or more sources."""

    name: str
    sources: tuple[Source, ...]
    quick: bool
    """Prepared by `prepare --quick` too; the large corpus is not (it downloads ~25 MB and builds sdist metadata)."""
    description: str

    @property
    def root(self) -> Path:
        return CORPORA_DIR / self.name


def _sdist(name: str, version: str, filename: str, sha256: str, *, dest: str = "") -> Source:
    return Source("pypi", name, version, filename, sha256, dest=dest)


CLICK = Corpus(
    name="click",
    sources=(
        _sdist(
            "click", "8.1.8", "click-8.1.8.tar.gz", "ed53c9d8990d83c2a27deae68e4ee337473f6330c040a31d4225c9574d16096a"
        ),
    ),
    quick=True,
    description="click 8.1.8 sdist: the library, its tests, docs and examples (small Python project)",
)

ZOD = Corpus(
    name="zod",
    sources=(
        Source(
            "npm",
            "zod",
            "4.1.12",
            "zod-4.1.12.tgz",
            "2ef9d7a7d822b059c9bd21f87caa4fdc48220d437353678984df942fb67b43fa",
            # The tarball also ships compiled .js/.cjs/.d.ts and the frozen v3 copy; keeping only the v4 .ts
            # sources gives a repository-like tree in which each behavior has one implementation to find.
            keep=("src/v4/", "package.json", "README.md", "LICENSE"),
        ),
    ),
    quick=True,
    description="zod 4.1.12 npm tarball, TypeScript sources of v4 (core, classic, mini, locales, tests)",
)

LARGE = Corpus(
    name="large",
    sources=(
        _sdist(
            "pydantic-ai-slim",
            "2.62.0",
            "pydantic_ai_slim-2.62.0.tar.gz",
            "83ff09244f6405c2b8705d022b899eca7379a5b837416b926dba383fa285262d",
            dest="pydantic-ai-slim",
        ),
        _sdist(
            "pydantic",
            "2.11.7",
            "pydantic-2.11.7.tar.gz",
            "d989c3c6cb79469287b1569f7447a17848c998458d49ebe294e975b9baf0f0db",
            dest="pydantic",
        ),
        _sdist(
            "sqlalchemy",
            "2.0.36",
            "sqlalchemy-2.0.36.tar.gz",
            "7f2767680b6d2398aea7082e45a774b2b0767b5c8d8ffb9c8b683088ea9b29c5",
            dest="sqlalchemy",
        ),
        _sdist(
            "starlette",
            "0.41.3",
            "starlette-0.41.3.tar.gz",
            "0e4ab3d16522a255be6b28260b938eae2482f98ce5cc934cb08dce8dc3ba5835",
            dest="starlette",
        ),
        _sdist(
            "httpx",
            "0.28.1",
            "httpx-0.28.1.tar.gz",
            "75e98c5f16b0f35b567856f597f06ff2270a374470a5c2392242528e3e3e42fc",
            dest="httpx",
        ),
        _sdist(
            "anyio",
            "4.7.0",
            "anyio-4.7.0.tar.gz",
            "2f834749c602966b7d456a7567cafcb309f96482b5081d14ac93ccd457f9dd48",
            dest="anyio",
        ),
        _sdist(
            "rich",
            "13.9.4",
            "rich-13.9.4.tar.gz",
            "439594978a49a09530cff7ebc4b5c7103ef57baf48d5ea3184f21d9a2befa098",
            dest="rich",
        ),
        _sdist(
            "requests",
            "2.32.3",
            "requests-2.32.3.tar.gz",
            "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760",
            dest="requests",
        ),
    ),
    quick=False,
    description="eight sdists side by side, at the scale of the Pydantic AI repository",
)

CORPORA: dict[str, Corpus] = {c.name: c for c in (CLICK, ZOD, LARGE)}


class ChecksumError(RuntimeError):
    """A downloaded archive is not the pinned one: a registry served different bytes for the same version."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected: str) -> None:
    """Raise `ChecksumError` unless `path` hashes to `expected`."""
    actual = sha256_of(path)
    if actual != expected:
        raise ChecksumError(f"{path.name}: sha256 {actual}, pinned {expected}")


def _fetch_command(source: Source, into: Path) -> list[str]:
    if source.registry == "pypi":
        # `--no-binary :all:` insists on the sdist; `--no-deps` fetches just this one archive.
        return [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
            source.spec, "-d", str(into),
        ]  # fmt: skip
    return ["npm", "pack", "--silent", source.spec, "--pack-destination", str(into)]


def fetch(source: Source, log: Callable[[str], None] = print) -> Path:
    """The verified archive of `source`, downloaded into the cache unless a verified copy is already there."""
    DOWNLOADS_DIR.mkdir(parents=True, exist_ok=True)
    archive = DOWNLOADS_DIR / source.filename
    if archive.exists() and sha256_of(archive) == source.sha256:
        return archive
    log(f"  fetching {source.spec} from {source.registry}")
    with tempfile.TemporaryDirectory(dir=DOWNLOADS_DIR) as tmp:
        result = subprocess.run(_fetch_command(source, Path(tmp)), capture_output=True, text=True, check=False)
        got = Path(tmp) / source.filename
        if not got.exists():
            raise RuntimeError(f"could not fetch {source.spec}:\n{result.stdout}\n{result.stderr}")
        verify(got, source.sha256)
        got.replace(archive)
    return archive


def _relative(member: str) -> str | None:
    """The member's path with the archive's single top folder (`click-8.1.8/`, `package/`) dropped."""
    parts = PurePosixPath(member).parts
    return "/".join(parts[1:]) if len(parts) > 1 else None


def unpack(archive: Path, source: Source, corpus_root: Path) -> None:
    """Extract regular files of `archive` into `corpus_root/source.dest`, dropping the top folder and filtering."""
    target = corpus_root / source.dest if source.dest else corpus_root
    with tarfile.open(archive) as tar:
        members = []
        for member in tar.getmembers():
            rel = _relative(member.name)
            if rel is None or not member.isfile():
                continue
            if source.keep and not any(rel == k or rel.startswith(k) for k in source.keep):
                continue
            member.name = rel
            members.append(member)
        tar.extractall(target, members=members, filter="data")


def _stamp(corpus: Corpus) -> dict[str, object]:
    return {"sources": [[s.spec, s.sha256, list(s.keep), s.dest] for s in corpus.sources]}


def is_prepared(corpus: Corpus) -> bool:
    stamp = STAMPS_DIR / f"{corpus.name}.json"
    return corpus.root.is_dir() and stamp.exists() and json.loads(stamp.read_text()) == _stamp(corpus)


def prepare(corpus: Corpus, log: Callable[[str], None] = print) -> Path:
    """Fetch, verify and unpack `corpus` into `bench/.corpora/<name>/`; a no-op when already prepared as pinned."""
    if is_prepared(corpus):
        return corpus.root
    archives = [(source, fetch(source, log)) for source in corpus.sources]
    if corpus.root.exists():
        shutil.rmtree(corpus.root)
    corpus.root.mkdir(parents=True)
    for source, archive in archives:
        unpack(archive, source, corpus.root)
    STAMPS_DIR.mkdir(parents=True, exist_ok=True)
    (STAMPS_DIR / f"{corpus.name}.json").write_text(json.dumps(_stamp(corpus)))
    return corpus.root


@dataclass(frozen=True, slots=True)
class Counts:
    files: int
    lines: int
    code_files: int
    """`.py`, `.ts`, `.tsx`, `.js`: what a code-search engine chunks by declaration."""
    code_lines: int


CODE_SUFFIXES = frozenset({".py", ".ts", ".tsx", ".js", ".mjs", ".cjs"})


def iter_files(root: Path) -> Iterable[Path]:
    return (p for p in sorted(root.rglob("*")) if p.is_file())


def count(root: Path) -> Counts:
    """Files and newline-counted lines under `root`, all files and code files."""
    files = lines = code_files = code_lines = 0
    for path in iter_files(root):
        n = path.read_bytes().count(b"\n")
        files += 1
        lines += n
        if path.suffix in CODE_SUFFIXES:
            code_files += 1
            code_lines += n
    return Counts(files, lines, code_files, code_lines)


def corpus_root(name: str) -> Path:
    """The prepared tree of corpus `name`, or a clear error naming the command that prepares it."""
    corpus = CORPORA[name]
    if not is_prepared(corpus):
        flag = "" if not corpus.quick else " --quick"
        raise FileNotFoundError(f"corpus {name!r} is not prepared: run `python -m bench prepare{flag}`")
    return corpus.root
