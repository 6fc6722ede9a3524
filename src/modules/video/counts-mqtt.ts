import type { MqttPublisher } from '../events/mqtt-mirror.js';
import { topicSegment } from '../events/mqtt-topics.js';
import { BadRequestError } from '../../core/errors.js';
import type { CameraManager } from './camera-manager.js';
import type { CameraStatus } from './camera-stream.js';
import type { CountingRule, LineCounts, ZoneCounts } from './counting/rules.js';
import type { BucketCounts } from './count-history.js';

/**
 * Retained MQTT state of the video module, over the events module's connection:
 *   <prefix>/cameras/<camera_id>/counts/<rule_id>  the rule's current counts (JSON)
 *   <prefix>/cameras/<camera_id>/status            {status, is_running, last_error}
 *   <prefix>/cameras/<camera_id>/counts/<rule_id>/bucket  the last closed 15-minute bucket
 * Published when they change and re-published by the mirror on every reconnect, so a
 * building-management system subscribing late still reads the current numbers. A
 * deleted rule or camera gets an empty retained payload (the broker forgets the topic).
 * With mqtt.discovery each rule and camera is also a Home Assistant entity (lines: in
 * and out, total_increasing; zones: occupancy, entered, exited; cameras: status, fps),
 * removed with it. With MQTT off every call is a no-op.
 */
export class VideoMqttState {
  private readonly announced = new Set<string>();

  constructor(private readonly mqtt: MqttPublisher | undefined) {}

  private static countsTopic(cameraId: string, ruleId: string): string {
    return `cameras/${topicSegment(cameraId)}/counts/${topicSegment(ruleId)}`;
  }

  private static statusTopic(cameraId: string): string {
    return `cameras/${topicSegment(cameraId)}/status`;
  }

  counts(cameraId: string, rule: CountingRule, counts: LineCounts | ZoneCounts): void {
    if (!this.mqtt?.enabled) return;
    const base = { camera_id: cameraId, rule_id: rule.rule_id, type: rule.type, name: rule.name, updated_at: new Date().toISOString() };
    const payload = rule.type === 'line' ? { ...base, in_label: rule.in_label, out_label: rule.out_label, ...counts } : { ...base, ...counts };
    this.mqtt.publishState(VideoMqttState.countsTopic(cameraId, rule.rule_id), payload);
    this.announceRule(cameraId, rule);
  }

  /** A 15-minute bucket closed: its counts, retained, one topic per rule. */
  bucket(cameraId: string, rule: CountingRule, startMs: number, endMs: number, c: BucketCounts): void {
    if (!this.mqtt?.enabled) return;
    const base = { camera_id: cameraId, rule_id: rule.rule_id, type: rule.type, name: rule.name, bucket: '15m', start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
    const payload = rule.type === 'line' ? { ...base, in: c.in, out: c.out } : { ...base, entered: c.entered, exited: c.exited, peak_occupancy: c.peak_occupancy };
    this.mqtt.publishState(`${VideoMqttState.countsTopic(cameraId, rule.rule_id)}/bucket`, payload);
  }

  clearRule(cameraId: string, ruleId: string): void {
    this.mqtt?.publishState(VideoMqttState.countsTopic(cameraId, ruleId), '');
    this.mqtt?.publishState(`${VideoMqttState.countsTopic(cameraId, ruleId)}/bucket`, '');
    for (const field of ['in', 'out', 'occupancy', 'entered', 'exited', 'reset']) {
      this.mqtt?.removeDiscovery(field === 'reset' ? 'button' : 'sensor', objectId(cameraId, ruleId, field));
    }
    this.announced.delete(`${cameraId}\u0000${ruleId}`);
  }

  status(cameraId: string, status: CameraStatus, isRunning: boolean, lastError: string | null, enabled: boolean): void {
    if (!this.mqtt?.enabled) return;
    this.mqtt.publishState(VideoMqttState.statusTopic(cameraId), { camera_id: cameraId, status, is_running: isRunning, last_error: lastError, enabled });
    this.announceCamera(cameraId);
  }

  clearCamera(cameraId: string, ruleIds: string[]): void {
    for (const id of ruleIds) this.clearRule(cameraId, id);
    this.mqtt?.publishState(VideoMqttState.statusTopic(cameraId), '');
    for (const field of ['status', 'fps', 'processed_fps']) this.mqtt?.removeDiscovery('sensor', objectId(cameraId, null, field));
    this.mqtt?.removeDiscovery('switch', objectId(cameraId, null, 'enabled'));
    this.announced.delete(cameraId);
  }

  private announceRule(cameraId: string, rule: CountingRule): void {
    const key = `${cameraId}\u0000${rule.rule_id}`;
    const mqtt = this.mqtt!;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    const stateTopic = mqtt.stateTopic(VideoMqttState.countsTopic(cameraId, rule.rule_id));
    const sensor = (field: string, name: string, stateClass: 'total_increasing' | 'measurement') =>
      mqtt.publishDiscovery('sensor', objectId(cameraId, rule.rule_id, field), {
        name: `${cameraId} ${rule.name} ${name}`,
        state_topic: stateTopic,
        value_template: `{{ value_json.${field} }}`,
        state_class: stateClass,
        unit_of_measurement: 'people',
        icon: 'mdi:account-multiple',
      });
    if (rule.type === 'line') {
      sensor('in', rule.in_label, 'total_increasing');
      sensor('out', rule.out_label, 'total_increasing');
    } else {
      sensor('occupancy', 'occupancy', 'measurement');
      sensor('entered', 'entered', 'total_increasing');
      sensor('exited', 'exited', 'total_increasing');
    }
    // The reset button only does something when mqtt.commands is on; onCommand says so.
    mqtt.publishDiscovery('button', objectId(cameraId, rule.rule_id, 'reset'), {
      name: `${cameraId} ${rule.name} reset counts`,
      command_topic: mqtt.stateTopic(`${VideoMqttState.countsTopic(cameraId, rule.rule_id)}/reset`),
      payload_press: 'RESET',
      entity_category: 'config',
      enabled_by_default: false,
    });
  }

  private announceCamera(cameraId: string): void {
    if (this.announced.has(cameraId)) return;
    this.announced.add(cameraId);
    const mqtt = this.mqtt!;
    mqtt.publishDiscovery('sensor', objectId(cameraId, null, 'status'), {
      name: `${cameraId} status`,
      state_topic: mqtt.stateTopic(VideoMqttState.statusTopic(cameraId)),
      value_template: '{{ value_json.status }}',
      json_attributes_topic: mqtt.stateTopic(VideoMqttState.statusTopic(cameraId)),
      icon: 'mdi:cctv',
    });
    // Like the reset button: it only acts when mqtt.commands is on, so it starts disabled in Home Assistant.
    mqtt.publishDiscovery('switch', objectId(cameraId, null, 'enabled'), {
      name: `${cameraId} enabled`,
      command_topic: mqtt.stateTopic(enabledCommandTopic(cameraId)),
      payload_on: 'ON',
      payload_off: 'OFF',
      state_topic: mqtt.stateTopic(VideoMqttState.statusTopic(cameraId)),
      value_template: "{{ 'ON' if value_json.enabled else 'OFF' }}",
      state_on: 'ON',
      state_off: 'OFF',
      entity_category: 'config',
      enabled_by_default: false,
      icon: 'mdi:cctv',
    });
    for (const [field, name] of [
      ['fps', 'fps'],
      ['processed_fps', 'processed fps'],
    ] as const) {
      mqtt.publishDiscovery('sensor', objectId(cameraId, null, field), {
        name: `${cameraId} ${name}`,
        state_topic: mqtt.stateTopic('stats'),
        value_template: `{{ value_json.cameras['${cameraId}'].${field} if value_json.cameras is defined and '${cameraId}' in value_json.cameras else 0 }}`,
        state_class: 'measurement',
        unit_of_measurement: 'fps',
        entity_category: 'diagnostic',
      });
    }
  }
}

/** Where a camera is switched on and off (`ON` / `OFF`), as Frigate's `<camera>/enabled/set`. */
function enabledCommandTopic(cameraId: string): string {
  return `cameras/${topicSegment(cameraId)}/enabled/set`;
}

/** The payload of the enable/disable command: ON or OFF (any case, surrounding blanks ignored). */
export function parseSwitchPayload(payload: string): boolean {
  const p = payload.trim().toUpperCase();
  if (p === 'ON') return true;
  if (p === 'OFF') return false;
  throw new BadRequestError('INVALID_COMMAND', `the payload must be ON or OFF, not ${JSON.stringify(payload.slice(0, 40))}`, { field: 'payload' });
}

/** Home Assistant object ids allow [a-zA-Z0-9_-]; camera and rule ids may hold '.'. */
function objectId(cameraId: string, ruleId: string | null, field: string): string {
  const safe = (v: string) => v.replace(/[^a-zA-Z0-9_-]/g, '_');
  return ruleId === null ? `camera_${safe(cameraId)}_${field}` : `rule_${safe(cameraId)}_${safe(ruleId)}_${field}`;
}

/**
 * The video module's part of the box statistics (`cameras` in <prefix>/stats) and its
 * opt-in commands, which go through the same CameraManager calls (and so the same
 * validation and errors) as POST .../counts/reset.
 */
export function wireVideoMqtt(mqtt: MqttPublisher, manager: CameraManager): void {
  const r2 = (n: number) => Math.round(n * 100) / 100;
  mqtt.statsSource('cameras', () =>
    Object.fromEntries(manager.stats().map((c) => [c.camera_id, { status: c.status, fps: r2(c.fps), processed_fps: r2(c.processed_fps), frames: c.frames, dropped: c.dropped, restarts: c.restarts }])),
  );
  mqtt.onCommand('cameras/+/counts/+/reset', async ([, cameraId, , ruleId]) => {
    await manager.resetCounts(cameraId!, ruleId!);
    return { command: 'reset_counts', camera_id: cameraId, rule_id: ruleId };
  });
  mqtt.onCommand('cameras/+/reset_counts', async ([, cameraId]) => {
    await manager.resetCounts(cameraId!);
    return { command: 'reset_counts', camera_id: cameraId, rule_id: null };
  });
  mqtt.onCommand('cameras/+/enabled/set', async ([, cameraId], payload) => {
    const enabled = parseSwitchPayload(payload);
    const camera = await manager.setEnabled(cameraId!, enabled);
    return { command: enabled ? 'enable' : 'disable', camera_id: cameraId, enabled: camera.enabled, status: camera.status };
  });
}
