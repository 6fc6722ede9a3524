import { Type } from 'typebox';

/** MQTT mirror of the event stream. Not a spec module: an empty url turns it off. */
export const MqttSection = Type.Object(
  {
    url: Type.String({ default: '', description: 'Broker URL (mqtt://, mqtts://, ws://); empty turns the mirror off.' }),
    username: Type.String({ default: '', description: 'Broker user name.' }),
    password_file: Type.String({ default: '', description: 'File holding the broker password (kept out of the config file).' }),
    client_id: Type.String({ default: '', description: 'MQTT client id; empty means vigil-<hostname>.' }),
    topic_prefix: Type.String({ default: 'vigil', minLength: 1, description: 'Prefix of every topic.' }),
    ca_file: Type.String({ default: '', description: 'PEM CA bundle for mqtts:// brokers with a private CA.' }),
    reject_unauthorized: Type.Boolean({ default: true, description: 'Verify the broker certificate.' }),
  },
  { additionalProperties: false, default: {} },
);
