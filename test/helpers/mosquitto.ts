import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from './daemon.js';
import { findExecutable } from '../../scripts/test-deps.mjs';

export { freePort };

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = tcpConnect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * A real mosquitto broker on a free loopback port with its own config, password
 * file and persistence folder (no system service). stop()/start() keep the port
 * and the persisted sessions, as a broker restart does.
 */
export class Mosquitto {
  port = 0;
  /** Second listener with TLS, when constructed with a server certificate. */
  tlsPort = 0;
  readonly dir = mkdtempSync(join(tmpdir(), 'vigil-mosquitto-'));
  readonly username = 'vigil';
  readonly password = 'broker-secret-1';
  readonly passwordFile = join(this.dir, 'client-password');
  private child: ChildProcess | undefined;
  log = '';

  constructor(private readonly tls?: { certFile: string; keyFile: string }) {}

  get tlsUrl(): string {
    return `mqtts://127.0.0.1:${this.tlsPort}`;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    if (this.tls && !this.tlsPort) this.tlsPort = await freePort();
    const users = join(this.dir, 'users');
    writeFileSync(users, '');
    execFileSync(findExecutable('mosquitto_passwd') ?? 'mosquitto_passwd', ['-b', users, this.username, this.password]);
    writeFileSync(this.passwordFile, `${this.password}\n`);
    const conf = join(this.dir, 'mosquitto.conf');
    writeFileSync(
      conf,
      [
        `listener ${this.port} 127.0.0.1`,
        'allow_anonymous false',
        `password_file ${users}`,
        'persistence true',
        `persistence_location ${this.dir}/`,
        'log_dest stderr',
        'log_type error',
        'log_type warning',
        'max_queued_messages 100000',
        ...(this.tls ? [`listener ${this.tlsPort} 127.0.0.1`, `certfile ${this.tls.certFile}`, `keyfile ${this.tls.keyFile}`] : []),
        // Started as root (CI), mosquitto would switch to its own user and lose our temp folder.
        ...(process.getuid?.() === 0 ? ['user root'] : []),
        '',
      ].join('\n'),
    );
    // Debian puts the broker in /usr/sbin, which is not on a normal user's PATH.
    const child = spawn(findExecutable('mosquitto') ?? 'mosquitto', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (d: Buffer) => {
      this.log += d.toString();
    });
    this.child = child;
    const end = Date.now() + 10_000;
    while (!(await portOpen(this.port)) || (this.tls && !(await portOpen(this.tlsPort)))) {
      if (child.exitCode !== null) throw new Error(`mosquitto exited: ${this.log}`);
      if (Date.now() > end) throw new Error(`mosquitto did not open port ${this.port}: ${this.log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGTERM: mosquitto saves its persistence file and exits. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  async cleanup(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
