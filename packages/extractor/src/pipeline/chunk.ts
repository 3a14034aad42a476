import type { Conversation, Message } from '../conversation.js';
import type { RenderedTranscript } from './render.js';

export interface Chunk {
  index: number;
  /** Where the chunk starts in the rendered transcript. */
  start: number;
  text: string;
  /** The messages that overlap this chunk, whole, for extractors that work on structure. */
  messages: Message[];
}

/**
 * Fixed-size character windows with overlap. A window ends at the last message boundary inside it
 * when there is one in its second half, so a chunk rarely starts mid-message.
 */
export function chunkTranscript(
  conversation: Conversation,
  rendered: RenderedTranscript,
  size: number,
  overlap: number,
): Chunk[] {
  const { text, spans } = rendered;
  if (size <= 0) throw new RangeError('chunk_size must be positive');
  const step = Math.max(1, size - Math.max(0, Math.min(overlap, size - 1)));
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const boundary = lastBoundary(spans, start + size / 2, end);
      if (boundary !== undefined) end = boundary;
    }
    const messages = conversation.messages.filter((_, i) => {
      const s = spans[i];
      return s !== undefined && s.start < end && s.end > start;
    });
    chunks.push({ index: chunks.length, start, text: text.slice(start, end), messages });
    if (end >= text.length) break;
    start = Math.max(start + 1, Math.min(end - overlap, start + step));
  }
  return chunks;
}

function lastBoundary(spans: RenderedTranscript['spans'], from: number, to: number): number | undefined {
  let found: number | undefined;
  for (const s of spans) {
    if (s.end > to) break;
    if (s.end >= from) found = s.end;
  }
  return found;
}
