// A typed client for Vigil's HTTP API: openapi-fetch over the types openapi-typescript generates
// from the daemon's OpenAPI document (schema.ts, by scripts/generate-client.ts). Every path,
// parameter, body and answer is typed; errors come back as `error` in the error shape.
//
//   const vigil = createVigilClient('http://box:8080');
//   const { data, error } = await vigil.POST('/api/v1/detect', { body: { image: blob }, bodySerializer: formData });
import createClient, { type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export type VigilClient = ReturnType<typeof createClient<paths>>;
/** The spec's Event object, `data` typed by `type`. */
export type VigilEvent = components['schemas']['Event'];
export type ErrorBody = components['schemas']['ErrorBody'];

export function createVigilClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): VigilClient {
  return createClient<paths>({ ...options, baseUrl });
}

/** bodySerializer of the upload endpoints: Blobs as files, every other field as text. */
export function formData(body: unknown): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Blob) form.append(name, value, name);
    else form.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return form;
}
