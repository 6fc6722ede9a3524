import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { createVigilClient, formData, type VigilClient } from '../../clients/typescript/index.js';
import { CLIENT_DIR, clientSchemaSource, liveOpenApi } from '../../scripts/generate-client.js';
import { spawnDaemon, type Daemon } from '../helpers/daemon.js';
import { testdata } from '../helpers/paths.js';

const committedDoc = JSON.parse(readFileSync(join(CLIENT_DIR, 'openapi.json'), 'utf8')) as { components: { schemas: Record<string, unknown> } };
const jpeg = (...p: string[]) => new Blob([readFileSync(testdata(...p))], { type: 'image/jpeg' });

describe('typed TypeScript client (clients/typescript)', () => {
  it('is generated from the OpenAPI document the daemon serves now', async () => {
    const live = await liveOpenApi();
    assert.deepEqual(committedDoc, live, 'regenerate with: node --import tsx scripts/generate-client.ts');
    assert.equal(readFileSync(join(CLIENT_DIR, 'schema.ts'), 'utf8'), await clientSchemaSource(committedDoc), 'regenerate with: node --import tsx scripts/generate-client.ts');
  });

  describe('drives the running daemon', () => {
    let daemon: Daemon;
    let vigil: VigilClient;
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-client-'));

    before(async () => {
      daemon = await spawnDaemon({ VIGIL_DATA_DIR: dataDir, VIGIL_VIDEO_ENABLED: 'true', VIGIL_VIDEO_FILE_ROOTS: testdata(), VIGIL_LOG_LEVEL: 'warn' }, { timeoutMs: 120_000 });
      vigil = createVigilClient(daemon.url);
    });
    after(async () => {
      daemon?.proc.kill('SIGTERM');
      await daemon?.exited;
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('detects, enrols and identifies a face', async () => {
      const detected = await vigil.POST('/api/v1/detect', { body: { image: jpeg('faces', 'identities', 'fr_barack_obama', 'obama.jpg') }, bodySerializer: formData });
      assert.equal(detected.response.status, 200, JSON.stringify(detected.error));
      const box: number[] = detected.data!.faces[0]!.detection.bbox;
      assert.equal(detected.data!.count, 1);
      assert.equal(box.length, 4);

      const enrolled = await vigil.POST('/api/v1/watchlist/enroll', {
        body: { image: jpeg('faces', 'identities', 'fr_barack_obama', 'obama.jpg'), label: 'Barack Obama' },
        bodySerializer: formData,
      });
      assert.equal(enrolled.response.status, 200, JSON.stringify(enrolled.error));
      const id: string = enrolled.data!.identity_id;

      const identified = await vigil.POST('/api/v1/identify', { body: { image: jpeg('faces', 'identities', 'fr_barack_obama', 'obama1.jpg') }, bodySerializer: formData });
      assert.equal(identified.response.status, 200, JSON.stringify(identified.error));
      assert.equal(identified.data!.matches[0]?.identity_id, id);
      assert.ok(identified.data!.matches[0]!.similarity >= 0.4);

      // Errors come back typed, in the error shape.
      const missing = await vigil.DELETE('/api/v1/watchlist/{identity_id}', { params: { path: { identity_id: 'nobody' } } });
      assert.equal(missing.response.status, 404);
      assert.equal(missing.error?.code, 'IDENTITY_NOT_FOUND');
    });

    it('adds a camera with a counting line and reads its counts and events', async () => {
      const cam = await vigil.POST('/api/v1/video/cameras', { body: { camera_id: 'hall', source: testdata('video', 'PETS09-S2L1', 'vtest.avi'), loop: true } });
      assert.equal(cam.response.status, 201, JSON.stringify(cam.error));
      const line = await vigil.POST('/api/v1/video/cameras/{camera_id}/lines', {
        params: { path: { camera_id: 'hall' } },
        body: {
          rule_id: 'walkway',
          points: [
            [0, 0.5],
            [1, 0.5],
          ],
          in_label: 'south',
          out_label: 'north',
        },
      });
      assert.equal(line.response.status, 201, JSON.stringify(line.error));
      let crossed = 0;
      for (let i = 0; i < 120 && crossed === 0; i++) {
        await sleep(1000);
        const counts = await vigil.GET('/api/v1/video/cameras/{camera_id}/counts', { params: { path: { camera_id: 'hall' } } });
        const walkway = counts.data!.lines.find((l) => l.rule_id === 'walkway')!;
        crossed = walkway.in + walkway.out;
      }
      assert.ok(crossed > 0, 'nobody crossed the walkway line in two minutes of PETS09-S2L1');

      const events = await vigil.GET('/api/v1/events/recent', { params: { query: { event_type: 'line_crossed', limit: 10 } } });
      assert.ok(events.data!.length > 0);
      // The events the camera emitted match the payload schema the OpenAPI document gives them.
      const ajv = new Ajv({ strict: false });
      addFormats.default(ajv);
      const validate = ajv.compile(committedDoc.components.schemas.Event_line_crossed as object);
      for (const e of events.data!) assert.ok(validate(e), `${ajv.errorsText(validate.errors)} in ${JSON.stringify(e)}`);

      const removed = await vigil.DELETE('/api/v1/video/cameras/{camera_id}', { params: { path: { camera_id: 'hall' } } });
      assert.equal(removed.response.status, 200);
    });
  });
});
