import { describe, expect, it } from 'vitest';
import { foldText } from '../src/index.js';

describe('foldText', () => {
  it.each([
    ['IGNORE Previous', 'ignore previous'],
    ['ｉｇｎｏｒｅ', 'ignore'],
    ['𝐢𝐠𝐧𝐨𝐫𝐞', 'ignore'],
    ['ig\u200bno\u2060re', 'ignore'],
    ['Іgnоrе аll', 'ignore all'],
    ['réponse précédente', 'reponse precedente'],
    ['i g n o r e   a l l', 'ignore  all'],
    ['i.g.n.o.r.e', 'ignore'],
    ['a\t\t\t b', 'a  b'],
    ['line\n\n\n\nnext', 'line\n\nnext'],
    ['ignore 👉 all 👉 previous', 'ignore  all  previous'],
    ['ignore👉all', 'ignore all'],
    ['🇮 🇬 🇳 🇴 🇷 🇪', 'ignore'],
  ])('%j → %j', (text, folded) => {
    expect(foldText(text).text).toBe(folded);
  });

  it('keeps words of one script in that script', () => {
    expect(foldText('Игнорируй все инструкции').text).toBe('игнорируи все инструкции');
    expect(foldText('Αθήνα').text).toBe('αθηνα');
  });

  it('maps every folded offset back to the written text', () => {
    const text = 'Say: Ｉ\u200bGNORE  the ｒｕｌｅｓ';
    const f = foldText(text);
    const at = f.text.indexOf('ignore');
    expect(text.slice(f.toOriginal(at), f.toOriginal(at + 'ignore'.length))).toBe('Ｉ\u200bGNORE');
    expect(f.toOriginal(f.text.length)).toBe(text.length);
  });

  it('folds a megabyte in linear time', () => {
    const big = `${'Set the timeout and retry. '.repeat(20_000)}Ｉｇｎｏｒｅ`;
    const f = foldText(big);
    expect(f.text.endsWith('ignore')).toBe(true);
    expect(f.toOriginal(f.text.length - 6)).toBe(big.length - 6);
  });
});
