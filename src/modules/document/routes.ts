import type { FastifyRequest } from 'fastify';
import { ServiceUnavailableError } from '../../core/errors.js';
import { decodeImage, type RgbImage } from '../../core/image-decode.js';
import { errorResponses, multipartDoc } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import { numberField, readMultipart, requireFile, type MultipartForm } from '../../core/multipart-form.js';
import { documentScannedData } from './document-events.js';
import type { DocumentService } from './document-service.js';
import type { DocumentModule } from './plugin.js';
import { DocumentVerifySchema, MrzResultSchema, OcrResultSchema, ScanResultSchema } from './schema.js';

const IMAGE_FIELD = [{ name: 'image', file: true, required: true, description: 'Photo or scan of the document' }];

/** POST /api/v1/documents/{scan,ocr,mrz,verify}, as the spec shows them. */
export async function documentRoutes(app: RouteScope, module: DocumentModule): Promise<void> {
  const { config, bus } = app.vigil;
  const maxPixels = config.server.max_image_pixels;

  /** The reader, or why it cannot answer (models missing). */
  const ready = (): DocumentService => {
    const s = module.reader;
    if (!s) throw new ServiceUnavailableError('MODEL_UNAVAILABLE', `the document models are unavailable: ${module.failure}`, { component: 'document_detector' });
    return s;
  };
  const image = async (form: MultipartForm, field: string): Promise<RgbImage> => decodeImage(requireFile(form, field), { field, maxPixels });
  const formOf = async (request: FastifyRequest) => {
    ready();
    return readMultipart(request);
  };

  app.post(
    '/api/v1/documents/scan',
    {
      schema: {
        tags: ['document'],
        summary: 'Full scan: outline and rectification, OCR, MRZ (null when absent) and portrait presence',
        consumes: ['multipart/form-data'],
        response: { 200: ScanResultSchema, ...errorResponses(400, 413, 415, 503) },
      },
      config: { multipartDoc: multipartDoc(IMAGE_FIELD) },
    },
    async (request) => {
      const form = await formOf(request);
      const scan = await ready().scan(await image(form, 'image'));
      bus.emit('document_scanned', 'document', documentScannedData({ ...scan, ocrLines: scan.ocr.lines.length }));
      return scan;
    },
  );

  app.post(
    '/api/v1/documents/ocr',
    {
      schema: {
        tags: ['document'],
        summary: 'Read all text (PP-OCRv4), lines in reading order',
        consumes: ['multipart/form-data'],
        response: { 200: OcrResultSchema, ...errorResponses(400, 413, 415, 503) },
      },
      config: { multipartDoc: multipartDoc(IMAGE_FIELD) },
    },
    async (request) => {
      const form = await formOf(request);
      return ready().ocr(await image(form, 'image'));
    },
  );

  app.post(
    '/api/v1/documents/mrz',
    {
      schema: {
        tags: ['document'],
        summary: 'Read and parse the machine-readable zone (TD1, TD2, TD3, MRV-A, MRV-B); 422 NO_MRZ when there is none',
        consumes: ['multipart/form-data'],
        response: { 200: MrzResultSchema, ...errorResponses(400, 413, 415, 422, 503) },
      },
      config: { multipartDoc: multipartDoc(IMAGE_FIELD) },
    },
    async (request) => {
      const form = await formOf(request);
      return ready().mrz(await image(form, 'image'));
    },
  );

  app.post(
    '/api/v1/documents/verify',
    {
      schema: {
        tags: ['document'],
        summary: "Match the document's portrait against a selfie; 422 NO_FACE names the image without a face",
        consumes: ['multipart/form-data'],
        response: { 200: DocumentVerifySchema, ...errorResponses(400, 413, 415, 422, 503) },
      },
      config: {
        multipartDoc: multipartDoc([
          { name: 'document', file: true, required: true, description: 'The document with its portrait' },
          { name: 'selfie', file: true, required: true, description: 'The person' },
          { name: 'threshold', type: 'number', description: 'Calibrated similarity threshold in [0, 1] (default 0.4)' },
        ]),
      },
    },
    async (request) => {
      const form = await formOf(request);
      requireFile(form, 'document');
      requireFile(form, 'selfie');
      const threshold = numberField(form, 'threshold', { default: 0.4, min: 0, max: 1 });
      const [doc, selfie] = await Promise.all([image(form, 'document'), image(form, 'selfie')]);
      return ready().verify(doc, selfie, threshold);
    },
  );
}
