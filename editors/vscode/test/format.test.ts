import assert from "node:assert/strict";
import { test } from "node:test";

import {
  coverageSummary,
  firstMeaningfulLine,
  incompleteWarning,
  matchDescription,
  matchDetail,
  matchLabel,
  noMatchesText,
} from "../src/format";
import { SmartSearchMatch, SmartSearchResult } from "../src/protocol";
import { MAX_QUERY_LENGTH, queryFromText } from "../src/query";

function match(overrides: Partial<SmartSearchMatch> = {}): SmartSearchMatch {
  const range = { start: { line: 3, character: 0 }, end: { line: 9, character: 0 } };
  return {
    location: { uri: "file:///ws/config/loader.py", range },
    snippetRange: range,
    path: "config/loader.py",
    symbol: "parse_config_file",
    kind: null,
    relevance: 0.8712,
    excerpt: "\n\n@cache\ndef parse_config_file(path):\n    return {}\n",
    ...overrides,
  };
}

function result(overrides: Partial<SmartSearchResult> = {}): SmartSearchResult {
  return {
    matches: [match()],
    omittedMatches: 0,
    coverage: { files: 12, skippedFiles: 0, snippets: 40, shortlisted: 20, judged: 20, complete: true },
    warnings: [],
    mode: "behavior",
    judge: "local",
    ...overrides,
  };
}

test("a match is labelled path:line with the 1-based line", () => {
  assert.equal(matchLabel(match()), "config/loader.py:4");
});

test("the description has the symbol, a test label and the relevance", () => {
  assert.equal(matchDescription(match()), "parse_config_file  0.87");
  assert.equal(matchDescription(match({ symbol: null, kind: "test", relevance: 1 })), "(test)  1.00");
  const range = { start: { line: 0, character: 0 }, end: { line: 5, character: 0 } };
  const copy = { path: "dist/cjs/cache.js", uri: "file:///w/dist/cjs/cache.js", snippetRange: range };
  assert.equal(matchDescription(match({ copies: [copy] })), "parse_config_file  +1 copy  0.87");
  assert.equal(matchDescription(match({ copies: [copy, copy] })), "parse_config_file  +2 copies  0.87");
});

test("the detail is the excerpt's first meaningful line", () => {
  assert.equal(firstMeaningfulLine(match().excerpt), "@cache");
  assert.equal(firstMeaningfulLine("  {\r\n  }\r\n    return total;\n"), "return total;");
  assert.equal(firstMeaningfulLine("\n \n"), "");
  const long = firstMeaningfulLine(`x = "${"a".repeat(300)}"`);
  assert.equal(long.length, 120);
  assert.ok(long.endsWith("…"));
});

test("a judged match's detail adds why it matched; a look-up's keeps the line alone", () => {
  const why = {
    words: { name: ["config"], path: ["config", "loader"], body: [] },
    semantic: 0.6234,
    lines: [4],
    factors: [],
  };
  assert.equal(matchDetail(match({ why })), "@cache  ·  name: config · path: config, loader · meaning 0.62");
  assert.equal(matchDetail(match({ why: { ...why, semantic: null } })), "@cache  ·  name: config · path: config, loader");
  assert.equal(matchDetail(match({ why: null })), "@cache");
});

test("the coverage summary says what was judged, by whom, and whether it was complete", () => {
  assert.equal(
    coverageSummary(result()),
    "1 match · judged 20/20 shortlisted of 40 snippets in 12 files by local",
  );
  const partial = result({
    matches: [match(), match()],
    omittedMatches: 3,
    coverage: { files: 12, skippedFiles: 2, snippets: 40, shortlisted: 20, judged: 15, complete: false },
  });
  assert.equal(
    coverageSummary(partial),
    "2 matches (+3 over the limit) · judged 15/20 shortlisted of 40 snippets in 12 files, 2 skipped by local · INCOMPLETE",
  );
  assert.equal(coverageSummary(result({ mode: "symbol", judge: null })), "1 match · symbol match in 12 files");
});

test("an incomplete search raises its warnings; a complete one raises nothing", () => {
  assert.equal(incompleteWarning(result()), undefined);
  const warning = incompleteWarning(
    result({
      warnings: ["5 snippets were not judged: the judge timed out."],
      coverage: { files: 1, skippedFiles: 0, snippets: 5, shortlisted: 5, judged: 0, complete: false },
    }),
  );
  assert.match(warning ?? "", /incomplete\. 5 snippets were not judged: the judge timed out\./);
});

test("no matches says so, with the coverage and the warnings", () => {
  const text = noMatchesText(result({ matches: [], warnings: ["2 files skipped: too large."] }));
  assert.match(text, /^No matches above the threshold \(0 matches · judged 20\/20/);
  assert.ok(text.endsWith("2 files skipped: too large."));
});

test("a selection becomes a query: whitespace collapsed, capped at the contract's maximum", () => {
  assert.equal(queryFromText("  def   parse(\n      path)\n"), "def parse( path)");
  assert.equal(queryFromText(" \n\t "), undefined);
  assert.equal(queryFromText("x".repeat(MAX_QUERY_LENGTH + 10))?.length, MAX_QUERY_LENGTH);
});
