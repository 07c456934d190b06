"""The packages the training corpus is built from: each pinned by exact version and sha256, and none of them a
project the engine is measured on.

Why pins: the corpus must be the same bytes on every machine, so a model trained on it can be retrained and its
figures reproduced. Why the exclusions: issue 19 reserves eleven projects for independent checks, and the quality
set measures the engine on its own projects; a model that has seen their code (or a fork or copy of it) would be
graded on its own homework. `excluded_by` checks every pin's names against both lists, token by token, so a
renamed copy such as `golang-github-spf13-cobra-dev` or `flask-login` is caught too; `PINS` is checked when this
module loads.

Mix (issue 19 asks for several languages): Python sdists from PyPI; npm tarballs that ship readable sources
(`keep` picks the source folder, never the bundled `dist/`); Go, Rust and Ruby libraries from Debian, which carries
them as source (`Source.top` is the folder inside the `.deb` that becomes the tree root).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench.corpora import Source

RESERVED = ("requests", "rich", "scrapy", "axios", "httpx", "flask", "express", "cobra", "ureq", "rack")
"""Reserved for independent checks (issue 19), with `@tanstack/query-core` in `RESERVED_SEQUENCES`."""
QUALITY = (
    "click", "zod", "koa", "ws", "marshmallow", "pflag", "mux", "semver", "thor",
    "wtforms", "structlog", "ejs", "trpc", "cron", "csv", "voluptuous", "qs", "ini", "humantime", "tabulate",
    "mustache", "itsdangerous", "yargs", "cast", "gjson", "textwrap", "walkdir", "slop", "chronic",
    "parse", "schedule", "validator", "properties", "glob", "base64", "strsim", "liquid", "hashdiff",
    "tornado", "fastify", "redux", "reduxjs", "gin", "clap", "rake",
)  # fmt: skip
"""The quality set's projects (`bench/corpora.py`): spf13/pflag, gorilla/mux, go-ini/ini, spf13/cast, tidwall/gjson,
magiconair/properties, gobwas/glob and the semver crate by their last name part, so another fork of pflag or any
package named semver is kept out too; yargs-parser by its first, so the rest of yargs is too; Redux Toolkit
(`@reduxjs/toolkit`, repository reduxjs/redux-toolkit) by `redux` and `reduxjs`, so the rest of Redux is too. Broad
names (parse, glob, cast, properties, schedule, validator, base64) also keep out unrelated packages that hold them as
a token (`fast-glob`, `base64-js`): the corpus has plenty without them."""
RESERVED_SEQUENCES = (("tanstack", "query", "core"), ("query", "core"))
"""Names of more than one token, matched as a run of tokens."""


@dataclass(frozen=True, slots=True)
class Pin:
    """One package of the corpus: where it comes from and which of its files are the library."""

    name: str
    """The corpus name: the tree is `bench/.corpora/train/<name>/`, the queries' corpus `train/<name>`."""
    language: str
    """The package's language as the summary shows it; each query carries its own file's language."""
    source: Source
    skip: tuple[str, ...] = ()
    """Tree-relative prefixes to drop on top of the general rules: duplicate builds, data, a monolithic copy."""


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", text.lower()) if t]


def excluded_by(*names: str) -> str | None:
    """The reserved or quality project that any of `names` names (as a whole token), or None."""
    for name in names:
        tokens = _tokens(name)
        for project in (*RESERVED, *QUALITY):
            if project in tokens:
                return project
        for sequence in RESERVED_SEQUENCES:
            n = len(sequence)
            if any(tuple(tokens[i : i + n]) == sequence for i in range(len(tokens) - n + 1)):
                return "@tanstack/query-core"
    return None


def _pypi(name: str, version: str, filename: str, sha256: str, keep: str) -> Pin:
    return Pin(name, "python", Source("pypi", name, version, filename, sha256, keep=(keep,)))


def _npm(name: str, version: str, sha256: str, keep: tuple[str, ...], language: str, skip: tuple[str, ...] = ()) -> Pin:
    return Pin(name, language, Source("npm", name, version, f"{name}-{version}.tgz", sha256, keep=keep), skip)


def _go(name: str, package: str, version: str, sha256: str, import_path: str) -> Pin:
    source = Source(
        "debian", package, version, f"{package}_{version}_all.deb", sha256, top=f"usr/share/gocode/src/{import_path}"
    )
    return Pin(name, "go", source)


def _crate(crate: str, version: str, upstream: str, sha256: str) -> Pin:
    package = f"librust-{crate}-dev"
    top = f"usr/share/cargo/registry/{crate}-{upstream}"
    source = Source("debian", package, version, f"{package}_{version}_amd64.deb", sha256, keep=("src/",), top=top)
    return Pin(crate, "rust", source)


def _gem(name: str, package: str, version: str, sha256: str, gem_dir: str) -> Pin:
    top = f"usr/share/rubygems-integration/all/gems/{gem_dir}"
    source = Source("debian", package, version, f"{package}_{version}_all.deb", sha256, keep=("lib/",), top=top)
    return Pin(name, "ruby", source)


# fmt: off
PYTHON = (
    _pypi("arrow", "1.3.0", "arrow-1.3.0.tar.gz",
          "d4540617648cb5f895730f1ad8c82a65f2dad0166f57b75f3ca54759c4d67a85", "arrow/"),
    _pypi("attrs", "24.2.0", "attrs-24.2.0.tar.gz",
          "5cfb1b9148b5b086569baec03f20d7b6bf3bcacc9a42bebf87ffaaca362f6346", "src/"),
    _pypi("bidict", "0.23.1", "bidict-0.23.1.tar.gz",
          "03069d763bc387bbd20e7d49914e75fc4132a41937fa3405417e1a5a2d006d71", "bidict/"),
    _pypi("boltons", "24.1.0", "boltons-24.1.0.tar.gz",
          "4a49b7d57ee055b83a458c8682a2a6f199d263a8aa517098bda9bab813554b87", "boltons/"),
    _pypi("cachetools", "5.5.0", "cachetools-5.5.0.tar.gz",
          "2cc24fb4cbe39633fb7badd9db9ca6295d766d9c2995f245725a46715d050f2a", "src/"),
    _pypi("cattrs", "24.1.2", "cattrs-24.1.2.tar.gz",
          "8028cfe1ff5382df59dd36474a86e02d817b06eaf8af84555441bac915d2ef85", "src/"),
    _pypi("humanize", "4.11.0", "humanize-4.11.0.tar.gz",
          "e66f36020a2d5a974c504bd2555cf770621dbdbb6d82f94a6857c0b1ea2608be", "src/"),
    _pypi("inflect", "7.4.0", "inflect-7.4.0.tar.gz",
          "904baa17cc2cb74827a6c27b95692e95670dadc72b208b3e8c1c05aeed47026b", "inflect/"),
    _pypi("jinja2", "3.1.4", "jinja2-3.1.4.tar.gz",
          "4a3aee7acbbe7303aede8e9648d13b8bf88a429282aa6122a993f0ac800cb369", "src/"),
    _pypi("jsonschema", "4.23.0", "jsonschema-4.23.0.tar.gz",
          "d71497fef26351a33265337fa77ffeb82423f3ea21283cd9467bb03999266bc4", "jsonschema/"),
    _pypi("markdown", "3.7", "markdown-3.7.tar.gz",
          "2ae2471477cfd02dbbf038d5d9bc226d40def84b4fe2986e49b59b6b472bbed2", "markdown/"),
    _pypi("more-itertools", "10.5.0", "more-itertools-10.5.0.tar.gz",
          "5482bfef7849c25dc3c6dd53a6173ae4795da2a41a80faea6700d9f5846c5da6", "more_itertools/"),
    _pypi("networkx", "3.4.2", "networkx-3.4.2.tar.gz",
          "307c3669428c5362aab27c8a1260aa8f47c4e91d3891f48be0141738d8d053e1", "networkx/"),
    _pypi("packaging", "24.2", "packaging-24.2.tar.gz",
          "c228a6dc5e932d346bc5739379109d49e8853dd8223571c7c5b55260edc0b97f", "src/"),
    _pypi("parso", "0.8.4", "parso-0.8.4.tar.gz",
          "eb3a7b58240fb99099a345571deecc0f9540ea5f4dd2fe14c2a99d6b281ab92d", "parso/"),
    _pypi("pathspec", "0.12.1", "pathspec-0.12.1.tar.gz",
          "a482d51503a1ab33b1c67a6c3813a26953dbdc71c31dacaef9a838c4e29f5712", "pathspec/"),
    _pypi("pluggy", "1.5.0", "pluggy-1.5.0.tar.gz",
          "2cffa88e94fdc978c4c574f15f9e59b7f4201d439195c3715ca9e2486f1d0cf1", "src/"),
    _pypi("pyparsing", "3.2.0", "pyparsing-3.2.0.tar.gz",
          "cbf74e27246d595d9a74b186b810f6fbb86726dbf3b9532efb343f6d7294fe9c", "pyparsing/"),
    _pypi("python-dateutil", "2.9.0.post0", "python-dateutil-2.9.0.post0.tar.gz",
          "37dd54208da7e1cd875388217d5e00ebd4179249f90fb72437e91a35459a0ad3", "src/"),
    _pypi("sortedcontainers", "2.4.0", "sortedcontainers-2.4.0.tar.gz",
          "25caa5a06cc30b6b83d11423433f65d1f9d76c4c6a0c90e3379eaa43b9bfdb88", "sortedcontainers/"),
    _pypi("sqlparse", "0.5.2", "sqlparse-0.5.2.tar.gz",
          "9e37b35e16d1cc652a2545f0997c1deb23ea28fa1f3eefe609eee3063c3b105f", "sqlparse/"),
    _pypi("tenacity", "9.0.0", "tenacity-9.0.0.tar.gz",
          "807f37ca97d62aa361264d497b0e31e92b8027044942bfa756160d908320d73b", "tenacity/"),
    _pypi("tomlkit", "0.13.2", "tomlkit-0.13.2.tar.gz",
          "fff5fe59a87295b278abd31bec92c15d9bc4a06885ab12bcea52c71119392e79", "tomlkit/"),
    _pypi("toolz", "1.0.0", "toolz-1.0.0.tar.gz",
          "2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02", "toolz/"),
)

JAVASCRIPT = (
    _npm("ajv", "8.17.1", "f09dae78b8cc984dbf178eba92a7b19bff9e5f7c990508f3af0bf8f118770308",
         ("lib/",), "typescript"),
    _npm("commander", "12.1.0", "56affc6ddafe486f94b428ae2823d059cf60d4dae2f33eaaf1b1ec4306f73173",
         ("lib/", "index.js"), "javascript"),
    # Each function once, as an ES module; the CommonJS copies, the fp wrappers and the locales are left out.
    _npm("date-fns", "2.30.0", "0a6899307d0887bb23b9b982068b4f4a6509e3075fc798ad0d8abe6b0dc2cc4e",
         ("esm/",), "javascript", skip=("esm/fp/", "esm/locale/")),
    _npm("eventemitter3", "5.0.1", "3188d3a05772c99cf0ccf44f6cd8530bcbaf02ce0addcc47c33f26daff0f952c",
         ("index.js",), "javascript"),
    _npm("handlebars", "4.7.8", "2dadfd6743a1e0d876e55d5c5622450a99c1316848048bc6c131a5fc42e776a6",
         ("lib/",), "javascript"),
    _npm("immer", "10.1.1", "946cc79684ad1e080b09d4f2da14247b272aa667f3aaa100f35846148689f08f",
         ("src/",), "typescript"),
    # One module per function; `lodash.js` and `core.js` are monolithic copies of the same functions.
    _npm("lodash", "4.17.21", "6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804",
         (), "javascript", skip=("fp/", "fp.js", "lodash.js", "core.js")),
    _npm("luxon", "3.5.0", "7bf387a9c8621eef0a8b89c35a4120a61360d8d14f95a2ddbcbdc04df3387c47",
         ("src/",), "javascript"),
    _npm("mobx", "6.13.5", "b85a7f765065c081724a7c49e91f59950151607b2f1c5a77c8ec4231f7129a1b",
         ("src/",), "typescript"),
    _npm("moment", "2.30.1", "52219a9fee5e1faade4c72536c173c54cedd5e2619272dd0c251a30aeafcde8c",
         ("src/lib/",), "javascript"),
    _npm("ramda", "0.30.1", "76a1e5c64d5e46c58067f90fb556f7e803bcc741228312ce8bb88035a2157d9a",
         ("src/",), "javascript"),
    _npm("rxjs", "7.8.1", "c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149",
         ("src/",), "typescript"),
    _npm("underscore", "1.13.7", "a252090ea284c52edc7c8a90e05cf97fb56e2d151a1e70c203e8ec27eb50cd66",
         ("modules/",), "javascript"),
)

GO = (
    _go("go-cmp", "golang-github-google-go-cmp-dev", "0.5.9-1",
        "b68bd919daa7c1bdf02abfb68894e29e532f19b03b68c8615f50626c48f553b6", "github.com/google/go-cmp"),
    _go("go-humanize", "golang-github-dustin-go-humanize-dev", "1.0.0-3",
        "b4d1a9d00e0c8af421a30e683bf36e14ba99fa621d3f698220f9af0420bd330c", "github.com/dustin/go-humanize"),
    _go("golang-lru", "golang-github-hashicorp-golang-lru-dev", "0.5.4-2",
        "060ce36c6213ec4084c0604440ba0a62ebd66a64902dbb71d3422f5eb5719141", "github.com/hashicorp/golang-lru"),
    _go("logrus", "golang-github-sirupsen-logrus-dev", "1.9.0-1",
        "51fb87b05452e96be38b97c03d5f997f6ce3a144421f911338d6c4ea2e8aa118", "github.com/sirupsen/logrus"),
    _go("mapstructure", "golang-github-mitchellh-mapstructure-dev", "1.5.0-2",
        "98b8249cac74e5303349f0b2fa2774cc4d2a8b755094fead857bd979606a7752", "github.com/mitchellh/mapstructure"),
    _go("pkg-errors", "golang-github-pkg-errors-dev", "0.9.1-2",
        "87227544904795f81d8c660b7854045a1ef78d5c690993bb4a0c43e05104ca64", "github.com/pkg/errors"),
    _go("testify", "golang-github-stretchr-testify-dev", "1.8.1-1",
        "214a31391cf60e1d1abd9f218cb5134a1fd646340a147a04c2d95a981024a305", "github.com/stretchr/testify"),
    _go("toml", "golang-github-burntsushi-toml-dev", "1.2.0-2",
        "eb0bc9f96d02b33034311604f787ca7ab071de026c9abdffa6ae40a63362f7b8", "github.com/BurntSushi/toml"),
    _go("uuid", "golang-github-google-uuid-dev", "1.3.0-1",
        "f79ead959ee04842fcb410347e7023a3c4c357c17f77b9bb13cff30ef4353351", "github.com/google/uuid"),
    _go("websocket", "golang-github-gorilla-websocket-dev", "1.5.0-2",
        "c43a1b15cf1446303e8683b3c877c04c88ea813c6b201876eac9388d60240ff1", "github.com/gorilla/websocket"),
    _go("yaml-v3", "golang-gopkg-yaml.v3-dev", "3.0.1-3",
        "3ad4febd49700bc670f0f143f3291ecab4e032cc227d69521bacadbc493cfbbe", "gopkg.in/yaml.v3"),
)

RUST = (
    _crate("bytes", "1.2.1-1", "1.2.1", "86fbba5fe9d10f1eeb28944e52cfc8caa75f9a509c3603b70f8107f151744fcc"),
    _crate("chrono", "0.4.23-2", "0.4.23", "e3d5c2220c1441bdbe550cece4480b70863c39f2856cf8c7b39b2aeb7c47606c"),
    _crate("hashbrown", "0.12.3-1", "0.12.3", "86ca499697497d825a2e76f43648ad2d49cc65763964ff234ce32c4fc862f55f"),
    _crate("indexmap", "1.9.2-1", "1.9.2", "691b9efb8df4abdfdb238713c1f66416f31e2c2a33fd15687aae2c4dcb9b5308"),
    _crate("itertools", "0.10.3-1", "0.10.3", "3e13fc328508275c2c84270133f41a300ffb58b9b77001b89373ba7f7ab57fde"),
    _crate("regex", "1.7.1-1", "1.7.1", "9b8c87bb5aa87c0095f4cc36ed829c80e815c2f71337325bd6e25f8de1fba7f7"),
    _crate("smallvec", "1.9.0-1", "1.9.0", "ae859283a4b8979094ab41367116cede81298050fa50fa1f729f5310bd8e0d8b"),
    _crate("url", "2.3.1-1", "2.3.1", "408d745032921069d1d7b2f43490b67418d50c0275789cef35adad7789ba27af"),
)

RUBY = (
    _gem("addressable", "ruby-addressable", "2.8.1-1",
         "4d6027d0bd7c2d63e965a2f728d30aba0f64e2745742c2ac861f163b7aa887fb", "addressable-2.8.1"),
    _gem("concurrent-ruby", "ruby-concurrent", "1.1.6+dfsg-5",
         "8ef1e84210e3c2f4721a9c335ce38f0d9d24a05af3e788596324839a1f074772", "concurrent-ruby-1.1.6"),
    _gem("hashie", "ruby-hashie", "5.0.0-2",
         "4a415c14876562945c9ad677907e8929393bc9967550be954b3a456662652f3c", "hashie-5.0.0"),
    _gem("i18n", "ruby-i18n", "1.10.0-2",
         "ad7d40173fa8b64baffd4b792eaf5a329f80f395580e79beb6c12777b6a80fa3", "i18n-1.10.0"),
    _gem("kramdown", "ruby-kramdown", "2.4.0-2",
         "2508d1b422c5f3d49df0814cbf3097c3f63d9d6a1eef3709542caeb8883b9e89", "kramdown-2.4.0"),
    _gem("mime-types", "ruby-mime-types", "3.4.1-2",
         "6593e8a668e45c205169875e64e653f89d6fd932e82861274fca27d970ccc916", "mime-types-3.4.1"),
    _gem("mustermann", "ruby-mustermann", "3.0.0-2",
         "951ce99726f797e9d28e4f64175733e007930109d295e8070e46ecf6f862c892", "mustermann-3.0.0"),
    _gem("tzinfo", "ruby-tzinfo", "2.0.5-1",
         "801949209ad6022c5805d67d2a6de0a7e0262e19497cd3adab79b524c76210f5", "tzinfo-2.0.5"),
)
# fmt: on

PINS: tuple[Pin, ...] = (*PYTHON, *JAVASCRIPT, *GO, *RUST, *RUBY)
BY_NAME: dict[str, Pin] = {pin.name: pin for pin in PINS}


def _check(pins: tuple[Pin, ...]) -> None:
    """Refuse a pin list that names an excluded project or repeats a corpus name."""
    for pin in pins:
        project = excluded_by(pin.name, pin.source.name, pin.source.top)
        if project is not None:
            raise ValueError(f"pin {pin.name!r} is the excluded project {project!r} (issue 19: never train on it)")
    if len(BY_NAME) != len(pins):
        raise ValueError("two pins share a corpus name")


_check(PINS)
