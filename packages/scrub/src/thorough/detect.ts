import type { Finding } from '../types.js';
import { decodedViews } from '../unescape.js';
import { findAddresses } from './addresses.js';
import { findPersons } from './names.js';

/**
 * What the thorough tier adds to the fast one: person names and street addresses, in offsets of `text`. Like the
 * fast tier it reads JSON-escaped text decoded (a `\n`-joined signature only looks like one decoded).
 */
export function detectPersonal(text: string): Finding[] {
  const view = decodedViews(text).at(-1);
  const read = view?.text ?? text;
  const found = [...findPersons(read), ...findAddresses(read)];
  if (!view) return found;
  return found.map((f) => ({ type: f.type, start: view.toOriginal(f.start), end: view.toOriginal(f.end) }));
}
