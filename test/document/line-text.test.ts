import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lineText } from '../../src/modules/document/line-text.js';

describe('recognised line text', () => {
  it('turns CJK brackets and stops into their Latin look-alikes in a Latin-script line', () => {
    assert.equal(lineText('《rapide》 saute par-dessus le chien'), '«rapide» saute par-dessus le chien');
    assert.equal(lineText('〈oui〉 dit-il。'), '‹oui› dit-il.');
  });

  it('leaves them alone where the line has CJK script, and folds full-width forms everywhere', () => {
    assert.equal(lineText('《红楼梦》是一部小说。'), '《红楼梦》是一部小说。');
    assert.equal(lineText(' ＡＢＣ，１２３ '), 'ABC,123');
  });
});
