/**
 * The real Python server over stdio, driven with the extension's own wire types (src/protocol.ts) and
 * settings builder (src/settings.ts), on a temporary copy of the shared fixture workspace, judged by the
 * repository's deterministic loopback judge.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  ErrorCodes,
  InitializeResult,
  LSPErrorCodes,
  ResponseError,
  SymbolKind,
  WorkspaceSymbolRequest,
} from "vscode-languageserver-protocol";

import {
  ServerSettings,
  SmartSearchMatch,
  SmartSearchPartialType,
  SmartSearchRequest,
  SmartSearchResult,
} from "../src/protocol";
import { serverSettings } from "../src/settings";
import { FakeJudge, startFakeJudge } from "./support/judge";
import { LspSession } from "./support/lspSession";
import { fixtureWorkspace } from "./support/paths";

/** Indexing the fixture takes a second or two; a cold interpreter start can take several more. */
const READY_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 30_000;

function isError(code: number): (error: unknown) => boolean {
  return (error) => error instanceof ResponseError && error.code === code;
}

describe("smartsearch-ls over stdio", () => {
  let root: string;
  let workspace: string;
  let judge: FakeJudge;
  let session: LspSession;
  let initialized: InitializeResult;
  let settings: ServerSettings;

  before(
    async () => {
      root = realpathSync(mkdtempSync(path.join(tmpdir(), "smartsearch-vscode-")));
      workspace = path.join(root, "workspace");
      cpSync(fixtureWorkspace(), workspace, { recursive: true });
      judge = await startFakeJudge();
      // Built by the extension's own function from what VS Code would read: the wire shape under test.
      const configured: Record<string, unknown> = {
        // 300 ms per judgment keeps a search in flight long enough to cancel it.
        "judge.model": "system-one:slow-300",
        cacheDir: path.join(root, "cache"),
      };
      settings = serverSettings((key) => configured[key]);
      ({ session, initialized } = await LspSession.start({
        workspace,
        env: { SYSTEM_ONE_BASE_URL: judge.apiUrl },
        settings,
      }));
      await session.waitForLog("index ready", READY_TIMEOUT_MS);
    },
    { timeout: READY_TIMEOUT_MS + 10_000 },
  );

  after(async () => {
    await session?.stop();
    await judge?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test("advertises workspace symbols and accepts the extension's settings", () => {
    assert.ok(initialized.capabilities.workspaceSymbolProvider, "workspaceSymbolProvider");
    assert.deepEqual(session.shownProblems(), [], "the server warned about the settings the extension sends");
    // Unknown keys only reach the server's own log ("Unknown setting `x` ignored."), on stderr.
    assert.doesNotMatch(session.stderrText(), /unknown setting/i);
  });

  test("smartSearch/query finds a function by what it does", { timeout: TEST_TIMEOUT_MS }, async () => {
    const workDoneToken = "test-query-progress";
    const progress = session.track(workDoneToken);
    const result: SmartSearchResult = await session.connection.sendRequest(SmartSearchRequest, {
      query: "parse config file",
      workDoneToken,
    });

    assert.equal(result.mode, "behavior");
    assert.equal(result.judge, "system-one:slow-300");
    assert.equal(result.matches.length, 1, JSON.stringify(result.matches.map((m) => m.path)));
    const [match] = result.matches;
    assert.equal(match.path, "config_loader.py");
    assert.equal(match.symbol, "parse_config_file");
    assert.equal(match.kind, null);
    assert.equal(match.location.uri, pathToFileURL(path.join(workspace, "config_loader.py")).href);
    // `def parse_config_file` is on line 4 (1-based); the function ends on line 13.
    assert.equal(match.location.range.start.line, 3);
    assert.ok(match.location.range.end.line <= 3 + 12, "an excerpt is at most 12 lines");
    assert.ok(match.snippetRange.start.line <= 3 && match.snippetRange.end.line >= 12, "the judged snippet");
    assert.ok(match.excerpt.includes("def parse_config_file(path):"), match.excerpt);
    // Every query word is in the snippet: p = 1, relevance = p * p.
    assert.ok(Math.abs(match.relevance - 1) < 1e-6, `relevance ${match.relevance}`);
    assert.equal(result.omittedMatches, 0);
    assert.equal(result.coverage.complete, true, result.warnings.join(" "));
    assert.equal(result.coverage.files, 4);
    assert.ok(result.coverage.judged >= 1 && result.coverage.judged <= result.coverage.shortlisted);

    assert.equal(progress[0]?.kind, "begin", JSON.stringify(progress));
    assert.equal(progress.at(-1)?.kind, "end", JSON.stringify(progress));
  });

  test("a partialResultToken streams the best matches so far, then the whole result", { timeout: TEST_TIMEOUT_MS }, async () => {
    const partialResultToken = "test-query-partial";
    const batches: SmartSearchMatch[][] = [];
    const listening = session.connection.onProgress(SmartSearchPartialType, partialResultToken, (value) => {
      batches.push(value.matches);
    });
    try {
      // Words in two files (cache.py, config_loader.py): judged one by one at 300 ms each.
      const result: SmartSearchResult = await session.connection.sendRequest(SmartSearchRequest, {
        query: "a key value",
        mode: "behavior",
        partialResultToken,
      });
      assert.ok(result.matches.length >= 2, JSON.stringify(result.matches.map((m) => m.path)));
      assert.ok(batches.length >= 1, "no batch was streamed");
      for (const batch of batches) {
        const scores = batch.map((m) => m.relevance);
        assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
        assert.ok(batch.every((m) => (m.why?.words.body.length ?? 0) > 0 && m.location.uri.startsWith("file://")));
      }
      assert.deepEqual(
        batches.at(-1)?.map((m) => m.path),
        result.matches.map((m) => m.path),
      );
    } finally {
      listening.dispose();
    }
  });

  test("workspace/symbol answers an identifier from the symbol index", { timeout: TEST_TIMEOUT_MS }, async () => {
    const symbols = await session.connection.sendRequest(WorkspaceSymbolRequest.type, { query: "LruCache" });
    assert.ok(Array.isArray(symbols) && symbols.length > 0, JSON.stringify(symbols));
    const cache = symbols.find((symbol) => symbol.name === "LruCache");
    assert.ok(cache, JSON.stringify(symbols));
    assert.equal(cache.kind, SymbolKind.Class);
    assert.equal(cache.location.uri, pathToFileURL(path.join(workspace, "cache.py")).href);
    // Full ranges, never URI-only locations: Neovim cannot resolve those.
    assert.ok("range" in cache.location, JSON.stringify(cache.location));
    assert.equal(cache.location.range.start.line, 0);
  });

  test("an empty query is InvalidParams", { timeout: TEST_TIMEOUT_MS }, async () => {
    await assert.rejects(
      session.connection.sendRequest(SmartSearchRequest, { query: "" }),
      isError(ErrorCodes.InvalidParams),
    );
  });

  test("cancelling a search gives RequestCancelled", { timeout: TEST_TIMEOUT_MS }, async () => {
    const source = new CancellationTokenSource();
    // A query no other test asks, so no cached judgment can answer it before the cancel arrives.
    const pending = session.connection.sendRequest(
      SmartSearchRequest,
      { query: "retry the action after a failure", mode: "behavior" },
      source.token,
    );
    setTimeout(() => source.cancel(), 100);
    await assert.rejects(pending, isError(LSPErrorCodes.RequestCancelled));
    // The server is still serving afterwards.
    const symbols = await session.connection.sendRequest(WorkspaceSymbolRequest.type, { query: "retry_with_backoff" });
    assert.ok(symbols?.some((symbol) => symbol.name === "retry_with_backoff"), JSON.stringify(symbols));
  });

  test("settings pushed with didChangeConfiguration reach the server", { timeout: TEST_TIMEOUT_MS }, async () => {
    // "key value" is in both cache.py and config_loader.py: two matches, one of them cut by limit 1.
    const search = (): Promise<SmartSearchResult> =>
      session.connection.sendRequest(SmartSearchRequest, { query: "key value", mode: "behavior" });
    const before = await search();
    assert.equal(before.matches.length, 2, JSON.stringify(before.matches.map((m) => m.path)));

    await session.changeSettings({ ...settings, limit: 1 });
    // The server applies settings asynchronously (it may pull them again first): poll briefly.
    let after = await search();
    for (let attempt = 0; attempt < 20 && after.matches.length !== 1; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await search();
    }
    assert.equal(after.matches.length, 1);
    assert.equal(after.omittedMatches, 1);
    assert.deepEqual(session.shownProblems(), []);
    await session.changeSettings(settings);
  });
});
