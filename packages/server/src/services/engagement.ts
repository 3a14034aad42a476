import type { Engagement } from './unlock.js';

/**
 * Search impressions, "surfaced to account" records and ratings are the marketplace's to record;
 * until its POST /knowledge and rating routes record them there are none, and this says so.
 */
export const noEngagementRecorded: Engagement = {
  surfacedTo: async () => false,
  impressions: async () => 0,
  helpfulnessScores: async () => [],
};
