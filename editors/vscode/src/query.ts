/** Turning editor text into a query the server accepts. No `vscode` import. */

/** protocol.md: a query is non-empty and at most 2,000 characters. */
export const MAX_QUERY_LENGTH = 2000;

/**
 * A selection as a query: whitespace collapsed (indentation means nothing to the judge) and cut to the
 * contract's maximum; undefined when nothing is left.
 */
export function queryFromText(text: string): string | undefined {
  const query = text.replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_LENGTH).trim();
  return query === "" ? undefined : query;
}
