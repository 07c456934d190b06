/**
 * The wire types of smartsearch-ls's custom request, exactly as /work/shared/protocol.md states them.
 *
 * This module imports nothing from `vscode`, so the extension and the plain-Node protocol tests compile
 * against one definition: if the contract changes here, both break together.
 */
import { Location, ProgressToken, ProgressType, Range, RequestType } from "vscode-languageserver-protocol";

export type SearchMode = "auto" | "behavior" | "symbol" | "path";

export interface SmartSearchParams {
  /** Required, non-empty, at most 2,000 characters. */
  query: string;
  /** A workspace folder or a folder inside one (URI or path); default: all folders. */
  directory?: string;
  /** A ripgrep-style glob that narrows the files searched. */
  glob?: string;
  /** Overrides the `limit` setting for this call. */
  limit?: number;
  /** Overrides the `candidates` setting for this call. */
  candidates?: number;
  mode?: SearchMode;
  /** Progress for this search is reported on it. */
  workDoneToken?: ProgressToken;
  /** The best matches so far are streamed on it (`SmartSearchPartial`), while a model judge works. */
  partialResultToken?: ProgressToken;
}

/** Extension: why a judged match ranked where it did. */
export interface SmartSearchWhy {
  /** The query's words found in the snippet's name, path and code. */
  words: { name: string[]; path: string[]; body: string[] };
  /** The query's cosine with the snippet, when computed. */
  semantic: number | null;
  /** Excerpt lines (1-based) holding a word of the query. */
  lines: number[];
  /** The local judge's weightiest features, with their effect on the log-odds. */
  factors: { feature: string; effect: number }[];
}

export interface SmartSearchMatch {
  /** The focused excerpt (at most 12 lines). */
  location: Location;
  /** The whole snippet that was judged. */
  snippetRange: Range;
  /** Relative to its workspace folder, '/'-separated. */
  path: string;
  /** The enclosing declaration, e.g. "Cache.get". */
  symbol: string | null;
  /** Tests are labeled, not demoted. */
  kind: "test" | null;
  /** In [0, 1]; for the symbol and path modes, the match score. */
  relevance: number;
  excerpt: string;
  /** Extension: the evidence behind a judged match; null for a look-up's match. */
  why?: SmartSearchWhy | null;
  /** Extension: the same code in other files (another build of the same source), folded into this match. */
  copies?: SmartSearchCopy[];
}

export interface SmartSearchCopy {
  path: string;
  uri: string;
  /** The copy's whole snippet. */
  snippetRange: Range;
}

export interface SmartSearchCoverage {
  files: number;
  skippedFiles: number;
  snippets: number;
  shortlisted: number;
  judged: number;
  complete: boolean;
  /** Extension: of `judged`, judgments read from the root's judgment memory (no request sent). */
  remembered?: number;
}

export interface SmartSearchResult {
  matches: SmartSearchMatch[];
  /** Matches above the threshold that the limit cut. */
  omittedMatches: number;
  coverage: SmartSearchCoverage;
  /** Why the result may be incomplete; no matches do not prove absence. */
  warnings: string[];
  mode: Exclude<SearchMode, "auto">;
  /** The judge that scored the result; null when nothing was judged. */
  judge: string | null;
}

export const SmartSearchRequest = new RequestType<SmartSearchParams, SmartSearchResult, void>("smartSearch/query");

/** A streamed batch: the current best matches, at most `limit`, best first; each batch replaces the one before. */
export interface SmartSearchPartial {
  matches: SmartSearchMatch[];
}

export const SmartSearchPartialType = new ProgressType<SmartSearchPartial>();

/** The `workspace/configuration` section and `didChangeConfiguration` key the server reads its settings from. */
export const SERVER_SETTINGS_SECTION = "smartSearch";

/** The server settings object, as protocol.md's settings table defines it. */
export interface ServerSettings {
  judge: { model: string; timeout: number };
  threshold: number;
  concurrency: number;
  candidates: number;
  limit: number;
  exclude: string[];
  /** Absent: the server's default ($XDG_CACHE_HOME/smartsearch-ls, else ~/.cache/smartsearch-ls). */
  cacheDir?: string;
  /** Files edited this session rank a little higher among matches about as good. */
  workingSet: boolean;
  workspaceSymbol: { judged: boolean };
}

/** Progress titles the server uses for indexing a workspace folder ("Indexing <folder>"). */
export const INDEXING_TITLE_PREFIX = "Indexing";
