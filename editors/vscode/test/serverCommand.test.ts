import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { resolveServerCommand, serverCandidates } from "../src/serverCommand";

// Stand-in executables: each answers `--version` the way a real one would (or fails like a missing module).
const dir = mkdtempSync(path.join(tmpdir(), "smartsearch-command-"));
function script(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
const goodPython = script("python-with-server", 'echo "smartsearch-ls 0.1.0"');
const barePython = script("python-without-server", 'echo "/usr/bin/python3: No module named smartsearch_ls" >&2; exit 1');
script("smartsearch-ls", 'echo "smartsearch-ls 0.1.0 (PATH)"');
process.env.PATH = dir;

after(() => rmSync(dir, { recursive: true, force: true }));

test("candidates: the configured path alone, else the interpreter, then PATH", () => {
  assert.deepEqual(
    serverCandidates({ configuredPath: "/opt/ss", pythonInterpreter: "/venv/bin/python" }).map((c) => c.command),
    ["/opt/ss"],
  );
  assert.deepEqual(
    serverCandidates({ configuredPath: " ", pythonInterpreter: "/venv/bin/python" }).map((c) => [c.command, ...c.args]),
    [["/venv/bin/python", "-m", "smartsearch_ls"], ["smartsearch-ls"]],
  );
  assert.deepEqual(serverCandidates({}).map((c) => c.command), ["smartsearch-ls"]);
});

test("the selected interpreter is used when it has the server", async () => {
  const resolution = await resolveServerCommand({ pythonInterpreter: goodPython }, () => undefined);
  assert.ok(resolution.ok);
  assert.deepEqual([resolution.command.command, ...resolution.command.args], [goodPython, "-m", "smartsearch_ls"]);
  assert.equal(resolution.version, "smartsearch-ls 0.1.0");
});

test("an interpreter without the server falls through to PATH, and the log says why", async () => {
  const log: string[] = [];
  const resolution = await resolveServerCommand({ pythonInterpreter: barePython }, (line) => log.push(line));
  assert.ok(resolution.ok);
  assert.equal(resolution.command.command, "smartsearch-ls");
  assert.equal(resolution.version, "smartsearch-ls 0.1.0 (PATH)");
  assert.equal(log.length, 1);
  assert.match(log[0] ?? "", /No module named smartsearch_ls/);
});

test("a broken configured path is an error with the install command, not a silent fallback", async () => {
  const resolution = await resolveServerCommand({ configuredPath: path.join(dir, "missing") }, () => undefined);
  assert.equal(resolution.ok, false);
  assert.ok(!resolution.ok && resolution.message.includes("pip install smartsearch-ls"));
  assert.ok(!resolution.ok && resolution.message.includes("smartsearch.server.path"));
});
