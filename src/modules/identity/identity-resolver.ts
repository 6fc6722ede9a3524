/**
 * Combines several face samples of one person (the frames of a video track, or a burst of
 * photos) into one identification decision, so that one blurred or turned frame neither
 * invents a match nor loses one.
 *
 * For every sample the caller supplies each candidate identity's best similarity (the
 * identity's closest enrolled sample, on the face service's calibrated scale). Then:
 * - support(id)  = quality-weighted mean over ALL samples of that similarity (a sample in
 *                  which the identity did not appear among the candidates counts with the
 *                  similarity the caller measured for it, so absence pulls the mean down);
 * - votes(id)    = samples in which id ranked first at or above the threshold;
 * - decision     = the identity with the highest support, when its support reaches the
 *                  threshold and it holds a strict majority of the votes cast. Otherwise no
 *                  decision (null): an unknown person, or an ambiguous (split) track.
 */
export interface SampleScores {
  /** Similarity per candidate identity id for this sample. */
  scores: Map<string, number>;
  /** Quality 0-100 of the sample, when known; weights its say (unknown counts as 50). */
  quality: number | null;
}

export interface ResolvedCandidate {
  identity_id: string;
  /** Quality-weighted mean similarity over the samples. */
  similarity: number;
  votes: number;
}

export interface Resolution {
  decision: ResolvedCandidate | null;
  candidates: ResolvedCandidate[];
  samples: number;
}

const MIN_WEIGHT = 1;

export function resolveSamples(samples: SampleScores[], threshold: number): Resolution {
  const ids = new Set<string>();
  for (const s of samples) for (const id of s.scores.keys()) ids.add(id);
  const weights = samples.map((s) => Math.max(MIN_WEIGHT, s.quality ?? 50));
  const total = weights.reduce((a, b) => a + b, 0);
  const votes = new Map<string, number>();
  for (const s of samples) {
    let top: string | null = null;
    let topScore = -Infinity;
    for (const [id, v] of s.scores) {
      if (v > topScore || (v === topScore && top !== null && id < top)) {
        top = id;
        topScore = v;
      }
    }
    if (top !== null && topScore >= threshold) votes.set(top, (votes.get(top) ?? 0) + 1);
  }
  const candidates: ResolvedCandidate[] = [...ids].map((id) => {
    let acc = 0;
    samples.forEach((s, i) => (acc += weights[i]! * (s.scores.get(id) ?? 0)));
    return { identity_id: id, similarity: total > 0 ? acc / total : 0, votes: votes.get(id) ?? 0 };
  });
  candidates.sort((a, b) => b.similarity - a.similarity || b.votes - a.votes || (a.identity_id < b.identity_id ? -1 : 1));
  const best = candidates[0];
  const cast = [...votes.values()].reduce((a, b) => a + b, 0);
  const decision = best && best.similarity >= threshold && best.votes * 2 > cast ? best : null;
  return { decision, candidates, samples: samples.length };
}
