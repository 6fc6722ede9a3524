/**
 * The text of a recognised line as returned to clients. The recogniser's dictionary
 * is Chinese-first: it has full-width forms of ASCII punctuation (NFKC folds those)
 * and CJK brackets where Latin text has guillemets, which it lacks ('«' is not in
 * it at all, so a French «rapide» comes out as 《rapide》). In a line with no CJK
 * script, those marks can only be their Latin look-alikes.
 */
const CJK_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const LATIN_FOR_CJK: Record<string, string> = {
  '《': '«',
  '》': '»',
  '〈': '‹',
  '〉': '›',
  '。': '.',
  '、': ',',
};
const CJK_MARKS = new RegExp(`[${Object.keys(LATIN_FOR_CJK).join('')}]`, 'gu');

export function lineText(raw: string): string {
  const text = raw.normalize('NFKC').trim();
  if (CJK_SCRIPT.test(text)) return text;
  return text.replace(CJK_MARKS, (c) => LATIN_FOR_CJK[c] ?? c);
}
