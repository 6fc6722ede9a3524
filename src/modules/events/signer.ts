import { createHmac } from 'node:crypto';
import type { VigilEvent } from '../../core/event-types.js';

/** Spec rule 6: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the webhook secret. */
export function signature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** The spec's four delivery headers (the signature only with a secret), plus our User-Agent. */
export function deliveryHeaders(body: string, event: Pick<VigilEvent, 'id' | 'type'>, secret: string | null, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-event-type': event.type,
    'x-event-id': event.id,
    'user-agent': userAgent,
  };
  if (secret) headers['x-signature-256'] = signature(body, secret);
  return headers;
}
