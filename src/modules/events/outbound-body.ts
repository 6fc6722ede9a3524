import type { VigilEvent } from '../../core/event-types.js';

/**
 * The bytes of an event as it leaves the box (webhook bodies, MQTT payloads). With
 * events.include_labels false every `label` (the enrolled person's display name, at
 * any depth of `data`) is left out, so receivers get identity ids they can resolve on
 * their side but no names; the history on the box (GET /events/recent) keeps them.
 */
export function outboundBody(event: VigilEvent, includeLabels: boolean): string {
  if (includeLabels) return JSON.stringify(event);
  return JSON.stringify(event, (key, value: unknown) => (key === 'label' ? undefined : value));
}
