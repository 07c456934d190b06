/**
 * The running server: finding its command, starting, restarting, and forwarding settings changes.
 * Start, stop and restart are queued so a settings change during start-up cannot race a second client.
 */
import * as vscode from "vscode";
import { DidChangeConfigurationNotification, LanguageClient, State } from "vscode-languageclient/node";

import { CLIENT_ID, createClient, settingsFor, SETTINGS_PREFIX } from "./client";
import { IndexState } from "./indexState";
import { SERVER_SETTINGS_SECTION } from "./protocol";
import { selectedPythonInterpreter } from "./pythonInterpreter";
import { commandLine, resolveServerCommand } from "./serverCommand";

export class ServerSession {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly index: IndexState,
    private readonly onIndexChange: () => void,
  ) {}

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  /** Runs `use` with the client once any pending start has finished; says so when there is no server. */
  async withClient(use: (client: LanguageClient) => Promise<void>): Promise<void> {
    await this.queue.catch(() => undefined); // a failed start is reported where it happened
    if (this.client?.isRunning()) {
      return use(this.client);
    }
    const choice = await vscode.window.showErrorMessage("SmartSearch: the server is not running.", "Show Output", "Restart");
    if (choice === "Show Output") {
      this.output.show();
    } else if (choice === "Restart") {
      await this.restart();
    }
  }

  onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (event.affectsConfiguration(`${SETTINGS_PREFIX}.server`)) {
      this.output.info("smartsearch.server settings changed: restarting the server.");
      void this.restart();
    } else if (event.affectsConfiguration(SETTINGS_PREFIX) && this.client?.isRunning()) {
      // languageclient only pushes settings for `synchronize.configurationSection`, and under the wrong
      // key ("smartsearch"); the server reads `settings.smartSearch`, so push the built object ourselves.
      void this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SERVER_SETTINGS_SECTION]: settingsFor() },
      });
    }
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async doStart(): Promise<void> {
    this.index.reset();
    this.onIndexChange();
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === "file");
    const resolution = await resolveServerCommand(
      {
        configuredPath: vscode.workspace.getConfiguration(SETTINGS_PREFIX).get<string>("server.path"),
        pythonInterpreter: await selectedPythonInterpreter(folders[0]?.uri),
        workspaceFolders: folders.map((folder) => folder.uri.fsPath),
        // Trust makes the workspace's .venv count; granting it restarts the session (extension.ts).
        trusted: vscode.workspace.isTrusted,
      },
      (line) => this.output.warn(line),
    );
    if (!resolution.ok) {
      this.fail(resolution.message);
      return;
    }
    const { command, version } = resolution;
    this.output.info(`Server: \`${commandLine(command)}\` (from ${command.source}), version: ${version}.`);
    const client = createClient(command, this.output, this.index, this.onIndexChange);
    client.onDidChangeState(({ newState }) => {
      // languageclient restarts a crashed server by itself: follow it back to running, too.
      if (newState === State.Running) {
        this.index.reset();
      } else if (newState === State.Stopped) {
        this.index.markStopped();
      }
      this.onIndexChange();
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.fail(`SmartSearch: the server failed to start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) {
      await client.stop();
    }
  }

  private fail(message: string): void {
    this.index.markStopped();
    this.onIndexChange();
    this.output.error(message);
    void vscode.window.showErrorMessage(message, "Open Settings", "Show Output").then((choice) => {
      if (choice === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", `${CLIENT_ID}.server.path`);
      } else if (choice === "Show Output") {
        this.output.show();
      }
    });
  }
}
