import { Type } from 'typebox';

export const DocumentSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve the /documents endpoints.' }),
    enable_ocr: Type.Boolean({ default: true, description: 'Run OCR (PP-OCRv4 detection + recognition).' }),
    enable_mrz: Type.Boolean({ default: true, description: 'Locate and parse machine-readable zones.' }),
    enable_face_extraction: Type.Boolean({ default: true, description: 'Look for the portrait on scanned documents.' }),
    models_dir: Type.String({ default: '', description: 'Folder of the OCR model files; empty means the models/ folder of the installation.' }),
  },
  { additionalProperties: false, default: {} },
);
