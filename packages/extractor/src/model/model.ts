import type { Message, SourceClient } from '../conversation.js';

/** What an extractor sees of one chunk. `text` and the text of `messages` are already scrubbed. */
export interface ModelInput {
  index: number;
  text: string;
  messages: Message[];
  source: SourceClient;
}

/**
 * A candidate extractor. Returns raw candidates (validated by the pipeline, so a model's malformed
 * items are reported rather than trusted); throws when the chunk as a whole failed.
 */
export interface Model {
  readonly name: string;
  extract(input: ModelInput): Promise<unknown[]>;
}
