/**
 * Indices of the `k` largest of `scores[0..n)`, best first. One pass with a running
 * threshold: after the first few thousand rows almost every score fails the single
 * comparison, so a 1M-row pass costs about a millisecond.
 */
export function topCandidates(scores: Float32Array, k: number): Int32Array {
  const n = scores.length;
  const size = Math.min(k, n);
  const best = new Float32Array(size);
  const idx = new Int32Array(size);
  if (size === 0) return idx;
  for (let i = 0; i < size; i++) {
    best[i] = scores[i]!;
    idx[i] = i;
  }
  // Track the slot holding the smallest kept score; replace it when a larger one comes.
  let minSlot = 0;
  for (let i = 1; i < size; i++) if (best[i]! < best[minSlot]!) minSlot = i;
  let threshold = best[minSlot]!;
  for (let i = size; i < n; i++) {
    const s = scores[i]!;
    if (s <= threshold) continue;
    best[minSlot] = s;
    idx[minSlot] = i;
    minSlot = 0;
    for (let j = 1; j < size; j++) if (best[j]! < best[minSlot]!) minSlot = j;
    threshold = best[minSlot]!;
  }
  const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => best[b]! - best[a]! || idx[a]! - idx[b]!);
  return Int32Array.from(order, (o) => idx[o]!);
}
