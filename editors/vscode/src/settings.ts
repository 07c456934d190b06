/**
 * The server settings object built from the extension's `smartsearch.*` settings, one key to one key.
 *
 * Values pass through unchanged: the server validates them and names a wrong key in a warning, so the
 * extension does not keep a second copy of the rules. No `vscode` import, so the unit tests can run it.
 */
import { ServerSettings } from "./protocol";

/** Reads one setting below `smartsearch.` (VS Code's `WorkspaceConfiguration.get` fits). */
export type SettingReader = (key: string) => unknown;

/** The contract's defaults; package.json declares the same ones (a unit test keeps them equal). */
export const DEFAULT_SETTINGS: ServerSettings = {
  judge: { model: "local", timeout: 30 },
  threshold: 0.5,
  concurrency: 8,
  candidates: 128,
  limit: 10,
  exclude: [],
  workingSet: true,
  workspaceSymbol: { judged: true },
};

export function serverSettings(read: SettingReader): ServerSettings {
  const value = <T>(key: string, fallback: T): T => (read(key) ?? fallback) as T;
  const settings: ServerSettings = {
    judge: {
      model: value("judge.model", DEFAULT_SETTINGS.judge.model),
      timeout: value("judge.timeout", DEFAULT_SETTINGS.judge.timeout),
    },
    threshold: value("threshold", DEFAULT_SETTINGS.threshold),
    concurrency: value("concurrency", DEFAULT_SETTINGS.concurrency),
    candidates: value("candidates", DEFAULT_SETTINGS.candidates),
    limit: value("limit", DEFAULT_SETTINGS.limit),
    exclude: value("exclude", DEFAULT_SETTINGS.exclude),
    workingSet: value("workingSet", DEFAULT_SETTINGS.workingSet),
    workspaceSymbol: { judged: value("workspaceSymbol.judged", DEFAULT_SETTINGS.workspaceSymbol.judged) },
  };
  // An empty cacheDir means "the server's default", which depends on the server's environment.
  const cacheDir = read("cacheDir");
  if (typeof cacheDir === "string" && cacheDir.trim() !== "") {
    settings.cacheDir = cacheDir;
  }
  return settings;
}
