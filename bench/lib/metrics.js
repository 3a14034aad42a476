// Ranking metrics for the skill-search evaluation. Pure functions over a ranked list of ids and a
// graded relevance map (id -> 1 or 2; missing ids are irrelevant).

/**
 * nDCG@k with linear graded gains (gain = grade, discount = log2(rank + 1)), as trec_eval computes
 * it. The ideal ranking is every labelled id sorted by grade, so a query with more relevant skills
 * than k can still reach 1.
 */
export function ndcgAt(ranked, relevant, k) {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) dcg += (relevant[ranked[i]] ?? 0) / Math.log2(i + 2);
  const ideal = Object.values(relevant)
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  for (let i = 0; i < ideal.length; i++) idcg += ideal[i] / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Share of the relevant ids (of grade `minGrade` or more; any grade by default) found in the first k. */
export function recallAt(ranked, relevant, k, minGrade = 1) {
  const wanted = Object.keys(relevant).filter((id) => relevant[id] >= minGrade);
  if (wanted.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return wanted.filter((id) => top.has(id)).length / wanted.length;
}

/** 1 / the rank of the first relevant id (any grade); 0 when none is listed. */
export function reciprocalRank(ranked, relevant) {
  const i = ranked.findIndex((id) => (relevant[id] ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

export function mean(values) {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Mean nDCG@10, Recall@5 and MRR of `rank` (query text -> ranked ids) over labelled queries, and Recall@5 of the
 * grade-2 labels alone (`recall5Exact`: the ids that do the job, as a benchmark listing only the needed ones would
 * count; a query without one counts 0).
 */
export async function score(queries, rank) {
  const per = [];
  for (const q of queries) {
    const ranked = await rank(q.query);
    per.push({
      id: q.id,
      ndcg10: ndcgAt(ranked, q.relevant, 10),
      recall5: recallAt(ranked, q.relevant, 5),
      recall5Exact: recallAt(ranked, q.relevant, 5, 2),
      rr: reciprocalRank(ranked, q.relevant),
    });
  }
  return {
    ndcg10: mean(per.map((p) => p.ndcg10)),
    recall5: mean(per.map((p) => p.recall5)),
    recall5Exact: mean(per.map((p) => p.recall5Exact)),
    mrr: mean(per.map((p) => p.rr)),
    per,
  };
}
