/**
 * What both search commands share: sending `smartSearch/query` with a progress token, turning matches
 * into editor locations, and reporting failures.
 */
import { randomUUID } from "node:crypto";
import * as vscode from "vscode";
import { LanguageClient, LSPErrorCodes, ResponseError, WorkDoneProgress } from "vscode-languageclient/node";

import { SmartSearchMatch, SmartSearchParams, SmartSearchRequest, SmartSearchResult } from "./protocol";

/**
 * Sends the request; `onProgress` receives the server's report messages for this search. Resolves with
 * undefined when `token` cancelled it (languageclient sends `$/cancelRequest` for us).
 */
export async function runSearch(
  client: LanguageClient,
  params: Omit<SmartSearchParams, "workDoneToken">,
  token: vscode.CancellationToken,
  onProgress: (message: string) => void,
): Promise<SmartSearchResult | undefined> {
  const workDoneToken = `smartsearch-${randomUUID()}`;
  const listener = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
    if (value.kind !== "end" && value.message) {
      onProgress(value.message);
    }
  });
  try {
    return await client.sendRequest(SmartSearchRequest, { ...params, workDoneToken }, token);
  } catch (error) {
    if (token.isCancellationRequested || isCancellation(error)) {
      return undefined;
    }
    throw error;
  } finally {
    listener.dispose();
  }
}

function isCancellation(error: unknown): boolean {
  return (
    error instanceof vscode.CancellationError ||
    (error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled)
  );
}

export function matchLocation(client: LanguageClient, match: SmartSearchMatch): vscode.Location {
  return client.protocol2CodeConverter.asLocation(match.location);
}

/** The server's messages already say what to do next (narrow the glob, configure a judge, ...). */
export function showSearchError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  void vscode.window.showErrorMessage(`SmartSearch: ${message}`);
}
