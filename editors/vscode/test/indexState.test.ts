import assert from "node:assert/strict";
import { test } from "node:test";

import { IndexState } from "../src/indexState";

test("indexing progress drives the phase; other progress is ignored", () => {
  const state = new IndexState();
  assert.equal(state.phase, "starting");
  assert.equal(state.update("search-1", { kind: "begin", title: "Judging 12 snippets" }), false);
  assert.equal(state.update("search-1", { kind: "end", message: "done" }), false);
  assert.equal(state.phase, "starting");

  assert.ok(state.update(1, { kind: "begin", title: "Indexing api", percentage: 0 }));
  assert.ok(state.update(2, { kind: "begin", title: "Indexing web", percentage: 10 }));
  assert.ok(state.update(1, { kind: "report", message: "40 files", percentage: 50 }));
  assert.equal(state.phase, "indexing");
  assert.deepEqual(state.view(), {
    text: "$(sync~spin) SmartSearch: indexing 10%",
    tooltip: "Indexing api: 40 files\nIndexing web",
  });

  state.update(1, { kind: "end", message: "120 files, 2 skipped (too large)" });
  assert.equal(state.phase, "indexing");
  state.update(2, { kind: "end" });
  assert.equal(state.phase, "ready");
  assert.equal(
    state.view().tooltip,
    "Indexing api: 120 files, 2 skipped (too large)\nIndexing web\nClick to find code by behavior.",
  );
});

test("re-indexing a folder replaces its line; a stop and a restart reset the state", () => {
  const state = new IndexState();
  state.update("a", { kind: "begin", title: "Indexing api" });
  state.update("a", { kind: "end", message: "10 files" });
  state.update("b", { kind: "begin", title: "Indexing api" });
  state.update("b", { kind: "end", message: "11 files" });
  assert.equal(state.view().tooltip, "Indexing api: 11 files\nClick to find code by behavior.");

  state.markStopped();
  assert.equal(state.phase, "stopped");
  state.reset();
  assert.equal(state.phase, "starting");
});
