import { useState } from 'preact/hooks';
import { api, errorText, type FaceResult } from '../api.js';
import { Badge, Card, Empty, ErrorNote } from '../components.js';
import { ImageOverlay, useObjectUrl } from '../image-overlay.js';

interface OcrLine {
  text: string;
  bbox: [number, number, number, number];
  confidence: number;
}
interface Scan {
  detected: boolean;
  ocr: { full_text: string; lines: OcrLine[]; confidence: number };
  mrz: Record<string, unknown> | null;
  has_face: boolean;
}

const MRZ_FIELDS: [string, string][] = [
  ['mrz_type', 'MRZ type'],
  ['document_code', 'Document code'],
  ['document_number', 'Document number'],
  ['surname', 'Surname'],
  ['given_names', 'Given names'],
  ['nationality', 'Nationality'],
  ['date_of_birth', 'Date of birth'],
  ['sex', 'Sex'],
  ['expiry_date', 'Expiry date'],
  ['issuing_country', 'Issuing country'],
  ['check_digits_valid', 'Check digits valid'],
];

/** The portrait cut out of the upload with a canvas, at the box /detect found. */
async function cropFace(file: File, face: FaceResult): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const [x1, y1, x2, y2] = face.detection.bbox;
  const pad = (x2 - x1) * 0.25;
  const sx = Math.max(0, x1 - pad);
  const sy = Math.max(0, y1 - pad);
  const sw = Math.min(bitmap.width - sx, x2 - x1 + 2 * pad);
  const sh = Math.min(bitmap.height - sy, y2 - y1 + 2 * pad);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(sw);
  canvas.height = Math.round(sh);
  canvas.getContext('2d')!.drawImage(bitmap, sx, sy, sw, sh, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/jpeg', 0.9);
}

export function Documents() {
  const [file, setFile] = useState<File | null>(null);
  const url = useObjectUrl(file);
  const [scan, setScan] = useState<Scan | null>(null);
  const [portrait, setPortrait] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setError(null);
    setScan(null);
    setPortrait(null);
    setBusy(true);
    try {
      const form = new FormData();
      form.append('image', file);
      const result = await api.form<Scan>('/documents/scan', form);
      setScan(result);
      if (result.has_face) {
        // The scan says whether there is a portrait; /detect gives its box for the crop.
        const f = new FormData();
        f.append('image', file);
        const faces = await api.form<{ faces: FaceResult[] }>('/detect', f).catch(() => ({ faces: [] }));
        const best = faces.faces.sort((a, b) => area(b) - area(a))[0];
        if (best) setPortrait(await cropFace(file, best));
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="grid wide-first">
      <Card title="Scan a document">
        <form class="inline" onSubmit={(e) => void submit(e)}>
          <input type="file" name="image" accept="image/jpeg,image/png" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          <button type="submit" disabled={busy || !file}>
            {busy ? 'Scanning…' : 'Scan'}
          </button>
        </form>
        <ErrorNote error={error} />
        {url && (
          <ImageOverlay src={url} alt="Document">
            {() =>
              scan?.ocr.lines.map((l, i) => (
                <rect key={i} x={l.bbox[0]} y={l.bbox[1]} width={l.bbox[2] - l.bbox[0]} height={l.bbox[3] - l.bbox[1]} class="ocrbox">
                  <title>
                    {l.text} ({(l.confidence * 100).toFixed(0)}%)
                  </title>
                </rect>
              ))
            }
          </ImageOverlay>
        )}
      </Card>
      <div class="stack">
        <Card
          title="Machine-readable zone"
          actions={scan && <Badge ok={scan.mrz ? scan.mrz.check_digits_valid === true : null}>{scan.mrz ? (scan.mrz.check_digits_valid ? 'check digits valid' : 'check digits fail') : 'none'}</Badge>}
        >
          {!scan && <Empty>Upload a passport, ID card or visa.</Empty>}
          {scan && !scan.mrz && <Empty>No machine-readable zone was read on this image.</Empty>}
          {scan?.mrz && (
            <table data-testid="mrz">
              <tbody>
                {MRZ_FIELDS.map(([k, label]) => (
                  <tr key={k} data-field={k}>
                    <th>{label}</th>
                    <td>{String(scan.mrz![k] ?? '')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {scan?.mrz && <pre class="mrz">{(scan.mrz.raw_mrz as string[]).join('\n')}</pre>}
        </Card>
        <Card title="Portrait">
          {scan && !scan.has_face && <Empty>No portrait found on the document.</Empty>}
          {scan?.has_face && !portrait && <Empty>The scan found a portrait; face detection could not locate it for a crop.</Empty>}
          {portrait && <img class="portrait" src={portrait} alt="Document portrait" />}
        </Card>
        {scan && (
          <Card title={`Text (${scan.ocr.lines.length} lines, ${(scan.ocr.confidence * 100).toFixed(0)}%)`}>
            <pre class="ocr">{scan.ocr.full_text}</pre>
          </Card>
        )}
      </div>
    </div>
  );
}

const area = (f: FaceResult) => (f.detection.bbox[2] - f.detection.bbox[0]) * (f.detection.bbox[3] - f.detection.bbox[1]);
