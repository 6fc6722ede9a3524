import { Type } from 'typebox';

/** MQTT mirror of the event stream. Not a spec module: an empty url turns it off. */
export const MqttSection = Type.Object(
  {
    url: Type.String({
      default: '',
      pattern: '^$|^(mqtt|mqtts|tcp|tls|ws|wss)://',
      description: 'Broker URL (mqtt://, mqtts://, ws://, wss://); empty turns the mirror off.',
    }),
    username: Type.String({ default: '', description: 'Broker user name.' }),
    password_file: Type.String({ default: '', description: 'File holding the broker password (kept out of the config file).' }),
    client_id: Type.String({ default: '', description: 'MQTT client id; empty means vigil-<hostname>.' }),
    topic_prefix: Type.String({ default: 'vigil', minLength: 1, description: 'Prefix of every topic.' }),
    ca_file: Type.String({ default: '', description: 'PEM CA bundle for mqtts:// brokers with a private CA (added to the system CAs).' }),
    reject_unauthorized: Type.Boolean({ default: true, description: 'Verify the broker certificate.' }),
    queue_size: Type.Integer({
      default: 10_000,
      minimum: 1,
      description: 'Messages kept (on disk) while the broker is away; past it the oldest are dropped and counted in /admin/health.',
    }),
    keepalive_seconds: Type.Integer({ default: 30, minimum: 1, maximum: 65535, description: 'MQTT keepalive; the broker sends the last will after 1.5 x this without traffic.' }),
    reconnect_min_ms: Type.Integer({ default: 1_000, minimum: 10, description: 'First reconnect delay after the broker goes away.' }),
    reconnect_max_ms: Type.Integer({ default: 60_000, minimum: 10, description: 'Reconnect delay cap; the delay doubles (with jitter) up to it and resets on connect.' }),
    discovery: Type.Boolean({ default: false, description: 'Publish Home Assistant MQTT discovery configs (retained) on every connect.' }),
    commands: Type.Boolean({
      default: false,
      description:
        'Accept commands on <prefix>/cameras/<camera_id>/counts/<rule_id>/reset and <prefix>/cameras/<camera_id>/reset_counts (validated as the REST API; answers on <prefix>/commands/result). Anyone who can publish to the broker can then reset counts.',
    }),
    stats_interval_seconds: Type.Integer({
      default: 60,
      minimum: 0,
      maximum: 86_400,
      description: "Seconds between box statistics on <prefix>/stats (CPU, memory, inference speeds, cameras; as Frigate's stats topic); 0 turns them off.",
    }),
    discovery_prefix: Type.String({ default: 'homeassistant', minLength: 1, description: 'Home Assistant discovery topic prefix.' }),
  },
  { additionalProperties: false, default: {} },
);
