/**
 * The repository's loopback fake judge (`python -m tests.support.model_servers`): deterministic, no
 * network. A snippet's relevance is the squared share of the query's words found in it.
 */
import { ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

import { python, repoRoot } from "./paths";

export interface FakeJudge {
  /** The base URL the server's System One provider is pointed at (`SYSTEM_ONE_BASE_URL`). */
  apiUrl: string;
  /** How many judge requests it has received so far. */
  requestCount(): Promise<number>;
  stop(): Promise<void>;
}

export async function startFakeJudge(): Promise<FakeJudge> {
  const child: ChildProcessWithoutNullStreams = spawn(python(), ["-m", "tests.support.model_servers", "--port", "0"], {
    cwd: repoRoot(),
  });
  const [firstLine] = (await Promise.race([
    once(createInterface({ input: child.stdout }), "line"),
    once(child, "exit").then(([code]) => {
      throw new Error(`the fake judge exited with ${String(code)} before printing its URL`);
    }),
  ])) as [string];
  const base = firstLine.trim();
  return {
    apiUrl: `${base}/v1`,
    requestCount: async () => {
      const response = await fetch(`${base}/requests`);
      const body = (await response.json()) as { requests: unknown[] };
      return body.requests.length;
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = once(child, "exit");
        child.kill();
        await exited;
      }
    },
  };
}
