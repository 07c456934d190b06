/**
 * A minimal LSP client for the protocol tests: starts the real Python server over stdio on a workspace,
 * answers what a client must answer (configuration, progress creation, registrations), and records what
 * the server says (log and show messages, progress).
 */
import { ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createMessageConnection,
  MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";
import {
  ConfigurationRequest,
  DidChangeConfigurationNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  InitializeResult,
  LogMessageNotification,
  MessageType,
  ProgressToken,
  RegistrationRequest,
  ShowMessageNotification,
  ShowMessageParams,
  ShutdownRequest,
  UnregistrationRequest,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressCreateRequest,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from "vscode-languageserver-protocol";

import { SERVER_SETTINGS_SECTION, ServerSettings } from "../../src/protocol";
import { python, repoRoot } from "./paths";

export type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export interface SessionOptions {
  workspace: string;
  /** Extra environment for the server, e.g. the judge's base URL. */
  env: Record<string, string>;
  settings: ServerSettings;
}

export class LspSession {
  readonly logs: string[] = [];
  readonly shown: ShowMessageParams[] = [];
  readonly progress = new Map<ProgressToken, ProgressValue[]>();
  private stderr = "";
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly connection: MessageConnection,
    private readonly child: ChildProcessWithoutNullStreams,
    /** What `workspace/configuration` answers for section "smartSearch"; `changeSettings` replaces it. */
    private settings: ServerSettings,
  ) {}

  static async start(options: SessionOptions): Promise<{ session: LspSession; initialized: InitializeResult }> {
    const child = spawn(python(), ["-m", "smartsearch_ls"], {
      cwd: options.workspace,
      // The repository on PYTHONPATH so the tests also run before `pip install -e .`.
      env: { ...process.env, PYTHONPATH: repoRoot(), ...options.env },
    });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const session = new LspSession(connection, child, options.settings);
    session.listen();
    connection.listen();

    const folder = pathToFileURL(options.workspace).href;
    const initialized = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: folder,
      workspaceFolders: [{ uri: folder, name: path.basename(options.workspace) }],
      initializationOptions: options.settings,
      capabilities: {
        window: { workDoneProgress: true },
        workspace: {
          configuration: true,
          workspaceFolders: true,
          didChangeConfiguration: { dynamicRegistration: true },
          symbol: { dynamicRegistration: false },
        },
      },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return { session, initialized };
  }

  /** Resolves once a `window/logMessage` contains `text`; fails with the server's stderr after `timeoutMs`. */
  async waitForLog(text: string, timeoutMs: number): Promise<void> {
    await this.waitFor(() => this.logs.some((line) => line.includes(text)), timeoutMs, `a log message with "${text}"`);
  }

  /** Replaces the settings and pushes them the way the VS Code extension does. */
  async changeSettings(settings: ServerSettings): Promise<void> {
    this.settings = settings;
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SERVER_SETTINGS_SECTION]: settings },
    });
  }

  /** Warnings and errors the server showed to the user. */
  shownProblems(): string[] {
    return this.shown.filter((m) => m.type === MessageType.Error || m.type === MessageType.Warning).map((m) => m.message);
  }

  stderrText(): string {
    return this.stderr;
  }

  diagnostics(): string {
    return `server stderr (tail):\n${this.stderr.slice(-4000)}\nlogs:\n${this.logs.join("\n")}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = once(this.child, "exit");
      const killer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
      try {
        await this.connection.sendRequest(ShutdownRequest.type);
        await this.connection.sendNotification(ExitNotification.type);
      } catch {
        this.child.kill();
      }
      await exited;
      clearTimeout(killer);
    }
    this.connection.dispose();
  }

  private listen(): void {
    const { connection } = this;
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    connection.onNotification(LogMessageNotification.type, ({ message }) => this.record(() => this.logs.push(message)));
    connection.onNotification(ShowMessageNotification.type, (params) => this.record(() => this.shown.push(params)));
    connection.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      this.track(token);
    });
    connection.onRequest(ConfigurationRequest.type, ({ items }) =>
      items.map((item) => (item.section === SERVER_SETTINGS_SECTION ? this.settings : null)),
    );
    // Accept whatever the server registers (e.g. didChangeConfiguration), as an editor would.
    connection.onRequest(RegistrationRequest.type, () => undefined);
    connection.onRequest(UnregistrationRequest.type, () => undefined);
  }

  /** Records the progress reported on `token` (server-created, or a request's workDoneToken). */
  track(token: ProgressToken): ProgressValue[] {
    const values: ProgressValue[] = [];
    this.progress.set(token, values);
    this.connection.onProgress(WorkDoneProgress.type, token, (value) => this.record(() => values.push(value)));
    return values;
  }

  private record(change: () => void): void {
    change();
    for (const wake of this.waiters) {
      wake();
    }
  }

  private waitFor(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (done()) {
          cleanup();
          resolve();
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${this.diagnostics()}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }
}
