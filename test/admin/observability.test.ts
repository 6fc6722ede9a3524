import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { testApp, type TestApp } from '../helpers/app.js';
import { Prometheus } from '../helpers/prometheus.js';
import { VideoStore, videoStoreDir } from '../../src/modules/video/video-store.js';
import { packageRoot } from '../../src/core/package-root.js';

const DEAD_RTSP = 'rtsp://127.0.0.1:9/nothing-here';

/** Value of the first exposition line of `name` whose labels include every `labels` pair. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('observability: /metrics, health, version, request ids', () => {
  let t: TestApp;
  let dataDir: string;
  before(async () => {
    // Counts persisted by a previous run: the metrics must show them, not zeros.
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-obs-'));
    const first = await testApp({ video: { enabled: true } }, {}, dataDir);
    const cam = await first.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 'door', source: DEAD_RTSP } });
    assert.equal(cam.statusCode, 201, cam.body);
    const line = {
      rule_id: 'entrance',
      name: 'Entrance',
      points: [
        [0.1, 0.5],
        [0.9, 0.5],
      ],
    };
    const zone = {
      rule_id: 'lobby',
      points: [
        [0.1, 0.1],
        [0.9, 0.1],
        [0.9, 0.9],
        [0.1, 0.9],
      ],
    };
    assert.equal((await first.app.inject({ method: 'POST', url: '/api/v1/video/cameras/door/lines', payload: line })).statusCode, 201);
    assert.equal((await first.app.inject({ method: 'POST', url: '/api/v1/video/cameras/door/zones', payload: zone })).statusCode, 201);
    await first.close();
    const store = new VideoStore(videoStoreDir(dataDir));
    store.open();
    await store.putCounts('door', 'entrance', { in: 7, out: 3 });
    await store.putCounts('door', 'lobby', { entered: 5, exited: 2 });
    await store.close();
    t = await testApp({ video: { enabled: true } }, {}, dataDir);
  });
  after(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('GET /metrics: route templates (never raw ids), cameras, rules, events, process figures', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door' });
    await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/no-such-camera' });
    await t.app.inject({ method: 'GET', url: '/nope/123' });
    t.app.vigil.bus.emit('system_error', 'test', { module: 'test', message: 'metrics test' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const m = res.body;
    const route = '/api/v1/video/cameras/:camera_id';
    assert.equal(sample(m, 'vigil_http_request_duration_seconds_count', { route, status: '200' }), 1);
    assert.equal(sample(m, 'vigil_http_request_duration_seconds_count', { route, status: '404' }), 1);
    assert.equal(sample(m, 'vigil_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }), 1);
    assert.doesNotMatch(m, /no-such-camera|nope\/123/, 'raw paths never become labels');
    assert.equal(sample(m, 'vigil_line_crossings_total', { camera_id: 'door', rule_id: 'entrance', direction: 'in' }), 7);
    assert.equal(sample(m, 'vigil_line_crossings_total', { camera_id: 'door', rule_id: 'entrance', direction: 'out' }), 3);
    assert.equal(sample(m, 'vigil_zone_transitions_total', { rule_id: 'lobby', transition: 'entered' }), 5);
    assert.equal(sample(m, 'vigil_zone_transitions_total', { rule_id: 'lobby', transition: 'exited' }), 2);
    assert.equal(sample(m, 'vigil_zone_occupancy', { rule_id: 'lobby' }), 0);
    assert.equal(sample(m, 'vigil_camera_status', { camera_id: 'door', status: 'running' }), 0);
    const states = ['starting', 'restarting', 'failed'].map((s) => sample(m, 'vigil_camera_status', { camera_id: 'door', status: s }));
    assert.equal(
      states.reduce((a, b) => a! + b!, 0),
      1,
      'exactly one current status',
    );
    assert.ok(sample(m, 'vigil_camera_frames_total', { camera_id: 'door' }) === 0);
    assert.ok(sample(m, 'vigil_camera_restarts_total', { camera_id: 'door' }) !== undefined);
    assert.equal(sample(m, 'vigil_events_total', { type: 'system_error' }), 1);
    assert.ok(sample(m, 'vigil_inference_duration_seconds_count', { model: 'face_det_scrfd_500m' })! >= 1, 'warm-up runs are measured');
    assert.ok(sample(m, 'vigil_inference_queue_wait_seconds_count', { model: 'person_det_yolox_nano' })! >= 1);
    assert.equal(sample(m, 'vigil_webhook_outbox_pending'), 0);
    assert.ok(sample(m, 'vigil_nodejs_eventloop_lag_seconds') !== undefined);
    assert.ok(sample(m, 'vigil_process_resident_memory_bytes')! > 0);
    // A removed camera's series go with it.
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/door' })).statusCode, 200);
    await new Promise((r) => setTimeout(r, 150));
    const after = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.equal(sample(after, 'vigil_line_crossings_total', { camera_id: 'door' }), undefined);
    assert.equal(sample(after, 'vigil_camera_fps', { camera_id: 'door' }), undefined);
  });

  it('a real Prometheus scrapes the daemon and answers queries on its series', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const prom = new Prometheus(new URL(address).host);
    await prom.start();
    try {
      const deadline = Date.now() + 20_000;
      let http: Awaited<ReturnType<Prometheus['query']>> = [];
      while (Date.now() < deadline) {
        http = await prom.query('sum by (route) (vigil_http_request_duration_seconds_count{route="/metrics"})');
        if (http.length > 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const targets = await prom.targets();
      assert.equal(targets[0]?.health, 'up', `target: ${JSON.stringify(targets)}\n${prom.log}`);
      assert.ok(http.length === 1 && Number(http[0]!.value[1]) >= 1, JSON.stringify(http));
      const events = await prom.query('vigil_events_total{type="system_error"}');
      assert.equal(Number(events[0]?.value[1]), 1);
      const lag = await prom.query('vigil_nodejs_eventloop_lag_p99_seconds');
      assert.equal(lag.length, 1);
      const inference = await prom.query('sum(vigil_inference_duration_seconds_count) > 0');
      assert.equal(inference.length, 1);
      // The Grafana dashboard in docs/: every query parses, and every series it reads is exposed.
      const dashboard = readFileSync(join(packageRoot(), 'docs', 'grafana-vigil.json'), 'utf8');
      const exprs = [...dashboard.matchAll(/"expr": "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
      assert.ok(exprs.length >= 15);
      for (const expr of exprs) await prom.query(expr.replaceAll('$instance', '.*'));
      const exposed = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      for (const name of new Set(dashboard.match(/vigil_[a-z0-9_]+/g))) {
        const base = name.replace(/_(bucket|count|sum)$/, '');
        assert.ok(exposed.includes(`# TYPE ${base} `), `${name} used by the dashboard is not exposed`);
      }
    } finally {
      await prom.stop();
    }
  });

  it('X-Request-Id is honoured and echoed, made when absent or unusable', async () => {
    const given = await t.app.inject({ method: 'GET', url: '/api/v1/admin/config', headers: { 'x-request-id': 'lb-42.abc' } });
    assert.equal(given.headers['x-request-id'], 'lb-42.abc');
    const made = await t.app.inject({ method: 'GET', url: '/api/v1/admin/config' });
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/admin/config', headers: { 'x-request-id': 'x'.repeat(500) } });
    assert.match(String(bad.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'an over-long id is replaced');
    const error = await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/ghost', headers: { 'x-request-id': 'req-err-1' } });
    assert.equal(error.headers['x-request-id'], 'req-err-1', 'error answers carry it too');
  });

  it('version: package version, commit and every manifest model with sha256 and licence', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/version' });
    assert.equal(res.statusCode, 200);
    const v = res.json();
    assert.equal(v.version, JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version);
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: packageRoot(), encoding: 'utf8' }).stdout.trim();
    assert.equal(v.commit, head || null);
    const det = v.models.find((m: { name: string }) => m.name === 'face_det_scrfd_500m');
    assert.equal(det.loaded, true);
    assert.equal(
      det.sha256,
      createHash('sha256')
        .update(readFileSync(join(t.config.face.models_dir, det.file)))
        .digest('hex'),
    );
    assert.ok(v.models.every((m: { license: string }) => m.license.length > 0));
  });
});

describe('observability: health status code and request logging', () => {
  it('health answers 503 with the per-module state when an enabled module failed', async () => {
    const broken = await testApp({ events: { ca_file: '/nonexistent/ca.pem' } });
    try {
      const res = await broken.app.inject({ method: 'GET', url: '/api/v1/admin/health' });
      assert.equal(res.statusCode, 503);
      const h = res.json();
      assert.equal(h.healthy, false);
      assert.equal(h.status.events.state, 'failed');
      assert.match(h.status.events.reason, /cannot read CA file/);
      assert.equal(h.status.video.state, 'disabled');
      assert.equal(h.status.face.state, 'ok');
      assert.equal(h.status.face.reason, null);
    } finally {
      await broken.close();
    }
  });

  it('every log line of a request carries its reqId at the default level', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const t = await testApp({ events: { enabled: false } }, { logger: pino({ level: 'info' }, sink) });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/events/recent', headers: { 'x-request-id': 'trace-me-7' } });
      assert.equal(res.statusCode, 503);
      const mine = lines.filter((l) => l.reqId === 'trace-me-7');
      assert.ok(mine.length >= 1, `no line with the request id: ${JSON.stringify(lines.slice(-3))}`);
      assert.equal(mine[0]!.level, 40);
    } finally {
      await t.close();
    }
  });

  it('a fatal start-up error is one JSON log line, not plain text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-fatal-'));
    try {
      const cfg = join(dir, 'bad.yaml');
      writeFileSync(cfg, 'face:\n  det_thresh: 2\n');
      const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--config', cfg], { cwd: packageRoot(), encoding: 'utf8', env: { PATH: process.env.PATH } });
      assert.equal(res.status, 1);
      const out = `${res.stdout}${res.stderr}`.trim().split('\n');
      const parsed = out.map((l) => JSON.parse(l) as { level: number; msg: string });
      assert.equal(parsed.length, 1, out.join('\n'));
      assert.equal(parsed[0]!.level, 60);
      assert.match(parsed[0]!.msg, /face\.det_thresh: must be <= 1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
