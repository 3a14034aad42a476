// Free text -> a safe FTS5 MATCH expression. User input never reaches FTS syntax: the text is
// split into letter/digit runs (as the unicode61 tokenizer does), each run becomes a quoted
// string, and the strings are OR-ed, so `"`, `*`, `NEAR(`, `-`, `AND`, `:` or `^` are just text.

/** Words too common to say anything about a capability. */
const STOPWORDS = new Set(
  'a an and any are as at be by can do for from get how i in into is it its me my of on or our that the their them then this to use using want we with you your need needs something some which what'.split(
    ' ',
  ),
);

export const MAX_QUERY_TERMS = 32;
const MAX_TERM_LENGTH = 64;

/** Distinct lower-case terms of `text`, stopwords dropped (unless nothing else is left), at most MAX_QUERY_TERMS. */
export function queryTerms(text: string): string[] {
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const distinct = [...new Set(words.map((w) => w.slice(0, MAX_TERM_LENGTH)))];
  const content = distinct.filter((w) => !STOPWORDS.has(w));
  return (content.length > 0 ? content : distinct).slice(0, MAX_QUERY_TERMS);
}

/** The MATCH expression for `text`, or null when it has no searchable term. */
export function buildMatchExpression(text: string): string | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}
