/**
 * Which command starts smartsearch-ls: the configured executable, else the Python extension's interpreter
 * with `-m smartsearch_ls`, else `smartsearch-ls` on PATH. Each candidate is proven with `--version` before
 * it is used, so a broken interpreter falls through to the next one instead of failing at LSP start-up.
 * No `vscode` import: the interpreter is looked up by the caller.
 */
import { execFile } from "node:child_process";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the output channel. */
  source: string;
}

export interface ServerSources {
  /** `smartsearch.server.path`. */
  configuredPath?: string;
  /** The interpreter the Python extension has selected, when that extension is installed. */
  pythonInterpreter?: string;
}

export const INSTALL_COMMAND = "pip install smartsearch-ls";

/** Importing the server pulls in its judge libraries; allow for a cold disk cache. */
const PROBE_TIMEOUT_MS = 20_000;

/** The commands to try, in order. A configured path is an explicit choice, so nothing else is tried then. */
export function serverCandidates(sources: ServerSources): ServerCommand[] {
  const configured = sources.configuredPath?.trim();
  if (configured) {
    return [{ command: configured, args: [], source: "smartsearch.server.path" }];
  }
  const candidates: ServerCommand[] = [];
  if (sources.pythonInterpreter) {
    candidates.push({
      command: sources.pythonInterpreter,
      args: ["-m", "smartsearch_ls"],
      source: "the Python extension's interpreter",
    });
  }
  candidates.push({ command: "smartsearch-ls", args: [], source: "PATH" });
  return candidates;
}

export function commandLine(command: ServerCommand): string {
  return [command.command, ...command.args].join(" ");
}

/** Runs `<command> --version` and resolves with what it printed. */
export function probe(command: ServerCommand, timeoutMs = PROBE_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command.command,
      [...command.args, "--version"],
      { timeout: timeoutMs, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          // A Python traceback ends with the line that names the problem (e.g. "No module named ...").
          const lastLine = stderr.trim().split(/\r?\n/).pop();
          reject(new Error(lastLine || error.message));
        } else {
          resolve((stdout.trim() || stderr.trim()).split(/\r?\n/)[0] ?? "");
        }
      },
    );
  });
}

export type Resolution =
  | { ok: true; command: ServerCommand; version: string }
  | { ok: false; message: string };

export async function resolveServerCommand(
  sources: ServerSources,
  log: (line: string) => void,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<Resolution> {
  const candidates = serverCandidates(sources);
  for (const candidate of candidates) {
    try {
      const version = await probe(candidate, timeoutMs);
      return { ok: true, command: candidate, version };
    } catch (error) {
      log(`Not using \`${commandLine(candidate)}\` (from ${candidate.source}): ${(error as Error).message}`);
    }
  }
  const tried = candidates.map((candidate) => `\`${commandLine(candidate)}\``).join(", ");
  const fix = sources.configuredPath?.trim()
    ? "Fix or clear the smartsearch.server.path setting"
    : "Set smartsearch.server.path to the executable, or select the Python environment that has it";
  return {
    ok: false,
    message: `SmartSearch could not start its server (tried ${tried}). Install it with \`${INSTALL_COMMAND}\`. ${fix}.`,
  };
}
