// Recall and false-positive rate of a screen over a labelled corpus (the test corpora and `npm run eval`).

export interface LabelledItem {
  text: string;
  /** True when the screen should flag the text. */
  flagged: boolean;
  note?: string;
  /**
   * Absent: tuned items (the regex patterns were written against them; the semantic screen's exemplars).
   * `dev`: never in the patterns or exemplars; the semantic screen's margins are chosen on them.
   * `holdout`: never used to tune anything; the honest measure of unseen text.
   */
  split?: 'dev' | 'holdout';
}

export interface ScreenMetrics {
  positives: number;
  negatives: number;
  /** Flagged positives / positives (0 when there are none). */
  recall: number;
  /** Flagged negatives / negatives (0 when there are none). */
  falsePositiveRate: number;
  misses: LabelledItem[];
  falsePositives: LabelledItem[];
}

export function screenMetrics(
  items: readonly LabelledItem[],
  screen: (text: string) => { flagged: boolean },
): ScreenMetrics {
  const misses: LabelledItem[] = [];
  const falsePositives: LabelledItem[] = [];
  let positives = 0;
  let negatives = 0;
  for (const item of items) {
    const flagged = screen(item.text).flagged;
    if (item.flagged) {
      positives++;
      if (!flagged) misses.push(item);
    } else {
      negatives++;
      if (flagged) falsePositives.push(item);
    }
  }
  return {
    positives,
    negatives,
    recall: positives === 0 ? 0 : (positives - misses.length) / positives,
    falsePositiveRate: negatives === 0 ? 0 : falsePositives.length / negatives,
    misses,
    falsePositives,
  };
}
