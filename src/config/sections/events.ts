import { Type } from 'typebox';

export const EventsSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Keep the event history and serve /events.' }),
    webhooks_enabled: Type.Boolean({ default: true, description: 'Deliver events to registered webhooks.' }),
    max_workers: Type.Integer({ default: 4, minimum: 1, description: 'Concurrent webhook deliveries.' }),
    history_size: Type.Integer({ default: 1000, minimum: 1, description: 'Events kept in the in-memory history.' }),
  },
  { additionalProperties: false, default: {} },
);
