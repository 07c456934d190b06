/**
 * What both search commands share: sending `smartSearch/query` with a progress token, turning matches
 * into editor locations, and reporting failures.
 */
import { randomUUID } from "node:crypto";
import * as vscode from "vscode";
import { LanguageClient, LSPErrorCodes, ResponseError, WorkDoneProgress } from "vscode-languageclient/node";

import {
  SmartSearchMatch,
  SmartSearchParams,
  SmartSearchPartialType,
  SmartSearchRequest,
  SmartSearchResult,
} from "./protocol";

/**
 * Sends the request; `onProgress` receives the server's report messages for this search, and `onPartial`, when
 * given, each streamed batch of the best matches so far (each replaces the one before). Resolves with undefined
 * when `token` cancelled it (languageclient sends `$/cancelRequest` for us).
 */
export async function runSearch(
  client: LanguageClient,
  params: Omit<SmartSearchParams, "workDoneToken" | "partialResultToken">,
  token: vscode.CancellationToken,
  onProgress: (message: string) => void,
  onPartial?: (matches: SmartSearchMatch[]) => void,
): Promise<SmartSearchResult | undefined> {
  const workDoneToken = `smartsearch-${randomUUID()}`;
  const partialResultToken = `smartsearch-partial-${randomUUID()}`;
  const listeners = [
    client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
      if (value.kind !== "end" && value.message) {
        onProgress(value.message);
      }
    }),
  ];
  if (onPartial !== undefined) {
    listeners.push(client.onProgress(SmartSearchPartialType, partialResultToken, (value) => onPartial(value.matches)));
  }
  const streamed = onPartial !== undefined ? { partialResultToken } : {};
  try {
    return await client.sendRequest(SmartSearchRequest, { ...params, workDoneToken, ...streamed }, token);
  } catch (error) {
    if (token.isCancellationRequested || isCancellation(error)) {
      return undefined;
    }
    throw error;
  } finally {
    listeners.forEach((listener) => listener.dispose());
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
