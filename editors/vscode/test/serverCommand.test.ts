import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { installCommands, resolveServerCommand, serverCandidates } from "../src/serverCommand";

// Stand-in executables: each answers `--version` the way a real one would (or fails like a missing module).
const dir = mkdtempSync(path.join(tmpdir(), "smartsearch-command-"));
function script(file: string, body: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
const goodPython = script(path.join(dir, "python-with-server"), 'echo "smartsearch-ls 0.1.0"');
const barePython = script(
  path.join(dir, "python-without-server"),
  'echo "/usr/bin/python3: No module named smartsearch_ls" >&2; exit 1',
);
const pathDir = path.join(dir, "path");
const onPath = script(path.join(pathDir, "smartsearch-ls"), 'echo "smartsearch-ls 0.1.0 (PATH)"');
const workspace = path.join(dir, "workspace");
const inVenv = script(path.join(workspace, ".venv", "bin", "smartsearch-ls"), 'echo "smartsearch-ls 0.1.0 (.venv)"');
const home = path.join(dir, "home");
const userBin = path.join(home, ".local", "bin", "smartsearch-ls");
const emptyHome = path.join(dir, "empty-home");
// What each test's environment has: PATH with a server, or nothing at all.
const withPath = { PATH: pathDir, HOME: emptyHome };
const bare = { PATH: path.join(dir, "nothing-here"), HOME: emptyHome };

after(() => rmSync(dir, { recursive: true, force: true }));

test("candidates: the configured path alone, else interpreter, trusted .venv, PATH, pipx and ~/.local/bin", () => {
  assert.deepEqual(
    serverCandidates({ configuredPath: "/opt/ss", pythonInterpreter: "/venv/bin/python" }).map((c) => c.command),
    ["/opt/ss"],
  );
  const env = { PATH: pathDir, HOME: home, PIPX_BIN_DIR: "/pipx/bin" };
  assert.deepEqual(
    serverCandidates({
      configuredPath: " ",
      pythonInterpreter: "/venv/bin/python",
      workspaceFolders: [workspace],
      trusted: true,
      env,
      platform: "linux",
    }).map((c) => [c.command, ...c.args]),
    [
      ["/venv/bin/python", "-m", "smartsearch_ls"],
      [inVenv],
      [onPath],
      ["/pipx/bin/smartsearch-ls"],
      [userBin],
    ],
  );
  // An untrusted workspace's own .venv must not choose which program runs.
  assert.deepEqual(
    serverCandidates({ workspaceFolders: [workspace], trusted: false, env: bare, platform: "linux" }).map(
      (c) => c.command,
    ),
    ["smartsearch-ls", path.join(emptyHome, ".local", "bin", "smartsearch-ls")],
  );
});

test("the selected interpreter is used when it has the server", async () => {
  const resolution = await resolveServerCommand({ pythonInterpreter: goodPython, env: withPath }, () => undefined);
  assert.ok(resolution.ok);
  assert.deepEqual([resolution.command.command, ...resolution.command.args], [goodPython, "-m", "smartsearch_ls"]);
  assert.equal(resolution.version, "smartsearch-ls 0.1.0");
});

test("an interpreter without the server falls through to PATH, as an absolute path, and the log says why", async () => {
  const log: string[] = [];
  const resolution = await resolveServerCommand({ pythonInterpreter: barePython, env: withPath }, (line) =>
    log.push(line),
  );
  assert.ok(resolution.ok);
  assert.equal(resolution.command.command, onPath);
  assert.equal(resolution.command.source, "PATH");
  assert.equal(resolution.version, "smartsearch-ls 0.1.0 (PATH)");
  assert.equal(log.length, 1);
  assert.match(log[0] ?? "", /No module named smartsearch_ls/);
});

test("a trusted workspace's .venv comes before PATH; places with no server are not logged", async () => {
  const log: string[] = [];
  const resolution = await resolveServerCommand({ workspaceFolders: [workspace], trusted: true, env: withPath }, (line) =>
    log.push(line),
  );
  assert.ok(resolution.ok);
  assert.equal(resolution.command.command, inVenv);
  assert.equal(resolution.command.source, "the workspace's .venv");
  const untrusted = await resolveServerCommand({ workspaceFolders: [workspace], trusted: false, env: withPath }, () => undefined);
  assert.ok(untrusted.ok);
  assert.equal(untrusted.command.command, onPath);
  assert.deepEqual(log, []);
});

test("~/.local/bin (pip --user, pipx) is found when PATH does not have it", async () => {
  script(userBin, 'echo "smartsearch-ls 0.1.0 (user)"');
  try {
    const resolution = await resolveServerCommand({ env: { PATH: bare.PATH, HOME: home } }, () => undefined);
    assert.ok(resolution.ok);
    assert.equal(resolution.command.command, userBin);
    assert.equal(resolution.version, "smartsearch-ls 0.1.0 (user)");
  } finally {
    rmSync(userBin);
  }
});

test("nothing anywhere: the message names where it looked and the install commands that work from a clone", async () => {
  const resolution = await resolveServerCommand({ workspaceFolders: [workspace], env: bare }, () => undefined);
  assert.equal(resolution.ok, false);
  const message = resolution.ok ? "" : resolution.message;
  assert.ok(message.includes("`pipx install /path/to/smartsearch-ls`"), message);
  assert.ok(message.includes("`pip install --user /path/to/smartsearch-ls`"), message);
  assert.ok(message.includes(path.join(emptyHome, ".local", "bin", "smartsearch-ls")), message);
  assert.ok(message.includes("smartsearch.server.path"), message);
  assert.ok(!message.includes("pip install smartsearch-ls"), message);
});

test("a broken configured path is an error with the install commands, not a silent fallback", async () => {
  const resolution = await resolveServerCommand({ configuredPath: path.join(dir, "missing"), env: withPath }, () => undefined);
  assert.equal(resolution.ok, false);
  assert.ok(!resolution.ok && resolution.message.includes("pipx install /path/to/smartsearch-ls"));
  assert.ok(!resolution.ok && resolution.message.includes("fix or clear the smartsearch.server.path setting"));
});

test("a workspace that is a smartsearch-ls checkout is named in the install commands", () => {
  const checkout = path.join(dir, "checkout");
  mkdirSync(checkout);
  writeFileSync(path.join(checkout, "pyproject.toml"), '[project]\nname = "smartsearch-ls"\nversion = "0.1.0"\n');
  assert.deepEqual(installCommands([workspace, checkout]), [
    `pipx install ${checkout}`,
    `pip install --user ${checkout}`,
  ]);
  assert.deepEqual(installCommands([workspace]), [
    "pipx install /path/to/smartsearch-ls",
    "pip install --user /path/to/smartsearch-ls",
  ]);
});
