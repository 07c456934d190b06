// Bundles the extension (dist/) and, with --tests, the node:test suites (out/).
// Usage: node esbuild.mjs [--production] [--tests]
import { readdirSync, rmSync } from "node:fs";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // Only the extension host provides `vscode`.
  external: ["vscode"],
  logLevel: "warning",
};

if (tests) {
  // `node --test out/` runs whatever is there: start from nothing so a deleted test cannot linger.
  rmSync("out", { recursive: true, force: true });
  await esbuild.build({
    ...common,
    entryPoints: readdirSync("test")
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `test/${name}`),
    outdir: "out",
    sourcemap: "inline",
  });
} else {
  await esbuild.build({
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    minify: production,
    sourcemap: !production,
  });
}
