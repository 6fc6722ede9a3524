import { discoveryNodeId, discoveryTopic, type TopicMap } from './mqtt-topics.js';

/** Publishes one retained message over the mirror's current connection (a no-op when there is none). */
type Send = (topic: string, payload: string, retain: boolean) => void;

/**
 * The Home Assistant discovery configs of the box (mqtt.discovery): every entity other
 * modules register, under one device per box, kept so they are announced again on every
 * connect; removals made while disconnected are sent on the next connect.
 */
export class HaDiscovery {
  private readonly configs = new Map<string, string>();
  /** Discovery configs removed while disconnected: cleared on the next connect. */
  private readonly pendingRemovals = new Set<string>();
  private readonly node: string;

  constructor(
    private readonly discoveryPrefix: string,
    private readonly clientId: string,
    private readonly topics: TopicMap,
    private readonly version: string,
  ) {
    this.node = discoveryNodeId(clientId);
  }

  /** Registers (or updates) an entity's config; sent now when `connected`, and on every connect. */
  publish(component: string, objectId: string, config: Record<string, unknown>, connected: boolean, send: Send): void {
    const full = {
      ...config,
      unique_id: `${this.node}_${objectId}`,
      availability_topic: this.topics.availability,
      payload_available: 'online',
      payload_not_available: 'offline',
      device: this.device(),
    };
    const topic = discoveryTopic(this.discoveryPrefix, component, this.node, objectId);
    const text = JSON.stringify(full);
    this.pendingRemovals.delete(topic);
    if (this.configs.get(topic) === text) return;
    this.configs.set(topic, text);
    if (connected) send(topic, text, true);
  }

  /** Removes an entity (empty retained payload): Home Assistant deletes it. */
  remove(component: string, objectId: string, connected: boolean, send: Send): void {
    const topic = discoveryTopic(this.discoveryPrefix, component, this.node, objectId);
    if (!this.configs.delete(topic)) return;
    this.pendingRemovals.add(topic);
    if (connected) send(topic, '', true);
  }

  /** On connect: a connectivity sensor on the availability topic, then what other modules registered. */
  announce(send: Send): void {
    const availability = {
      name: 'Availability',
      unique_id: `${this.node}_availability`,
      state_topic: this.topics.availability,
      payload_on: 'online',
      payload_off: 'offline',
      device_class: 'connectivity',
      entity_category: 'diagnostic',
      device: this.device(),
    };
    send(discoveryTopic(this.discoveryPrefix, 'binary_sensor', this.node, 'availability'), JSON.stringify(availability), true);
    for (const [topic, text] of this.configs) send(topic, text, true);
    for (const topic of this.pendingRemovals) send(topic, '', true);
    this.pendingRemovals.clear();
  }

  private device() {
    return { identifiers: [this.node], name: `Vigil ${this.clientId}`, manufacturer: 'Vigil', model: 'vigil daemon', sw_version: this.version };
  }
}
