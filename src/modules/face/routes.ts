import { decodeImage } from '../../core/image-decode.js';
import type { RouteScope } from '../../core/module.js';
import { errorResponses, multipartDoc } from '../../core/http-schemas.js';
import { numberField, readMultipart, requireFile } from '../../core/multipart-form.js';
import { faceDetectedData } from './face-events.js';
import { emptyTimings, type FaceService, type StageTimings } from './face-service.js';
import { DetectResponseSchema, VerifyResponseSchema } from './schema.js';

/** Server-Timing header with the per-stage breakdown (bench/face.ts reads it). */
function serverTiming(decode: number, t: StageTimings): string {
  const parts: [string, number][] = [
    ['decode', decode],
    ['detect', t.detect],
    ['detect_model', t.detect_model],
    ['align', t.align],
    ['embed', t.embed],
    ['quality', t.quality],
    ['liveness', t.liveness],
    ['demographics', t.demographics],
  ];
  return parts.map(([k, v]) => `${k};dur=${v.toFixed(2)}`).join(', ');
}

/** POST /api/v1/detect and /api/v1/verify, as the spec shows them. */
export async function faceRoutes(app: RouteScope, service: FaceService): Promise<void> {
  const { config, bus } = app.vigil;
  const maxPixels = config.server.max_image_pixels;

  app.post(
    '/api/v1/detect',
    {
      schema: {
        tags: ['face'],
        summary: 'Detect faces (largest first) with landmarks, quality, demographics and passive liveness',
        consumes: ['multipart/form-data'],
        response: { 200: DetectResponseSchema, ...errorResponses(400, 413, 415, 503) },
      },
      config: { multipartDoc: multipartDoc([{ name: 'image', file: true, required: true, description: 'Image' }]) },
    },
    async (request, reply) => {
      const form = await readMultipart(request);
      const file = requireFile(form, 'image');
      const t0 = performance.now();
      const img = await decodeImage(file, { field: 'image', maxPixels });
      const decodeMs = performance.now() - t0;
      const timings = emptyTimings();
      const faces = (await service.analyze(img, { timings })).map((f) => f.result);
      if (faces.length > 0) bus.emit('face_detected', 'face', faceDetectedData('detect', faces));
      reply.header('server-timing', serverTiming(decodeMs, timings));
      return { faces, count: faces.length };
    },
  );

  app.post(
    '/api/v1/verify',
    {
      schema: {
        tags: ['face'],
        summary: 'Compare the largest faces of two images (1:1)',
        consumes: ['multipart/form-data'],
        response: { 200: VerifyResponseSchema, ...errorResponses(400, 413, 415, 422, 503) },
      },
      config: {
        multipartDoc: multipartDoc([
          { name: 'image1', file: true, required: true, description: 'Image' },
          { name: 'image2', file: true, required: true, description: 'Image' },
          { name: 'threshold', type: 'number', description: 'Calibrated similarity threshold in [0, 1] (default 0.4: FAR about 1e-6 on the spec table)' },
        ]),
      },
    },
    async (request, reply) => {
      const form = await readMultipart(request);
      const file1 = requireFile(form, 'image1');
      const file2 = requireFile(form, 'image2');
      const threshold = numberField(form, 'threshold', { default: 0.4, min: 0, max: 1 });
      const t0 = performance.now();
      const [img1, img2] = await Promise.all([decodeImage(file1, { field: 'image1', maxPixels }), decodeImage(file2, { field: 'image2', maxPixels })]);
      const decodeMs = performance.now() - t0;
      const timings = emptyTimings();
      // Both images at once, so the inference pool runs their models side by side. Verify
      // faces carry detection, quality and liveness; demographics stays null (the spec's
      // verify face carries detection and quality, and age is no part of a match).
      const opts = { timings, demographics: false };
      const [r1, r2] = await Promise.allSettled([service.largest(img1, 'image1', opts), service.largest(img2, 'image2', opts)]);
      // image1's error first, whichever finished first, so the answer does not depend on timing.
      if (r1.status === 'rejected') throw r1.reason;
      if (r2.status === 'rejected') throw r2.reason;
      const [face1, face2] = [r1.value, r2.value];
      const similarity = service.similarity(face1.embedding!, face2.embedding!);
      bus.emit('face_detected', 'face', faceDetectedData('verify', [face1.result, face2.result]));
      reply.header('server-timing', serverTiming(decodeMs, timings));
      return { is_match: similarity >= threshold, similarity, face1: face1.result, face2: face2.result };
    },
  );
}
