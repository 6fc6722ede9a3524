import { Type } from 'typebox';
import { errorResponses } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import type { CameraManager } from './camera-manager.js';
import type { RuleView } from './counting/rules.js';
import { BadRequestError } from '../../core/errors.js';
import { BUCKETS, bucketStart } from './count-history.js';
import {
  CameraIdParams,
  CameraSchema,
  CountsResponse,
  CreateCameraBody,
  CreateLineBody,
  CreateZoneBody,
  HistoryQuery,
  HistoryResponse,
  LineSchema,
  RemovedCamera,
  RemovedRule,
  ResetBody,
  RuleParams,
  ZoneSchema,
} from './schema.js';

const tags = ['video'];

/** A line or zone as the API shows it: the rule with its counts. */
function ruleBody<V extends RuleView>(v: V): V['rule'] & { counts: V['counts'] } {
  return { ...v.rule, counts: v.counts };
}

/** /api/v1/video: the spec's camera endpoints plus counting lines, zones and counts. */
export function videoRoutes(app: RouteScope, manager: () => CameraManager, trackingState: () => { tracking: boolean; detail: string }): void {
  app.post(
    '/api/v1/video/cameras',
    {
      schema: {
        tags,
        summary: 'Add a camera (RTSP URL, absolute file path or device index); 409 if camera_id exists',
        body: CreateCameraBody,
        response: { 201: CameraSchema, ...errorResponses(400, 409, 422, 503) },
      },
    },
    async (req, reply) => reply.status(201).send(await manager().add(req.body)),
  );

  app.get('/api/v1/video/cameras', { schema: { tags, summary: 'List cameras', response: { 200: Type.Array(CameraSchema), ...errorResponses(503) } } }, async () => manager().list());

  app.get('/api/v1/video/cameras/:camera_id', { schema: { tags, summary: 'One camera', params: CameraIdParams, response: { 200: CameraSchema, ...errorResponses(404, 503) } } }, async (req) =>
    manager().get(req.params.camera_id),
  );

  app.delete(
    '/api/v1/video/cameras/:camera_id',
    {
      schema: { tags, summary: 'Remove a camera with its rules and counts', params: CameraIdParams, response: { 200: RemovedCamera, ...errorResponses(404, 503) } },
    },
    async (req) => {
      await manager().remove(req.params.camera_id);
      return { removed: req.params.camera_id };
    },
  );

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(
      `/api/v1/video/cameras/:camera_id/${action}`,
      {
        schema: {
          tags,
          summary: enabled
            ? 'Start a disabled camera again (a file that had played out plays again); no change if it is enabled'
            : 'Stop a camera without removing it (status stopped, kept across restarts); its rules and counts stay',
          params: CameraIdParams,
          response: { 200: CameraSchema, ...errorResponses(400, 404, 503, 507) },
        },
      },
      async (req) => manager().setEnabled(req.params.camera_id, enabled),
    );
  }

  app.get(
    '/api/v1/video/cameras/:camera_id/snapshot',
    {
      schema: {
        tags,
        summary: 'Latest frame as image/jpeg (at the detector resolution); 404 when the camera is unknown or has no frame',
        params: CameraIdParams,
        response: errorResponses(404, 503),
      },
    },
    async (req, reply) =>
      reply
        .type('image/jpeg')
        .header('cache-control', 'no-store')
        .send(await manager().snapshot(req.params.camera_id)),
  );

  // ---- lines ----
  app.post(
    '/api/v1/video/cameras/:camera_id/lines',
    {
      schema: { tags, summary: 'Add a counting line', params: CameraIdParams, body: CreateLineBody, response: { 201: LineSchema, ...errorResponses(400, 404, 409, 503) } },
    },
    async (req, reply) => reply.status(201).send(ruleBody(await manager().addRule(req.params.camera_id, 'line', req.body))),
  );
  app.get(
    '/api/v1/video/cameras/:camera_id/lines',
    { schema: { tags, summary: 'Counting lines with their counts', params: CameraIdParams, response: { 200: Type.Array(LineSchema), ...errorResponses(404, 503) } } },
    async (req) => manager().rules(req.params.camera_id, 'line').map(ruleBody),
  );
  app.delete(
    '/api/v1/video/cameras/:camera_id/lines/:rule_id',
    { schema: { tags, summary: 'Delete a counting line and its counts', params: RuleParams, response: { 200: RemovedRule, ...errorResponses(404, 503) } } },
    async (req) => {
      await manager().removeRule(req.params.camera_id, 'line', req.params.rule_id);
      return { removed: req.params.rule_id };
    },
  );

  // ---- zones ----
  app.post(
    '/api/v1/video/cameras/:camera_id/zones',
    {
      schema: { tags, summary: 'Add a polygon zone', params: CameraIdParams, body: CreateZoneBody, response: { 201: ZoneSchema, ...errorResponses(400, 404, 409, 503) } },
    },
    async (req, reply) => reply.status(201).send(ruleBody(await manager().addRule(req.params.camera_id, 'zone', req.body))),
  );
  app.get(
    '/api/v1/video/cameras/:camera_id/zones',
    { schema: { tags, summary: 'Zones with their counts', params: CameraIdParams, response: { 200: Type.Array(ZoneSchema), ...errorResponses(404, 503) } } },
    async (req) => manager().rules(req.params.camera_id, 'zone').map(ruleBody),
  );
  app.delete(
    '/api/v1/video/cameras/:camera_id/zones/:rule_id',
    { schema: { tags, summary: 'Delete a zone and its counts', params: RuleParams, response: { 200: RemovedRule, ...errorResponses(404, 503) } } },
    async (req) => {
      await manager().removeRule(req.params.camera_id, 'zone', req.params.rule_id);
      return { removed: req.params.rule_id };
    },
  );

  // ---- counts ----
  const counts = (cameraId: string) => {
    const t = trackingState();
    return {
      camera_id: cameraId,
      tracking: t.tracking,
      tracking_detail: t.detail,
      lines: manager()
        .rules(cameraId, 'line')
        .map(({ rule, counts: c }) => ({ rule_id: rule.rule_id, name: rule.name, in_label: rule.in_label, out_label: rule.out_label, in: c.in, out: c.out })),
      zones: manager()
        .rules(cameraId, 'zone')
        .map(({ rule, counts: c }) => ({ rule_id: rule.rule_id, name: rule.name, entered: c.entered, exited: c.exited, occupancy: c.occupancy })),
    };
  };
  app.get(
    '/api/v1/video/cameras/:camera_id/counts',
    { schema: { tags, summary: 'Counts of every line and zone of the camera', params: CameraIdParams, response: { 200: CountsResponse, ...errorResponses(404, 503) } } },
    async (req) => counts(req.params.camera_id),
  );
  app.post(
    '/api/v1/video/cameras/:camera_id/counts/reset',
    {
      schema: {
        tags,
        summary: 'Zero the in/out and entered/exited counts (all rules, or body.rule_id); occupancy is live and stays',
        params: CameraIdParams,
        body: ResetBody,
        response: { 200: CountsResponse, ...errorResponses(400, 404, 503) },
      },
    },
    async (req) => {
      await manager().resetCounts(req.params.camera_id, req.body?.rule_id);
      return counts(req.params.camera_id);
    },
  );

  app.get(
    '/api/v1/video/cameras/:camera_id/counts/history',
    {
      schema: {
        tags,
        summary: 'Counts per time bucket (15m, 1h, 1d) of every line and zone, or one (rule_id); paginated with next_from',
        params: CameraIdParams,
        querystring: HistoryQuery,
        response: { 200: HistoryResponse, ...errorResponses(400, 404, 503) },
      },
    },
    async (req) => {
      const q = req.query;
      const to = q.to === undefined ? Date.now() : parseTime(q.to, 'to');
      const from = bucketStart(q.from === undefined ? to - 86_400_000 : parseTime(q.from, 'from'), BUCKETS[q.bucket ?? '1h']);
      if (from >= to) throw new BadRequestError('INVALID_RANGE', '`from` must be before `to`');
      const bucket = q.bucket ?? '1h';
      const page = manager().history(req.params.camera_id, from, to, bucket, q.limit ?? 500, q.rule_id);
      return {
        camera_id: req.params.camera_id,
        bucket,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        rows: page.rows,
        next_from: page.next === null ? null : new Date(page.next).toISOString(),
      };
    },
  );
}

/** An ISO 8601 time (a date alone is midnight UTC); anything else is a 400. */
function parseTime(text: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw new BadRequestError('INVALID_RANGE', `\`${name}\` is not an ISO 8601 time: ${JSON.stringify(text).slice(0, 60)}`);
  return ms;
}
