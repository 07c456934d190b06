/**
 * The index state shown in the status bar, driven by the server's `$/progress` for tokens whose begin
 * title starts with "Indexing" (one per workspace folder). No `vscode` import, so it is unit-tested.
 */
import { INDEXING_TITLE_PREFIX } from "./protocol";

export type IndexPhase = "starting" | "indexing" | "ready" | "stopped";

/** The parts of WorkDoneProgressBegin/Report/End this reads. */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

interface Running {
  title: string;
  message?: string;
  percentage?: number;
}

export interface IndexView {
  text: string;
  tooltip: string;
}

export class IndexState {
  private readonly running = new Map<string | number, Running>();
  /** Last end message per folder title; re-indexing a folder replaces its line. */
  private readonly finished = new Map<string, string>();
  private stopped = false;

  /** Feeds one progress value; true when it was about indexing (so the view changed). */
  update(token: string | number, value: ProgressValue): boolean {
    if (value.kind === "begin") {
      if (!value.title?.startsWith(INDEXING_TITLE_PREFIX)) {
        return false;
      }
      this.running.set(token, { title: value.title, message: value.message, percentage: value.percentage });
      return true;
    }
    const entry = this.running.get(token);
    if (entry === undefined) {
      return false;
    }
    if (value.kind === "report") {
      entry.message = value.message ?? entry.message;
      entry.percentage = value.percentage ?? entry.percentage;
    } else {
      this.running.delete(token);
      // The end message carries the coverage summary and the warnings: keep it for the tooltip.
      this.finished.set(entry.title, value.message ? `${entry.title}: ${value.message}` : entry.title);
    }
    return true;
  }

  /** A new server process: forget what the previous one reported. */
  reset(): void {
    this.running.clear();
    this.finished.clear();
    this.stopped = false;
  }

  markStopped(): void {
    this.running.clear();
    this.stopped = true;
  }

  get phase(): IndexPhase {
    if (this.stopped) {
      return "stopped";
    }
    if (this.running.size > 0) {
      return "indexing";
    }
    return this.finished.size > 0 ? "ready" : "starting";
  }

  view(): IndexView {
    switch (this.phase) {
      case "stopped":
        return { text: "$(error) SmartSearch", tooltip: "The SmartSearch server is not running. See the output." };
      case "starting":
        // No spinner: with no folder open there is nothing to index, and this state simply stays.
        return { text: "$(search) SmartSearch", tooltip: "No index progress from the server yet." };
      case "indexing": {
        const entries = [...this.running.values()];
        const percentages = entries.flatMap((entry) => (entry.percentage === undefined ? [] : [entry.percentage]));
        const percent = percentages.length === entries.length ? ` ${Math.min(...percentages)}%` : "";
        const lines = entries.map((entry) => (entry.message ? `${entry.title}: ${entry.message}` : entry.title));
        return { text: `$(sync~spin) SmartSearch: indexing${percent}`, tooltip: lines.join("\n") };
      }
      case "ready":
        return {
          text: "$(search) SmartSearch",
          tooltip: [...this.finished.values(), "Click to find code by behavior."].join("\n"),
        };
    }
  }
}
