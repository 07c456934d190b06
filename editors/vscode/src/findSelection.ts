/**
 * Search by behavior for the selection (or the word under the cursor) and show the matches in the
 * peek view, like "Find All References". The cancellable notification sends `$/cancelRequest`.
 */
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import { askAndFind } from "./find";
import { coverageSummary, incompleteWarning, noMatchesText } from "./format";
import { queryFromText } from "./query";
import { matchLocation, runSearch, showSearchError } from "./search";

export async function findSelection(client: LanguageClient): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const query = editor === undefined ? undefined : selectedQuery(editor);
  if (editor === undefined || query === undefined) {
    return askAndFind(client);
  }
  const position = editor.selection.active;
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SmartSearch: ${query}`, cancellable: true },
      (progress, token) =>
        // An identifier under the cursor would otherwise be answered as a symbol lookup.
        runSearch(client, { query, mode: "behavior" }, token, (message) => progress.report({ message })),
    );
    if (result === undefined) {
      return;
    }
    const warning = incompleteWarning(result);
    if (warning !== undefined) {
      void vscode.window.showWarningMessage(warning);
    }
    if (result.matches.length === 0) {
      void vscode.window.showInformationMessage(`SmartSearch: ${noMatchesText(result)}`);
      return;
    }
    vscode.window.setStatusBarMessage(`SmartSearch: ${coverageSummary(result)}`, 10_000);
    const locations = result.matches.map((match) => matchLocation(client, match));
    await vscode.commands.executeCommand("editor.action.peekLocations", editor.document.uri, position, locations, "peek");
  } catch (error) {
    showSearchError(error);
  }
}

function selectedQuery(editor: vscode.TextEditor): string | undefined {
  const { document, selection } = editor;
  if (!selection.isEmpty) {
    return queryFromText(document.getText(selection));
  }
  const word = document.getWordRangeAtPosition(selection.active);
  return word === undefined ? undefined : queryFromText(document.getText(word));
}
