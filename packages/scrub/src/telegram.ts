import type { Finding } from './types.js';

const TAIL = /[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/y;
const TOKEN_CHAR = /[A-Za-z0-9_-]/;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Telegram bot tokens, `<8-10 digit bot id>:AA<33 characters>`, also inside API URLs
 * (https://api.telegram.org/bot123456789:AA.../getMe). Found from each `:AA` (a pattern starting with the digits
 * would be tried at every digit of the text), the bot id read back from it.
 */
export function findTelegramTokens(text: string): Finding[] {
  const found: Finding[] = [];
  for (let at = text.indexOf(':AA'); at >= 0; at = text.indexOf(':AA', at + 1)) {
    let start = at;
    while (start > 0 && at - start <= 10 && isDigit(text.charCodeAt(start - 1))) start--;
    if (at - start < 8 || at - start > 10) continue;
    // Not inside a longer token, unless it is the bot path of an API URL.
    if (TOKEN_CHAR.test(text[start - 1] ?? '') && text.slice(start - 3, start) !== 'bot') continue;
    TAIL.lastIndex = at + 3;
    if (TAIL.test(text)) found.push({ type: 'telegram_bot_token', start, end: at + 3 + 33 });
  }
  return found;
}
