"""Benchmark corpora: real projects fetched by exact version, checked by sha256, unpacked under `bench/.corpora/`.

Why archives from package registries rather than git checkouts: PyPI, npm and Debian's archive are the only
outside sources this project's machines reach, and a pinned sdist, tarball or `.deb` with a pinned hash gives every
developer and CI the very same bytes, so a timing or quality number measured on one machine means the same on another.

Each corpus is a directory tree. `click` and `zod` are small enough to read by hand (the behavior quality set is
written against them); `large` stacks several big sdists side by side to match the scale of the Pydantic AI
repository (~2,400 files, ~1.4 M lines counting docs and data), which is what the engine timings are about.
"""

from __future__ import annotations

import hashlib
import io
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
    """`pypi` (a source distribution), `npm` (a package tarball) or `debian` (a `.deb`: Debian carries Go, Rust and
    Ruby libraries as source, under `usr/share/gocode/src/`, `usr/share/cargo/registry/` and the gems folder)."""
    name: str
    version: str
    filename: str
    """The archive's file name as the registry client saves it."""
    sha256: str
    keep: tuple[str, ...] = ()
    """Archive-relative prefixes (after the top folder is dropped) to keep; empty keeps everything."""
    dest: str = ""
    """Subfolder of the corpus to unpack into; empty unpacks at the corpus root."""
    top: str = ""
    """The archive folder that becomes the corpus root (a `.deb` holds the library deep in its file system); empty:
    the archive's single top folder (`click-8.1.8/`, `package/`)."""

    @property
    def spec(self) -> str:
        if self.registry == "pypi":
            return f"{self.name}=={self.version}"
        return f"{self.name}={self.version}" if self.registry == "debian" else f"{self.name}@{self.version}"


@dataclass(frozen=True, slots=True)
class Corpus:
    """A named tree assembled from one or more sources."""

    name: str
    sources: tuple[Source, ...]
    quick: bool
    """Prepared by `prepare --quick` too (the CI smoke run's click and zod); the quality set's other projects come
    with `prepare --quality`, the large corpus with a plain `prepare` (it downloads ~25 MB and builds sdist
    metadata)."""
    description: str

    @property
    def root(self) -> Path:
        return CORPORA_DIR / self.name


def _sdist(name: str, version: str, filename: str, sha256: str, *, dest: str = "") -> Source:
    return Source("pypi", name, version, filename, sha256, dest=dest)


def _npm(name: str, version: str, sha256: str, *, keep: tuple[str, ...] = ()) -> Source:
    """A package tarball, under the file name `npm pack` gives it (a scope's `@` dropped, its `/` a `-`)."""
    filename = f"{name.removeprefix('@').replace('/', '-')}-{version}.tgz"
    return Source("npm", name, version, filename, sha256, keep=keep)


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
        _npm(
            "zod",
            "4.1.12",
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


def _deb(name: str, version: str, arch: str, sha256: str, top: str, keep: tuple[str, ...] = ()) -> Source:
    return Source("debian", name, version, f"{name}_{version}_{arch}.deb", sha256, keep=keep, top=top)


# The quality set's other projects (`bench/quality/behavior/`): real libraries in six languages, none of them a
# project reserved for independent checks (README, "Quality"). Each is small enough to read whole, which is what
# checking a gold span by hand takes.
KOA = Corpus(
    name="koa",
    sources=(
        _npm(
            "koa",
            "2.15.3",
            "23b9a334640c93f61306e1941dc87b6001b0273230482fb9138243de870727f1",
            keep=("lib/", "package.json", "Readme.md", "LICENSE"),  # not dist/: a bundled copy of lib/
        ),
    ),
    quick=False,
    description="koa 2.15.3 npm tarball: the CommonJS sources of a small web framework (JavaScript)",
)

WS = Corpus(
    name="ws",
    sources=(
        _npm(
            "ws",
            "8.18.0",
            "a08221f2851472c944ca0178d89a9888c7f43fbd9998afc8a7ec6fe417c4ca20",
        ),
    ),
    quick=False,
    description="ws 8.18.0 npm tarball: a WebSocket client and server (JavaScript, CommonJS)",
)

MARSHMALLOW = Corpus(
    name="marshmallow",
    sources=(
        _sdist(
            "marshmallow",
            "3.23.1",
            "marshmallow-3.23.1.tar.gz",
            "3a8dfda6edd8dcdbf216c0ede1d1e78d230a6dc9c5a088f58c4083b974a0d468",
        ),
    ),
    quick=False,
    description="marshmallow 3.23.1 sdist: object serialization and validation, with tests and docs (Python)",
)

PFLAG = Corpus(
    name="pflag",
    sources=(
        _deb(
            "golang-github-spf13-pflag-dev",
            "1.0.6~git20210604-d5e0c0615ace-1",
            "all",
            "bd1c3c2a3e47512a64da02ebea900eb5a3f3c5d386e559d5718a3a935c0ea570",
            top="usr/share/gocode/src/github.com/spf13/pflag",
        ),
    ),
    quick=False,
    description="spf13/pflag (Debian's golang-github-spf13-pflag-dev 1.0.6~git20210604): POSIX flags for Go",
)

MUX = Corpus(
    name="mux",
    sources=(
        _deb(
            "golang-github-gorilla-mux-dev",
            "1.8.0-1",
            "all",
            "0880a4019fe68496a0e0a749c2948c029e489f49edd448bed2fedaba33f848c2",
            top="usr/share/gocode/src/github.com/gorilla/mux",
        ),
    ),
    quick=False,
    description="gorilla/mux 1.8.0 (Debian's golang-github-gorilla-mux-dev): an HTTP request router (Go)",
)

SEMVER = Corpus(
    name="semver",
    sources=(
        _deb(
            "librust-semver-dev",
            "1.0.14-1",
            "amd64",
            "bf3719b7aac4b7f16f0d68a7037306dbc1532758fe7a5dea01254e85cecaca8c",
            top="usr/share/cargo/registry/semver-1.0.14",
            keep=("src/", "tests/", "benches/", "build.rs", "Cargo.toml", "README.md"),
        ),
    ),
    quick=False,
    description="the semver 1.0.14 crate (Debian's librust-semver-dev): version parsing and requirements (Rust)",
)

THOR = Corpus(
    name="thor",
    sources=(
        _deb(
            "ruby-thor",
            "1.2.1-2",
            "all",
            "509715d16039ee7336531718e2497d0f81ae125b9ee53f321dd909c2f03fd2e1",
            top="usr/share/rubygems-integration/all/gems/thor-1.2.1",
        ),
    ),
    quick=False,
    description="thor 1.2.1 (Debian's ruby-thor): a toolkit for command-line interfaces (Ruby)",
)

WTFORMS = Corpus(
    name="wtforms",
    sources=(
        _sdist(
            "wtforms",
            "3.2.1",
            "wtforms-3.2.1.tar.gz",
            "df3e6b70f3192e92623128123ec8dca3067df9cfadd43d59681e210cfb8d4682",
        ),
    ),
    quick=False,
    description="WTForms 3.2.1 sdist: form fields, validators and widgets, with tests and docs (Python)",
)

STRUCTLOG = Corpus(
    name="structlog",
    sources=(
        _sdist(
            "structlog",
            "24.4.0",
            "structlog-24.4.0.tar.gz",
            "b27bfecede327a6d2da5fbc96bd859f114ecc398a6389d664f62085ee7ae6fc4",
        ),
    ),
    quick=False,
    description="structlog 24.4.0 sdist: structured logging processors and loggers, with tests and docs (Python)",
)

EJS = Corpus(
    name="ejs",
    sources=(
        _npm(
            "ejs",
            "3.1.10",
            "990ad60970b439f79eba9cad9e58f039471ec003f57f4e06e6a9a3fdc9e4bb95",
            keep=("lib/", "bin/", "package.json", "README.md", "LICENSE"),  # not ejs.js / ejs.min.js: bundles of lib/
        ),
    ),
    quick=False,
    description="ejs 3.1.10 npm tarball: an embedded JavaScript template engine (JavaScript, CommonJS)",
)

TRPC = Corpus(
    name="trpc",
    sources=(
        _npm(
            "@trpc/server",
            "10.45.2",
            "7b861ef0a4410e1f988645c29a7680be8c860b459136716e3b91941c0fd1783e",
            keep=("src/", "package.json", "README.md"),  # the TypeScript sources, not the compiled dist/ or stubs
        ),
    ),
    quick=False,
    description="@trpc/server 10.45.2 npm tarball, TypeScript sources: typed RPC routers and adapters (TypeScript)",
)

CRON = Corpus(
    name="cron",
    sources=(
        _deb(
            "golang-github-robfig-cron-dev",
            "3.0.1-1",
            "all",
            "f9e33f1a2ef550ad53680aed5d4c728b88424a074dd6a480acb130996adee424",
            top="usr/share/gocode/src/github.com/robfig/cron",
        ),
    ),
    quick=False,
    description="robfig/cron 3.0.1 (Debian's golang-github-robfig-cron-dev): a cron spec parser and scheduler (Go)",
)

CSV = Corpus(
    name="csv",
    sources=(
        _deb(
            "librust-csv-dev",
            "1.1.6-1",
            "amd64",
            "65240da8c7a7bc551ccfe039f2f9c9b8924e229e50fddbb4402f5db7eca01d8b",
            top="usr/share/cargo/registry/csv-1.1.6",
        ),
    ),
    quick=False,
    description="the csv 1.1.6 crate (Debian's librust-csv-dev): CSV reading and writing with serde (Rust)",
)

VOLUPTUOUS = Corpus(
    name="voluptuous",
    sources=(
        _sdist(
            "voluptuous",
            "0.15.2",
            "voluptuous-0.15.2.tar.gz",
            "6ffcab32c4d3230b4d2af3a577c87e1908a714a11f6f95570456b1849b0279aa",
        ),
    ),
    quick=False,
    description="voluptuous 0.15.2 sdist: data validation by schemas written as Python values, with its tests (Python)",
)

QS = Corpus(
    name="qs",
    sources=(
        _npm(
            "qs",
            "6.13.0",
            "abffeabbdedc8e466c1bd75227e14ceb76e77f61be475dfcee0d3bbe6dd608fd",
            keep=("lib/", "test/", "package.json", "README.md", "LICENSE.md"),  # not dist/: a bundled copy of lib/
        ),
    ),
    quick=False,
    description="qs 6.13.0 npm tarball: query strings parsed into nested objects and back, with its tests (JavaScript)",
)

GO_INI = Corpus(
    name="go-ini",
    sources=(
        _deb(
            "golang-github-go-ini-ini-dev",
            "1.55.0-1",
            "all",
            "ebbcd974d3b692659d9bc2294499b41b7c7e57e3bc4c179b16d72e913abc8e1b",
            top="usr/share/gocode/src/github.com/go-ini/ini",
        ),
    ),
    quick=False,
    description="go-ini/ini 1.55.0 (Debian's golang-github-go-ini-ini-dev): INI files read, edited, mapped (Go)",
)

HUMANTIME = Corpus(
    name="humantime",
    sources=(
        _deb(
            "librust-humantime-dev",
            "2.1.0-1+b1",
            "amd64",
            "d01ead7ee394866cb24ce6fedb4615e2ff4580b1337a1e314e2fbeab86d1666f",
            top="usr/share/cargo/registry/humantime-2.1.0",
        ),
    ),
    quick=False,
    description="the humantime 2.1.0 crate (Debian's librust-humantime-dev): durations and timestamps as text (Rust)",
)

TABULATE = Corpus(
    name="tabulate",
    sources=(
        _sdist(
            "tabulate",
            "0.9.0",
            "tabulate-0.9.0.tar.gz",
            "0095b12bf5966de529c0feb1fa08671671b3368eec77d7ef7ab114be2c068b3c",
        ),
    ),
    quick=False,
    description="tabulate 0.9.0 sdist: tables of data printed as plain text, Markdown, HTML and more (Python)",
)

MUSTACHE = Corpus(
    name="mustache",
    sources=(
        _deb(
            "ruby-mustache",
            "1.1.1-2",
            "all",
            "b9a30969129eb1de5f212e5d89aa23da2b5ec949d6467b713db72cefb71a8322",
            top="usr/lib/ruby/vendor_ruby",
        ),
    ),
    quick=False,
    description="mustache 1.1.1 (Debian's ruby-mustache): logic-less templates parsed, compiled and rendered (Ruby)",
)

ITSDANGEROUS = Corpus(
    name="itsdangerous",
    sources=(
        _sdist(
            "itsdangerous",
            "2.2.0",
            "itsdangerous-2.2.0.tar.gz",
            "e0050c0b7da1eea53ffaf149c0cfbb5c6e2e2b69c4bef22c81fa6eb73e5f6173",
        ),
    ),
    quick=False,
    description="itsdangerous 2.2.0 sdist: data signed and timestamped to travel untrusted, with its tests (Python)",
)

YARGS_PARSER = Corpus(
    name="yargs-parser",
    sources=(
        _npm(
            "yargs-parser",
            "21.1.1",
            "342b7d527d4a72265b64f27711517349c3c05ee302ab3b8c7452f0bfbe709151",
            keep=("build/lib/", "package.json", "README.md", "LICENSE.txt"),  # not build/index.cjs: a bundled copy
        ),
    ),
    quick=False,
    description="yargs-parser 21.1.1 npm tarball: command-line arguments parsed into an object (JavaScript)",
)

CAST = Corpus(
    name="cast",
    sources=(
        _deb(
            "golang-github-spf13-cast-dev",
            "1.5.0-2",
            "all",
            "457f3bd155f41350946d6c6ad9de15f2e402fcc42e370779956eaa42ba62b81c",
            top="usr/share/gocode/src/github.com/spf13/cast",
        ),
    ),
    quick=False,
    description="spf13/cast 1.5.0 (Debian's golang-github-spf13-cast-dev): values converted between Go types (Go)",
)

GJSON = Corpus(
    name="gjson",
    sources=(
        _deb(
            "golang-github-tidwall-gjson-dev",
            "1.14.4-2",
            "all",
            "371a327817349c0f7cca6b1f27e202f31a658b18e1ad5e42847de5694f591c13",
            top="usr/share/gocode/src/github.com/tidwall/gjson",
        ),
    ),
    quick=False,
    description="tidwall/gjson 1.14.4 (Debian's golang-github-tidwall-gjson-dev): values read from JSON by path (Go)",
)

TEXTWRAP = Corpus(
    name="textwrap",
    sources=(
        _deb(
            "librust-textwrap-dev",
            "0.16.0-2",
            "amd64",
            "6cb30f1426dbbbb492ac932e26df3a255d7a44d074f1e63f21e3d37c31f591c1",
            top="usr/share/cargo/registry/textwrap-0.16.0",
        ),
    ),
    quick=False,
    description="the textwrap 0.16.0 crate (Debian's librust-textwrap-dev): text wrapped, filled and indented (Rust)",
)

WALKDIR = Corpus(
    name="walkdir",
    sources=(
        _deb(
            "librust-walkdir-dev",
            "2.3.2-1",
            "amd64",
            "8b90341f4141832529778ba38e4d82a2d05c95eeada0f2cdc6f2819da627c6ec",
            top="usr/share/cargo/registry/walkdir-2.3.2",
        ),
    ),
    quick=False,
    description="the walkdir 2.3.2 crate (Debian's librust-walkdir-dev): directory trees walked recursively (Rust)",
)

SLOP = Corpus(
    name="slop",
    sources=(
        _deb(
            "ruby-slop",
            "4.9.1-1",
            "all",
            "d7d123b3583d44bff7a0d6062a9bd0f3b3a93d5336870ed3e35cf118a9edfcee",
            top="usr/share/rubygems-integration/all/gems/slop-4.9.1",
        ),
    ),
    quick=False,
    description="slop 4.9.1 (Debian's ruby-slop): command-line options declared and parsed (Ruby)",
)

CHRONIC = Corpus(
    name="chronic",
    sources=(
        _deb(
            "ruby-chronic",
            "0.10.5-2",
            "all",
            "faff3b4a65d9ccb43f6f96f5d249896b5f411f68cc4e0b819505424285a872e6",
            top="usr/share/rubygems-integration/all/gems/gitlab-chronic-0.10.5",
        ),
    ),
    quick=False,
    description="gitlab-chronic 0.10.5, a fork of chronic (Debian's ruby-chronic): dates read from plain words (Ruby)",
)

PARSE = Corpus(
    name="parse",
    sources=(
        _sdist(
            "parse",
            "1.20.2",
            "parse-1.20.2.tar.gz",
            "b41d604d16503c79d81af5165155c0b20f6c8d6c559efa66b4b695c3e5a0a0ce",
        ),
    ),
    quick=False,
    description="parse 1.20.2 sdist: text read back by a format string, format() reversed, with its tests (Python)",
)

SCHEDULE = Corpus(
    name="schedule",
    sources=(
        _sdist(
            "schedule",
            "1.2.2",
            "schedule-1.2.2.tar.gz",
            "15fe9c75fe5fd9b9627f3f19cc0ef1420508f9f9a46f45cd0769ef75ede5f0b7",
        ),
    ),
    quick=False,
    description="schedule 1.2.2 sdist: periodic jobs scheduled in plain words, with its tests (Python)",
)

VALIDATOR = Corpus(
    name="validator",
    sources=(
        _npm(
            "validator",
            "13.12.0",
            "9189b3c1d90b55e4822c4106504b16ce77a431267d17abb9527e4f1b1400ae13",
            keep=("es/lib/", "package.json", "README.md", "LICENSE"),  # not lib/ nor the bundles: copies of es/lib/
        ),
    ),
    quick=False,
    description="validator 13.12.0 npm tarball: strings validated and sanitized, one module a check (JavaScript)",
)

PROPERTIES = Corpus(
    name="properties",
    sources=(
        _deb(
            "golang-github-magiconair-properties-dev",
            "1.8.7-1",
            "all",
            "432b4f6b237a378afa06afa806aef9c92465464ebf37aa599c85c02744f11d35",
            top="usr/share/gocode/src/github.com/magiconair/properties",
        ),
    ),
    quick=False,
    description="magiconair/properties 1.8.7 (Debian's golang-github-magiconair-properties-dev): properties files (Go)",
)

GLOB = Corpus(
    name="glob",
    sources=(
        _deb(
            "golang-github-gobwas-glob-dev",
            "0.2.3+git20180208.19c076c-2",
            "all",
            "a3d0ba6c1ff0760f85ecd740483926bc2bb2738735ad93f79dfc69c4f69f9d7f",
            top="usr/share/gocode/src/github.com/gobwas/glob",
        ),
    ),
    quick=False,
    description="gobwas/glob 0.2.3 (Debian's golang-github-gobwas-glob-dev): glob patterns compiled to matchers (Go)",
)

BASE64 = Corpus(
    name="base64",
    sources=(
        _deb(
            "librust-base64-dev",
            "0.13.0-1",
            "amd64",
            "a1de922bb3fd81c6d5ce14b28b35734468423c85a82019298106c4c1f057220c",
            top="usr/share/cargo/registry/base64-0.13.0",
        ),
    ),
    quick=False,
    description="the base64 0.13.0 crate (Debian's librust-base64-dev): bytes to base64 and back (Rust)",
)

STRSIM = Corpus(
    name="strsim",
    sources=(
        _deb(
            "librust-strsim-dev",
            "0.10.0-1",
            "amd64",
            "6b676122f64f7c2d3d130db4e367b4fdaaf7c61b65a024110cbe99814471a3a1",
            top="usr/share/cargo/registry/strsim-0.10.0",
        ),
    ),
    quick=False,
    description="the strsim 0.10.0 crate (Debian's librust-strsim-dev): string similarity and edit distances (Rust)",
)

LIQUID = Corpus(
    name="liquid",
    sources=(
        _deb(
            "ruby-liquid",
            "5.4.0-3",
            "all",
            "ffda912f722a2eb5470c6cf90baf7319222d47d6131be6a0b62a1330534e9cf9",
            top="usr/share/rubygems-integration/all/gems/liquid-5.4.0",
        ),
    ),
    quick=False,
    description="liquid 5.4.0 (Debian's ruby-liquid): safe templates parsed and rendered (Ruby)",
)

HASHDIFF = Corpus(
    name="hashdiff",
    sources=(
        _deb(
            "ruby-hashdiff",
            "1.0.1-1",
            "all",
            "17fc8aece9f912d0abf45883aace1e6e57294f0daa8cf40e47a88eeedded8ddd",
            top="usr/share/rubygems-integration/all/gems/hashdiff-1.0.1",
        ),
    ),
    quick=False,
    description="hashdiff 1.0.1 (Debian's ruby-hashdiff): nested hashes and arrays compared and patched (Ruby)",
)

TORNADO = Corpus(
    name="tornado",
    sources=(
        _sdist(
            "tornado",
            "6.4.1",
            "tornado-6.4.1.tar.gz",
            "92d3ab53183d8c50f8204a51e6f91d18a15d5ef261e84d452800d4ff6fc504e9",
        ),
    ),
    quick=False,
    description="tornado 6.4.1 sdist: an asynchronous web framework, HTTP server and client, with its tests (Python)",
)

FASTIFY = Corpus(
    name="fastify",
    sources=(
        _npm(
            "fastify",
            "4.28.1",
            "df149dcab400c90ed4b703d77381d7c6a47dc394c76f2491ff3a8647d332854b",
        ),
    ),
    quick=False,
    description="fastify 4.28.1 npm tarball: a web framework with hooks, plugins and schemas, and tests (JavaScript)",
)

REDUX_TOOLKIT = Corpus(
    name="redux-toolkit",
    sources=(
        _npm(
            "@reduxjs/toolkit",
            "2.16.0",
            "f815be44e3876a2c72f01135768a872048c00cb7bfabf313b238004302c32f2a",
            # The tarball also ships compiled dist/ bundles and .d.ts copies, and entry-point stubs (query/, react/)
            # and agent notes (skills/); keeping only the .ts sources gives each behavior one implementation.
            keep=("src/", "package.json", "README.md", "LICENSE"),
        ),
    ),
    quick=False,
    description="@reduxjs/toolkit 2.16.0 npm tarball, TypeScript sources: stores, slices, data fetching (TypeScript)",
)

GIN = Corpus(
    name="gin",
    sources=(
        _deb(
            "golang-github-gin-gonic-gin-dev",
            "1.8.1-1",
            "all",
            "66d916769bcd36a6722b0c92a81719b8faca56f69662b17d1ef7ba257c85367a",
            top="usr/share/gocode/src/github.com/gin-gonic/gin",
        ),
    ),
    quick=False,
    description="gin 1.8.1 (Debian's golang-github-gin-gonic-gin-dev): an HTTP web framework with middleware (Go)",
)

CLAP = Corpus(
    name="clap",
    sources=(
        _deb(
            "librust-clap-dev",
            "4.0.32-1",
            "amd64",
            "00922f24c3eb5a899ae4438ebf7be2e82085559ee45055dbc856cdb113de9ebb",
            top="usr/share/cargo/registry/clap-4.0.32",
        ),
    ),
    quick=False,
    description="the clap 4.0.32 crate (Debian's librust-clap-dev): command lines parsed, checked and explained (Rust)",
)

RAKE = Corpus(
    name="rake",
    sources=(
        _deb(
            "rake",
            "13.0.6-3",
            "all",
            "9818519ad01d850db5b52c35bddee7571764cb6838f9ba4b1efab76613a4b9f9",
            top="usr/share/rubygems-integration/all/gems/rake-13.0.6",
        ),
    ),
    quick=False,
    description="rake 13.0.6 (Debian's rake): a build tool of tasks, file tasks, rules and file lists (Ruby)",
)

CORPORA: dict[str, Corpus] = {
    c.name: c
    for c in (
        CLICK, ZOD, KOA, WS, MARSHMALLOW, PFLAG, MUX, SEMVER, THOR,
        WTFORMS, STRUCTLOG, EJS, TRPC, CRON, CSV, VOLUPTUOUS, QS, GO_INI, HUMANTIME, TABULATE, MUSTACHE,
        ITSDANGEROUS, YARGS_PARSER, CAST, GJSON, TEXTWRAP, WALKDIR, SLOP, CHRONIC,
        PARSE, SCHEDULE, VALIDATOR, PROPERTIES, GLOB, BASE64, STRSIM, LIQUID, HASHDIFF,
        TORNADO, FASTIFY, REDUX_TOOLKIT, GIN, CLAP, RAKE, LARGE,
    )
}  # fmt: skip


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
    if source.registry == "debian":
        return ["apt-get", "download", "-q", source.spec]  # into the working directory: see `fetch`
    return ["npm", "pack", "--silent", source.spec, "--pack-destination", str(into)]


def fetch(source: Source, log: Callable[[str], None] = print) -> Path:
    """The verified archive of `source`, downloaded into the cache unless a verified copy is already there."""
    DOWNLOADS_DIR.mkdir(parents=True, exist_ok=True)
    archive = DOWNLOADS_DIR / source.filename
    if archive.exists() and sha256_of(archive) == source.sha256:
        return archive
    log(f"  fetching {source.spec} from {source.registry}")
    with tempfile.TemporaryDirectory(dir=DOWNLOADS_DIR) as tmp:
        result = subprocess.run(_fetch_command(source, Path(tmp)), capture_output=True, text=True, check=False, cwd=tmp)
        got = Path(tmp) / source.filename
        if not got.exists():
            raise RuntimeError(f"could not fetch {source.spec}:\n{result.stdout}\n{result.stderr}")
        verify(got, source.sha256)
        got.replace(archive)
    return archive


def _relative(member: str, top: str = "") -> str | None:
    """The member's path below `top`, or below the archive's single top folder (`click-8.1.8/`, `package/`)."""
    parts = PurePosixPath(member).parts
    if parts[:1] == (".",):
        parts = parts[1:]
    if top:
        prefix = PurePosixPath(top).parts
        inside = parts[: len(prefix)] == prefix and len(parts) > len(prefix)
        return "/".join(parts[len(prefix) :]) if inside else None
    return "/".join(parts[1:]) if len(parts) > 1 else None


def _open_archive(archive: Path) -> tarfile.TarFile:
    """A tarball as is; a `.deb` through `dpkg-deb --fsys-tarfile`, which reads its data member whatever the
    compression."""
    if archive.suffix != ".deb":
        return tarfile.open(archive)
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(archive)], capture_output=True, check=True).stdout
    return tarfile.open(fileobj=io.BytesIO(data))


def unpack(archive: Path, source: Source, corpus_root: Path) -> None:
    """Extract regular files of `archive` into `corpus_root/source.dest`, dropping the top folder and filtering."""
    target = corpus_root / source.dest if source.dest else corpus_root
    with _open_archive(archive) as tar:
        members = []
        for member in tar.getmembers():
            rel = _relative(member.name, source.top)
            if rel is None or not member.isfile():
                continue
            if source.keep and not any(rel == k or rel.startswith(k) for k in source.keep):
                continue
            member.name = rel
            members.append(member)
        tar.extractall(target, members=members, filter="data")


def _stamp(corpus: Corpus) -> dict[str, object]:
    return {"sources": [[s.spec, s.sha256, list(s.keep), s.dest, s.top] for s in corpus.sources]}


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
    """Python, TypeScript, JavaScript, Go, Rust and Ruby files: what the quality set asks about."""
    code_lines: int


CODE_SUFFIXES = frozenset({".py", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".go", ".rs", ".rb"})


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
