import { Agent, request } from 'undici';
import { multipart, type Part } from '../../test/helpers/multipart.js';

export type { Part } from '../../test/helpers/multipart.js';

export interface Posted {
  /** Wall time from sending the request to the last byte of the answer. */
  ms: number;
  status: number;
  body: string;
  /** Server-Timing stages (name -> ms) when the route sends them. */
  stages: Record<string, number>;
}

/**
 * One multipart POST the way the latency benches send it: the body encoded before the clock
 * starts, over a keep-alive connection (undici), so that what is timed is the daemon and the
 * loopback, not the client building a FormData (2-10 ms more per request on this box, more
 * the busier it is).
 */
export class MultipartPoster {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  private readonly encoded = new Map<Part[], { payload: Buffer; headers: Record<string, string> }>();

  async post(url: string, parts: Part[]): Promise<Posted> {
    let body = this.encoded.get(parts);
    if (!body) this.encoded.set(parts, (body = multipart(parts)));
    const t0 = performance.now();
    const res = await request(url, { method: 'POST', body: body.payload, headers: body.headers, dispatcher: this.agent });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    const stages: Record<string, number> = {};
    const timing = res.headers['server-timing'];
    for (const part of (Array.isArray(timing) ? timing.join(',') : (timing ?? '')).split(',')) {
      const m = /^\s*(\w+);dur=([\d.]+)/.exec(part);
      if (m) stages[m[1]!] = Number(m[2]);
    }
    return { ms, status: res.statusCode, body: text, stages };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
