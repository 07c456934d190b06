// Drives VS Code (code-server) in headless Chromium the way a person would, for tests/editors/test_vscode_e2e.py:
// the command palette, SmartSearch: Find Code by Behavior, a query typed into its input box, the QuickPick's
// rows read off the page, a screenshot, Enter on the first row, and what the editor then shows.
// Prints one JSON object on stdout; every step that waits fails with what the page showed instead.
//
// Environment: SS_URL (the workbench with ?folder=...), SS_QUERY, SS_SCREENSHOT (a .png path), SS_APP (the
// folder holding node_modules/playwright-core), SS_CHROMIUM (default /usr/bin/chromium).
import { createRequire } from "node:module";
import * as path from "node:path";

const { SS_URL: url, SS_QUERY: query, SS_SCREENSHOT: screenshot, SS_APP: app } = process.env;
const require = createRequire(path.join(app, "package.json"));
const { chromium } = require("playwright-core");

const COMMAND = "SmartSearch: Find Code by Behavior";
const started = Date.now();
const steps = [];
function step(name) {
  steps.push(`${((Date.now() - started) / 1000).toFixed(1)} s: ${name}`);
}

const browser = await chromium.launch({
  executablePath: process.env.SS_CHROMIUM || "/usr/bin/chromium",
  // Root in a container: Chromium's sandbox cannot start; /dev/shm may be small.
  args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
const widget = page.locator(".quick-input-widget");
const title = widget.locator(".quick-input-title");
const rows = widget.locator(".quick-input-list .monaco-list-row");

async function fail(error) {
  let visible = "";
  try {
    visible = await page.locator("body").innerText({ timeout: 5000 });
    if (screenshot) {
      await page.screenshot({ path: screenshot.replace(/\.png$/, "-failure.png") });
    }
  } catch {
    // The page itself is gone.
  }
  process.stdout.write(JSON.stringify({ error: String(error), steps, visible: visible.slice(0, 4000) }));
  await browser.close();
  process.exit(1);
}

try {
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 120_000 });
  step("workbench loaded");
  // The extension's status bar item: it is active (it activates on startup).
  await page.locator('[id="smartsearch-ls.smartsearch.smartsearch.index"]').waitFor({ timeout: 120_000 });
  step("extension active");

  await page.keyboard.press("F1");
  await widget.locator(".quick-input-box input").waitFor();
  await page.keyboard.type(COMMAND);
  await rows.filter({ hasText: COMMAND }).first().waitFor();
  await page.keyboard.press("Enter");
  await title.filter({ hasText: COMMAND }).waitFor({ timeout: 30_000 });
  step("input box open");

  await page.keyboard.type(query);
  await page.keyboard.press("Enter");
  // The pick's title gains the coverage summary when the judged search has answered.
  await title.filter({ hasText: `SmartSearch: ${query} — ` }).waitFor({ timeout: 120_000 });
  await rows.first().waitFor();
  step("results shown");
  const pickTitle = (await title.innerText()).replace(/\s+/g, " ").trim();
  const items = await rows.evaluateAll((elements) =>
    elements.map((row) => ({
      ariaLabel: row.getAttribute("aria-label"),
      label: row.querySelector(".label-name")?.textContent?.trim() ?? "",
      description: row.querySelector(".label-description")?.textContent?.trim() ?? "",
      detail: row.querySelector(".quick-input-list-label-meta")?.textContent?.trim() ?? "",
    })),
  );
  // The first row is active, so its excerpt is previewed behind the pick: the picture README shows.
  await page.waitForTimeout(1500);
  await page.screenshot({ path: screenshot });

  await page.keyboard.press("Enter");
  await widget.waitFor({ state: "hidden" });
  const tab = page.locator(".tabs-container .tab.active");
  const selection = page.locator('[id="status.editor.selection"]');
  await tab.waitFor();
  // The preview put a selection on the excerpt; opening puts the cursor at its start.
  await page.waitForFunction(
    () => /^Ln \d+, Col \d+$/.test(document.getElementById("status.editor.selection")?.textContent?.trim() ?? ""),
    null,
    { timeout: 30_000 },
  );
  step("match opened");
  const result = {
    steps,
    pickTitle,
    items,
    activeTab: (await tab.getAttribute("aria-label")) ?? "",
    selection: (await selection.innerText()).trim(),
    breadcrumbs: (await page.locator(".breadcrumbs-control").first().innerText()).replace(/\s+/g, " ").trim(),
  };
  process.stdout.write(JSON.stringify(result));
  await browser.close();
} catch (error) {
  await fail(error);
}
