import { Type } from 'typebox';

/**
 * Admission control and decode budgets (docs/security.md, "Bounded resources"). Not a spec
 * module: these bound what a burst of clients can make the daemon hold at once.
 */
export const LimitsSection = Type.Object(
  {
    inference_concurrency: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 256,
      description:
        'Requests of one endpoint class (face, document, liveness, identity) processed at once; 0 = 2, or 1 with a single inference worker (one request already spreads over every core, so more at once only share them). Others wait in that class queue.',
    }),
    inference_queue: Type.Integer({
      // Each request admitted ahead of a new one adds about one lone-request time to its
      // latency (a lone request already uses every core), so concurrency + queue bounds the
      // admitted latency in lone-request times: 2 + 0 keeps p99 within 3x (bench/overload.ts).
      default: 0,
      minimum: 0,
      maximum: 10_000,
      description:
        'Requests of one endpoint class waiting for a slot; past it the request is refused with 503 BUSY and Retry-After before its body is read. Each one waiting adds about one lone-request time to the latency of those behind it.',
    }),
    queue_wait_ms: Type.Integer({
      default: 10_000,
      minimum: 10,
      description: 'Longest wait in an endpoint class queue; past it the request is refused with 503 BUSY and Retry-After.',
    }),
    max_pixels_in_flight: Type.Integer({
      default: 80_000_000,
      minimum: 1,
      description: 'Decoded pixels (width x height over all images being decoded at once); a decode waits until the budget has room (one image larger than the budget runs alone).',
    }),
    max_jpeg_scans: Type.Integer({
      default: 32,
      minimum: 1,
      maximum: 10_000,
      description:
        'Most scans a JPEG may have (baseline JPEGs have 1, progressive ones from common encoders 5 to 14 in the shared test data); each scan is a full pass over the image, so more answer 413 JPEG_TOO_COMPLEX.',
    }),
  },
  { additionalProperties: false, default: {} },
);
