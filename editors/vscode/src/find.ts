/**
 * SmartSearch: Find Code by Behavior. An input box, then a QuickPick that fills in as the judged search
 * streams its best matches so far, and holds the whole ranked result when it ends: focusing a row previews the
 * excerpt, accepting it opens the file, closing the pick cancels.
 */
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import { coverageSummary, incompleteWarning, matchDescription, matchDetail, matchLabel, noMatchesText } from "./format";
import { SearchMode, SmartSearchMatch } from "./protocol";
import { matchLocation, runSearch, showSearchError } from "./search";

interface MatchItem extends vscode.QuickPickItem {
  location: vscode.Location;
  /** Where it points, to follow the same match across streamed batches. */
  key: string;
}

/** The last query, offered again so a search can be refined. */
let lastQuery = "";

/** The input box; undefined when it was dismissed. It needs no server, so it opens while the server starts. */
export async function askQuery(): Promise<string | undefined> {
  const query = await vscode.window.showInputBox({
    title: "SmartSearch: Find Code by Behavior",
    prompt: "Describe what the code does, in plain words",
    placeHolder: "e.g. where failed HTTP requests are retried",
    value: lastQuery,
    validateInput: (value) => (value.trim() === "" ? "Describe the behavior to find." : undefined),
  });
  if (query === undefined || query.trim() === "") {
    return undefined;
  }
  lastQuery = query.trim();
  return lastQuery;
}

/** Asks, then searches: for a caller that already has the client. */
export async function askAndFind(client: LanguageClient): Promise<void> {
  const query = await askQuery();
  if (query !== undefined) {
    await findInQuickPick(client, query, "auto");
  }
}

export async function findInQuickPick(client: LanguageClient, query: string, mode: SearchMode): Promise<void> {
  const pick = vscode.window.createQuickPick<MatchItem>();
  const cancellation = new vscode.CancellationTokenSource();
  let closed = false;
  pick.title = `SmartSearch: ${query}`;
  pick.placeholder = "Searching…";
  pick.busy = true;
  // Batches replace the items while the user may be moving through them: keep the scroll, the focused match,
  // and preview a match only when the focus moves to another one (not each time a batch re-renders the list).
  pick.keepScrollPosition = true;
  let previewed: string | undefined;
  pick.onDidHide(() => {
    closed = true;
    cancellation.cancel();
    cancellation.dispose();
    pick.dispose();
  });
  pick.onDidChangeActive(([item]) => {
    if (item !== undefined && item.key !== previewed) {
      previewed = item.key;
      void show(item.location, true);
    }
  });
  const fill = (next: MatchItem[]): void => {
    const focused = pick.activeItems[0]?.key;
    pick.items = next;
    const again = next.find((item) => item.key === focused);
    if (again !== undefined) {
      pick.activeItems = [again];
    }
  };
  pick.onDidAccept(() => {
    const [item] = pick.selectedItems;
    if (item !== undefined) {
      void show(item.location, false);
      pick.hide();
    }
  });
  pick.show();

  try {
    const result = await runSearch(
      client,
      { query, mode },
      cancellation.token,
      (message) => {
        if (!closed) {
          pick.placeholder = message;
        }
      },
      (matches) => {
        if (!closed) {
          fill(items(client, matches));
        }
      },
    );
    if (result === undefined || closed) {
      return;
    }
    fill(items(client, result.matches));
    pick.title = `SmartSearch: ${query} — ${coverageSummary(result)}`;
    pick.placeholder =
      result.matches.length === 0
        ? noMatchesText(result)
        : result.warnings.join(" ") || "Focus a match to preview it, Enter to open it";
    const warning = incompleteWarning(result);
    if (warning !== undefined) {
      void vscode.window.showWarningMessage(warning);
    }
  } catch (error) {
    pick.hide();
    showSearchError(error);
  } finally {
    if (!closed) {
      pick.busy = false;
    }
  }
}

function items(client: LanguageClient, matches: SmartSearchMatch[]): MatchItem[] {
  return matches.map((match) => ({
    label: matchLabel(match),
    description: matchDescription(match),
    detail: matchDetail(match),
    // The server has already ranked these; VS Code's fuzzy filter on the label must not hide any.
    alwaysShow: true,
    location: matchLocation(client, match),
    key: `${match.location.uri}:${match.location.range.start.line}`,
  }));
}

async function show(location: vscode.Location, preview: boolean): Promise<void> {
  const editor = await vscode.window.showTextDocument(location.uri, {
    preview,
    preserveFocus: preview,
    // A preview highlights the whole excerpt; opening puts the cursor at its start.
    selection: preview ? location.range : new vscode.Range(location.range.start, location.range.start),
  });
  editor.revealRange(location.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
