import type { MqttPublisher } from '../events/mqtt-mirror.js';
import { topicSegment } from '../events/mqtt-topics.js';
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
 * With MQTT off every call is a no-op.
 */
export class VideoMqttState {
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
  }

  status(cameraId: string, status: CameraStatus, isRunning: boolean, lastError: string | null): void {
    if (!this.mqtt?.enabled) return;
    this.mqtt.publishState(VideoMqttState.statusTopic(cameraId), { camera_id: cameraId, status, is_running: isRunning, last_error: lastError });
  }

  clearCamera(cameraId: string, ruleIds: string[]): void {
    for (const id of ruleIds) this.clearRule(cameraId, id);
    this.mqtt?.publishState(VideoMqttState.statusTopic(cameraId), '');
  }
}
