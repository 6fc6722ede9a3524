import type { Metrics } from '../../core/metrics.js';
import type { CameraStatus } from './camera-stream.js';
import type { CameraManager, CameraStats } from './camera-manager.js';

const STATUSES: readonly CameraStatus[] = ['starting', 'running', 'restarting', 'failed', 'ended', 'stopped'];

/**
 * The video module's series, all read from the camera manager at scrape time (one
 * stats() walk per scrape, shared by every gauge of that scrape). Labels: camera_id
 * (at most video.max_cameras) and rule_id (the rules an operator configured).
 */
export function registerVideoMetrics(metrics: Metrics, manager: CameraManager): void {
  if (!metrics.enabled) return;
  // prom-client calls each collect in turn within one scrape: take the snapshot once.
  let snapshot: { at: number; stats: CameraStats[] } = { at: 0, stats: [] };
  const stats = () => {
    const now = performance.now();
    if (now - snapshot.at > 100) snapshot = { at: now, stats: manager.stats() };
    return snapshot.stats;
  };
  const cam = ['camera_id'] as const;
  const rule = ['camera_id', 'rule_id', 'rule_name'] as const;
  metrics.counterFrom('vigil_camera_frames_total', 'Frames decoded from the camera since the daemon started.', cam, (set) => {
    for (const c of stats()) set({ camera_id: c.camera_id }, c.frames);
  });
  metrics.counterFrom('vigil_camera_dropped_frames_total', 'Frames skipped before detection because a newer frame of the camera superseded them.', cam, (set) => {
    for (const c of stats()) set({ camera_id: c.camera_id }, c.dropped);
  });
  metrics.counterFrom('vigil_camera_restarts_total', 'ffmpeg restarts of the camera since the daemon started.', cam, (set) => {
    for (const c of stats()) set({ camera_id: c.camera_id }, c.restarts);
  });
  metrics.gauge('vigil_camera_fps', 'Frames per second arriving from the camera (last seconds).', cam, (set) => {
    for (const c of stats()) set({ camera_id: c.camera_id }, c.fps);
  });
  metrics.gauge('vigil_camera_processed_fps', 'Frames per second through detection and tracking (last seconds).', cam, (set) => {
    for (const c of stats()) set({ camera_id: c.camera_id }, c.processed_fps);
  });
  metrics.gauge('vigil_camera_status', 'One series per camera and status; 1 for the current status, 0 for the others.', ['camera_id', 'status'], (set) => {
    for (const c of stats()) for (const s of STATUSES) set({ camera_id: c.camera_id, status: s }, c.status === s ? 1 : 0);
  });
  metrics.counterFrom('vigil_line_crossings_total', 'Counting line totals by direction (in, out); reset by the counts reset endpoint.', [...rule, 'direction'], (set) => {
    for (const c of stats()) {
      for (const { rule: r, counts } of c.rules) {
        if (r.type !== 'line' || !('in' in counts)) continue;
        set({ camera_id: c.camera_id, rule_id: r.rule_id, rule_name: r.name, direction: 'in' }, counts.in);
        set({ camera_id: c.camera_id, rule_id: r.rule_id, rule_name: r.name, direction: 'out' }, counts.out);
      }
    }
  });
  metrics.counterFrom('vigil_zone_transitions_total', 'Zone totals by transition (entered, exited); reset by the counts reset endpoint.', [...rule, 'transition'], (set) => {
    for (const c of stats()) {
      for (const { rule: r, counts } of c.rules) {
        if (!('entered' in counts)) continue;
        set({ camera_id: c.camera_id, rule_id: r.rule_id, rule_name: r.name, transition: 'entered' }, counts.entered);
        set({ camera_id: c.camera_id, rule_id: r.rule_id, rule_name: r.name, transition: 'exited' }, counts.exited);
      }
    }
  });
  metrics.gauge('vigil_zone_occupancy', 'People in the zone now.', rule, (set) => {
    for (const c of stats()) {
      for (const { rule: r, counts } of c.rules) if ('occupancy' in counts) set({ camera_id: c.camera_id, rule_id: r.rule_id, rule_name: r.name }, counts.occupancy);
    }
  });
}
