import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestPki } from './test-ca.js';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw request body, byte for byte (signatures are recomputed over this). */
  raw: Buffer;
  path: string;
  at: number;
  /** Answer status given. */
  status: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this many ms (timeouts, concurrency). */
  delayMs?: number;
}

/**
 * A real HTTPS webhook receiver on 127.0.0.1 with a certificate from the test
 * CA. `respond` decides each answer; every request is recorded. It can be
 * stopped and started again on the same port (receiver down, then up).
 */
export class HttpsReceiver {
  readonly received: Received[] = [];
  respond: (req: { headers: IncomingHttpHeaders; raw: Buffer; n: number }) => Reply = () => ({ status: 200 });
  inFlight = 0;
  maxInFlight = 0;
  port = 0;
  private server: Server | undefined;
  private waiters: { n: number; resolve: () => void }[] = [];

  constructor(private readonly pki: Pick<TestPki, 'serverKey' | 'serverCert'>) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}/hook`;
  }

  async start(port = this.port): Promise<void> {
    const server = createServer({ key: this.pki.serverKey, cert: this.pki.serverCert, keepAlive: true }, (req, res) => {
      const chunks: Buffer[] = [];
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const reply = this.respond({ headers: req.headers, raw, n: this.received.length });
        const send = () => {
          this.inFlight--;
          this.received.push({ headers: req.headers, raw, path: req.url ?? '', at: Date.now(), status: reply.status });
          res.writeHead(reply.status, { 'content-type': 'text/plain', ...(reply.headers ?? {}) });
          res.end(reply.body ?? '');
          this.notify();
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and cuts every open connection (receiver down). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** 2xx requests received with distinct X-Event-ID. */
  deliveredIds(): Set<string> {
    return new Set(this.received.filter((r) => r.status >= 200 && r.status < 300).map((r) => String(r.headers['x-event-id'])));
  }

  /** Resolves once `n` requests in total have been answered, or rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs = 10_000): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${n} requests in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private notify(): void {
    this.waiters = this.waiters.filter((w) => {
      if (this.received.length < w.n) return true;
      w.resolve();
      return false;
    });
  }
}

/** Polls `predicate` until true or throws after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
