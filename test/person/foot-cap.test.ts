import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FootCap } from '../../src/modules/person/foot-cap.js';

const box = (trackId: number, y1: number, h: number) => ({ trackId, x1: 10, x2: 40, y1, y2: y1 + h, score: 0.9, hits: 5 });

describe('FootCap', () => {
  // Guards the occluded-bottom correction: a box that grows downwards over someone in front is capped at the track's usual height; one that shrinks is left alone.
  it('caps a box taller than its track median, leaves shorter ones and other tracks alone', () => {
    const cap = new FootCap(5);
    for (let i = 0; i < 5; i++) cap.apply([box(1, 100 + i, 100), box(2, 50, 80)]);
    const [grown, other] = cap.apply([box(1, 105, 130), box(2, 50, 80)]);
    assert.equal(grown!.y2, 105 + 100);
    assert.equal(other!.y2, 130);
    const [shrunk] = cap.apply([box(1, 106, 60)]);
    assert.equal(shrunk!.y2, 166);
  });

  it('does not modify its input and forgets tracks unseen for forgetFrames', () => {
    const cap = new FootCap(3, 2);
    const t = box(7, 0, 100);
    cap.apply([t]);
    cap.apply([]);
    cap.apply([]);
    cap.apply([]);
    // Forgotten: the next box starts a fresh median and is not capped by the old one.
    const tall = box(7, 0, 150);
    assert.equal(cap.apply([tall])[0]!.y2, 150);
    assert.equal(t.y2, 100);
  });
});
