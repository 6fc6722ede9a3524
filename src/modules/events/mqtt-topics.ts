import type { EventType } from '../../core/event-types.js';

/** MQTT forbids wildcards in published topics and `/` would add levels: ids are made into one safe level. */
export function topicSegment(value: string): string {
  const safe = value.replace(/[/+#\u0000]/g, '_');
  return safe.length > 0 ? safe : '_';
}

/**
 * Every topic Vigil publishes, in one place (the topic map of docs/events.md is this).
 * `prefix` is mqtt.topic_prefix.
 */
export function topicMap(prefix: string) {
  return {
    /** Retained `online` on every connect; `offline` as last will and on clean stop. */
    availability: `${prefix}/availability`,
    /** Every event, payload the Event JSON, QoS 1, not retained. */
    event: (type: EventType) => `${prefix}/events/${type}`,
    /** Events with a camera_id, a second time under the camera. */
    cameraEvent: (cameraId: string, type: EventType) => `${prefix}/cameras/${topicSegment(cameraId)}/events/${type}`,
    /** State published by other modules through publishState (e.g. video counts), usually retained. */
    state: (suffix: string) => `${prefix}/${suffix}`,
  };
}

export type TopicMap = ReturnType<typeof topicMap>;

/** A state suffix is one or more safe levels: no wildcards, no empty level, no leading `$`. */
export function isValidStateSuffix(suffix: string): boolean {
  if (suffix.length === 0 || suffix.startsWith('$')) return false;
  return suffix.split('/').every((level) => level.length > 0 && !/[+#\u0000]/.test(level));
}

/** Home Assistant discovery: `<discovery_prefix>/<component>/<node_id>/<object_id>/config`. */
export function discoveryTopic(discoveryPrefix: string, component: string, nodeId: string, objectId: string): string {
  return `${discoveryPrefix}/${component}/${nodeId}/${objectId}/config`;
}

/** Home Assistant node ids allow [a-zA-Z0-9_-] only. */
export function discoveryNodeId(clientId: string): string {
  return clientId.replace(/[^a-zA-Z0-9_-]/g, '_');
}
