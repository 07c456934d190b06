/** Where the repository, its Python and the shared editor fixture are, seen from the bundled test. */
import { existsSync } from "node:fs";
import * as path from "node:path";

/** The nearest folder above this file that holds pyproject.toml: the smartsearch-ls repository. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, "pyproject.toml"))) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`no pyproject.toml above ${__dirname}`);
    }
    dir = parent;
  }
  return dir;
}

/** `SMARTSEARCH_PYTHON`, else the repository's virtual environment. */
export function python(): string {
  return process.env.SMARTSEARCH_PYTHON ?? path.join(repoRoot(), ".venv", "bin", "python");
}

/** The fixture workspace shared with the Neovim tests. */
export function fixtureWorkspace(): string {
  return path.join(repoRoot(), "tests", "editors", "workspace");
}
