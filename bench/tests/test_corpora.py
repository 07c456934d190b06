"""Corpus assembly offline: checksum refusal, top-folder dropping and `keep` filtering on a local tarball."""

import io
import tarfile

import pytest

from bench import corpora


def make_tar(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_verify_refuses_other_bytes(tmp_path):
    archive = tmp_path / "a.tgz"
    archive.write_bytes(b"abc")
    corpora.verify(archive, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    with pytest.raises(corpora.ChecksumError):
        corpora.verify(archive, "0" * 64)


def test_unpack_drops_top_folder_and_keeps_only_listed(tmp_path):
    archive = tmp_path / "z.tgz"
    files = {
        "package/src/v4/a.ts": b"a",
        "package/src/v3/b.ts": b"b",
        "package/package.json": b"{}",
        "package/x.js": b"",
    }
    make_tar(archive, files)
    source = corpora.Source("npm", "z", "1", "z.tgz", "", keep=("src/v4/", "package.json"), dest="sub")
    corpora.unpack(archive, source, tmp_path / "out")
    got = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert got == ["sub/package.json", "sub/src/v4/a.ts"]
    assert corpora.count(tmp_path / "out") == corpora.Counts(2, 0, 1, 0)


def test_every_pin_is_a_sha256_and_names_are_unique():
    for corpus in corpora.CORPORA.values():
        assert corpus.sources
        for source in corpus.sources:
            assert len(source.sha256) == 64 and int(source.sha256, 16) >= 0
        dests = [s.dest for s in corpus.sources]
        assert len(set(dests)) == len(dests)


def test_an_npm_pin_is_named_as_npm_pack_saves_it():
    sha = "0" * 64
    assert corpora._npm("koa", "2.15.3", sha).filename == "koa-2.15.3.tgz"
    scoped = corpora._npm("@trpc/server", "10.45.2", sha, keep=("src/",))
    assert (scoped.filename, scoped.spec, scoped.keep) == ("trpc-server-10.45.2.tgz", "@trpc/server@10.45.2", ("src/",))
