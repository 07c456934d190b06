/**
 * The language client: how the server is started and how settings and progress flow through it.
 */
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ResponseError, TransportKind } from "vscode-languageclient/node";

import { IndexState } from "./indexState";
import { SERVER_SETTINGS_SECTION, ServerSettings } from "./protocol";
import { ServerCommand } from "./serverCommand";
import { serverSettings } from "./settings";

/** languageclient reads `<id>.trace.server`, so the id must match the settings prefix. */
export const CLIENT_ID = "smartsearch";
export const SETTINGS_PREFIX = "smartsearch";

export function settingsFor(scope?: vscode.Uri): ServerSettings {
  const configuration = vscode.workspace.getConfiguration(SETTINGS_PREFIX, scope);
  return serverSettings((key) => configuration.get(key));
}

export function createClient(
  command: ServerCommand,
  output: vscode.LogOutputChannel,
  index: IndexState,
  onIndexChange: () => void,
): LanguageClient {
  const options: LanguageClientOptions = {
    // Every file on disk: the server re-indexes what is opened and saved; it serves no per-language feature.
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    initializationOptions: settingsFor(),
    middleware: {
      workspace: {
        // The server pulls section "smartSearch", but the settings live under "smartsearch.*" in VS Code.
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (answers instanceof ResponseError) {
            return answers;
          }
          return params.items.map((item, i) =>
            item.section === SERVER_SETTINGS_SECTION
              ? settingsFor(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
              : answers[i],
          );
        },
      },
      // Sees every work-done progress, including the server-created indexing tokens that languageclient
      // already shows as window progress; the status bar only needs to follow them.
      handleWorkDoneProgress: (token, params, next) => {
        if (index.update(token, params)) {
          onIndexChange();
        }
        next(token, params);
      },
    },
  };
  return new LanguageClient(
    CLIENT_ID,
    "SmartSearch",
    { command: command.command, args: command.args, transport: TransportKind.stdio },
    options,
  );
}
