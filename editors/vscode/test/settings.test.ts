import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { DEFAULT_SETTINGS, serverSettings } from "../src/settings";

interface Contributed {
  contributes: { configuration: { properties: Record<string, { default: unknown }> } };
}

const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as Contributed;
const properties = manifest.contributes.configuration.properties;

/** Reads settings the way VS Code does when nothing is configured: the manifest's defaults. */
function manifestDefault(key: string): unknown {
  return properties[`smartsearch.${key}`]?.default;
}

test("package.json declares the contract's defaults, one setting per server key", () => {
  assert.deepEqual(serverSettings(manifestDefault), DEFAULT_SETTINGS);
  const serverKeys = [
    "judge.model",
    "judge.timeout",
    "threshold",
    "concurrency",
    "candidates",
    "limit",
    "exclude",
    "cacheDir",
    "workingSet",
    "workspaceSymbol.judged",
  ];
  for (const key of serverKeys) {
    assert.ok(`smartsearch.${key}` in properties, `package.json lacks smartsearch.${key}`);
  }
});

test("configured values pass through unchanged, under the server's names", () => {
  const configured: Record<string, unknown> = {
    "judge.model": "openai:gpt-4.1-mini",
    "judge.timeout": 5,
    threshold: 0.7,
    concurrency: 2,
    candidates: 64,
    limit: 3,
    exclude: ["**/vendor/**"],
    cacheDir: "/tmp/ss-cache",
    workingSet: false,
    "workspaceSymbol.judged": false,
  };
  assert.deepEqual(serverSettings((key) => configured[key]), {
    judge: { model: "openai:gpt-4.1-mini", timeout: 5 },
    threshold: 0.7,
    concurrency: 2,
    candidates: 64,
    limit: 3,
    exclude: ["**/vendor/**"],
    cacheDir: "/tmp/ss-cache",
    workingSet: false,
    workspaceSymbol: { judged: false },
  });
});

test("an empty cacheDir leaves the server's default in place", () => {
  assert.equal("cacheDir" in serverSettings((key) => (key === "cacheDir" ? "  " : undefined)), false);
});
