/**
 * How a search result reads in the editor: QuickPick rows, the coverage summary and the warnings.
 *
 * No `vscode` import, so the unit tests run it under plain Node.
 */
import { SmartSearchMatch, SmartSearchResult, SmartSearchWhy } from "./protocol";

const MAX_DETAIL_LENGTH = 120;

/** `path:line` with the 1-based line editors and ripgrep print. */
export function matchLabel(match: SmartSearchMatch): string {
  return `${match.path}:${match.location.range.start.line + 1}`;
}

/** The enclosing symbol, a test label, how many copies of its code other files hold, and the relevance. */
export function matchDescription(match: SmartSearchMatch): string {
  const copies = match.copies?.length ?? 0;
  const copyLabel = copies === 0 ? "" : `+${copies} ${copies === 1 ? "copy" : "copies"}`;
  const parts = [match.symbol ?? "", match.kind === "test" ? "(test)" : "", copyLabel, match.relevance.toFixed(2)];
  return parts.filter((part) => part !== "").join("  ");
}

/** A row's detail: the excerpt's first meaningful line, then why it matched when the server says. */
export function matchDetail(match: SmartSearchMatch): string {
  const line = firstMeaningfulLine(match.excerpt);
  const why = match.why ? whySummary(match.why) : "";
  return why === "" ? line : `${line}  ·  ${why}`;
}

/** The evidence in a few words: where the query's words were found, and how close in meaning. */
export function whySummary(why: SmartSearchWhy): string {
  const places: [string, string[]][] = [
    ["name", why.words.name],
    ["path", why.words.path],
    ["code", why.words.body],
  ];
  const parts = places.filter(([, words]) => words.length > 0).map(([where, words]) => `${where}: ${words.join(", ")}`);
  if (why.semantic !== null) {
    parts.push(`meaning ${why.semantic.toFixed(2)}`);
  }
  return parts.join(" · ");
}

/** The excerpt's first line that says something; blank lines and lone brackets say nothing. */
export function firstMeaningfulLine(excerpt: string): string {
  const line = excerpt
    .split(/\r\n|\r|\n/)
    .map((text) => text.trim())
    .find((text) => /[\p{L}\p{N}]/u.test(text));
  if (line === undefined) {
    return "";
  }
  return line.length > MAX_DETAIL_LENGTH ? `${line.slice(0, MAX_DETAIL_LENGTH - 1)}…` : line;
}

/** One line on what was searched and how much of it was judged, e.g. for a QuickPick title. */
export function coverageSummary(result: SmartSearchResult): string {
  const { coverage } = result;
  const count = result.matches.length === 1 ? "1 match" : `${result.matches.length} matches`;
  const omitted = result.omittedMatches > 0 ? ` (+${result.omittedMatches} over the limit)` : "";
  const skipped = coverage.skippedFiles > 0 ? `, ${coverage.skippedFiles} skipped` : "";
  const scope = `${coverage.files} files${skipped}`;
  const work =
    result.judge === null
      ? `${result.mode} match in ${scope}`
      : `judged ${coverage.judged}/${coverage.shortlisted} shortlisted of ${coverage.snippets} snippets in ${scope} by ${result.judge}`;
  return `${count}${omitted} · ${work}${coverage.complete ? "" : " · INCOMPLETE"}`;
}

/** The warning to raise when the server says the search did not cover everything; undefined when it did. */
export function incompleteWarning(result: SmartSearchResult): string | undefined {
  if (result.coverage.complete) {
    return undefined;
  }
  const why = result.warnings.length > 0 ? result.warnings.join(" ") : "Not every candidate was judged.";
  return `SmartSearch: the search was incomplete. ${why} Missing matches do not prove absence.`;
}

/** What to say instead of a list when nothing passed the threshold. */
export function noMatchesText(result: SmartSearchResult): string {
  const warnings = result.warnings.length > 0 ? ` ${result.warnings.join(" ")}` : "";
  return `No matches above the threshold (${coverageSummary(result)}).${warnings}`;
}
