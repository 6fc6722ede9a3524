import type { Logger } from 'pino';

/** What a command handler answers; a thrown error (AppError: its code) becomes {ok: false, code, message}. */
export type CommandHandler = (levels: string[], payload: string) => Promise<Record<string, unknown> | void>;

/**
 * The opt-in MQTT command topics (mqtt.commands): filters under the topic prefix, `+`
 * matching one level, each with its handler. The mirror subscribes to `filters()` and
 * hands live (never retained) messages to run(), which answers with the result object.
 */
export class MqttCommands {
  private readonly routes: { filter: string; parts: string[]; handler: CommandHandler }[] = [];

  constructor(
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  add(filter: string, handler: CommandHandler): void {
    this.routes.push({ filter, parts: filter.split('/'), handler });
  }

  get size(): number {
    return this.routes.length;
  }

  /** Full topic filters to subscribe to. */
  filters(): string[] {
    return this.routes.map((r) => `${this.prefix}/${r.filter}`);
  }

  /** The result to publish for `topic`, or undefined when no filter matches it. */
  async run(topic: string, payload: string): Promise<Record<string, unknown> | undefined> {
    if (!topic.startsWith(`${this.prefix}/`)) return undefined;
    const levels = topic.slice(this.prefix.length + 1).split('/');
    const route = this.routes.find((r) => r.parts.length === levels.length && r.parts.every((p, i) => p === '+' || p === levels[i]));
    if (!route) return undefined;
    try {
      return { topic, ok: true, ...((await route.handler(levels, payload)) ?? {}) };
    } catch (err) {
      const e = err as Error & { code?: string };
      const code = e.code ?? 'INTERNAL_ERROR';
      this.log.warn({ topic, code, error: e.message }, 'MQTT command refused');
      return { topic, ok: false, code, message: e.message };
    }
  }
}
