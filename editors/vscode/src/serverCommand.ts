/**
 * Which command starts smartsearch-ls: the configured executable, else the Python extension's interpreter
 * with `-m smartsearch_ls`, the workspace's `.venv` (trusted workspaces only), `smartsearch-ls` on PATH,
 * then the folders `pip install --user` and pipx install into (a VS Code started before the first install
 * may not have them on PATH). Each candidate is proven with `--version` before it is used, so a broken
 * interpreter falls through to the next one instead of failing at LSP start-up.
 * No `vscode` import: the interpreter, the folders and the trust are looked up by the caller.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";

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
  /** The workspace folders (file system paths): their `.venv`, and a checkout to name in the install command. */
  workspaceFolders?: string[];
  /** Whether the workspace is trusted: only then may its own `.venv` choose which program runs. */
  trusted?: boolean;
  /** The environment to read PATH, HOME and PIPX_BIN_DIR from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/** Importing the server pulls in its judge libraries; allow for a cold disk cache. */
const PROBE_TIMEOUT_MS = 20_000;

const PYTHON_SOURCE = "the Python extension's interpreter";

const PLACEHOLDER_CHECKOUT = "/path/to/smartsearch-ls";

function executableName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "smartsearch-ls.exe" : "smartsearch-ls";
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `name` on `searchPath`, as an absolute path, like `which`. */
export function findOnPath(name: string, searchPath: string | undefined, platform = process.platform): string | undefined {
  const delimiter = platform === "win32" ? ";" : ":";
  for (const dir of (searchPath ?? "").split(delimiter)) {
    if (dir !== "" && path.isAbsolute(dir) && isExecutable(path.join(dir, name))) {
      return path.join(dir, name);
    }
  }
  return undefined;
}

/**
 * The commands to try, in order. A configured path is an explicit choice, so nothing else is tried then.
 * Candidates that are files are listed whether they exist or not: `resolveServerCommand` skips the missing
 * ones quietly and names them in its message.
 */
export function serverCandidates(sources: ServerSources): ServerCommand[] {
  const configured = sources.configuredPath?.trim();
  if (configured) {
    return [{ command: configured, args: [], source: "smartsearch.server.path" }];
  }
  const env = sources.env ?? process.env;
  const platform = sources.platform ?? process.platform;
  const exe = executableName(platform);
  const candidates: ServerCommand[] = [];
  if (sources.pythonInterpreter) {
    candidates.push({
      command: sources.pythonInterpreter,
      args: ["-m", "smartsearch_ls"],
      source: PYTHON_SOURCE,
    });
  }
  if (sources.trusted) {
    for (const folder of sources.workspaceFolders ?? []) {
      const bin = platform === "win32" ? "Scripts" : "bin";
      candidates.push({ command: path.join(folder, ".venv", bin, exe), args: [], source: "the workspace's .venv" });
    }
  }
  candidates.push({ command: findOnPath(exe, env.PATH, platform) ?? exe, args: [], source: "PATH" });
  const home = env.HOME || homedir();
  const userBins = [env.PIPX_BIN_DIR, path.join(home, ".local", "bin")].filter((dir): dir is string => !!dir);
  for (const dir of userBins) {
    candidates.push({ command: path.join(dir, exe), args: [], source: dir });
  }
  return candidates;
}

export function commandLine(command: ServerCommand): string {
  return [command.command, ...command.args].join(" ");
}

/** The workspace folder that is a smartsearch-ls checkout, else a placeholder for one. */
export function checkoutToInstall(workspaceFolders: string[] = []): string {
  for (const folder of workspaceFolders) {
    try {
      if (/^name\s*=\s*"smartsearch-ls"/m.test(readFileSync(path.join(folder, "pyproject.toml"), "utf8"))) {
        return folder;
      }
    } catch {
      // No pyproject.toml there.
    }
  }
  return PLACEHOLDER_CHECKOUT;
}

/** The commands that install the server from a clone: the package is on no index. */
export function installCommands(workspaceFolders?: string[]): string[] {
  const checkout = checkoutToInstall(workspaceFolders);
  return [`pipx install ${checkout}`, `pip install --user ${checkout}`];
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
  const configured = !!sources.configuredPath?.trim();
  const candidates = serverCandidates(sources);
  for (const candidate of candidates) {
    // A place with no server (no such file, nothing on PATH) was looked in; only a server that fails is logged.
    const looked = !configured && candidate.source !== PYTHON_SOURCE;
    if (looked && !(path.isAbsolute(candidate.command) && isExecutable(candidate.command))) {
      continue;
    }
    try {
      const version = await probe(candidate, timeoutMs);
      return { ok: true, command: candidate, version };
    } catch (error) {
      log(`Not using \`${commandLine(candidate)}\` (from ${candidate.source}): ${(error as Error).message}`);
    }
  }
  const looked = candidates
    .map((candidate) => (candidate.source === "PATH" ? `${commandLine(candidate)} on PATH` : commandLine(candidate)))
    .map((place) => `\`${place}\``)
    .join(", ");
  const [pipx, pip] = installCommands(sources.workspaceFolders);
  const install = `smartsearch-ls is on no package index: install it from a clone of its repository with \`${pipx}\` or \`${pip}\`, then run SmartSearch: Restart Server`;
  const fix = configured
    ? "Or fix or clear the smartsearch.server.path setting"
    : "Or set smartsearch.server.path to the executable, or select the Python environment that has it";
  const what = configured ? "could not start its server" : "could not find its server";
  return { ok: false, message: `SmartSearch ${what} (tried ${looked}). ${install}. ${fix}.` };
}
