// The naive baseline: a skill scores the number of distinct query words found as substrings of its
// name, description or tags (lower-cased); higher first, ties by id. Words that carry no intent are
// skipped, or "a" and "to" would match nearly every skill.

const STOPWORDS = new Set(
  'a an and any are as at be by can do for from get give how i in into is it its me my of on or our that the their them then this to use using want we will with would you your need needs something some which what when where who'.split(
    ' ',
  ),
);

export function queryWords(text) {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].filter((w) => !STOPWORDS.has(w));
}

/** Returns `rank(query, limit)` over `skills`. */
export function substringRanker(skills) {
  const docs = skills.map((s) => ({
    id: s.id,
    text: `${s.name}\n${s.description}\n${s.tags.join(' ')}`.toLowerCase(),
  }));
  return (query, limit = 100) => {
    const words = queryWords(query);
    const hits = [];
    for (const d of docs) {
      let n = 0;
      for (const w of words) if (d.text.includes(w)) n++;
      if (n > 0) hits.push({ id: d.id, n });
    }
    hits.sort((a, b) => b.n - a.n || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, limit).map((h) => h.id);
  };
}
