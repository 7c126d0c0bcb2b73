import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../shared/logger.js';
import { openJetStream, type JetStreamOut } from './jetstream.js';
import { ensureConsumer, relayAll } from './relay.js';
import { webhookFanout } from './webhook.fanout.js';
import { sendDue, type SenderOptions } from './webhook.sender.js';

export interface EventsOutOptions {
  pollMs: number;
  webhooks: SenderOptions;
  nats: { url: string; stream: string; prefix: string } | null;
}

export interface EventsOut {
  stop(): Promise<void>;
}

/**
 * The relay and the webhook sender of one instance (EVENTS_OUT): every poll it relays what
 * committed since each consumer's position (webhooks: queue deliveries; JetStream: publish) and
 * sends the due deliveries. Instances share the work: a consumer's position is locked by the one
 * relaying it, deliveries are claimed with SKIP LOCKED.
 */
export async function startEventsOut(fork: () => EntityManager, options: EventsOutOptions, log: Logger): Promise<EventsOut> {
  await ensureConsumer(fork(), 'webhooks');
  let jetstream: JetStreamOut | null = null;
  if (options.nats) {
    jetstream = await openJetStream(options.nats);
    await ensureConsumer(fork(), `jetstream:${options.nats.stream}`);
  }
  let stopped = false;
  const waits = new Set<() => void>();
  /** Runs `round` again at once while it finds work, else after the poll or when woken. */
  const loop = (name: string, round: () => Promise<number>, woken: { wake: () => void }) =>
    (async () => {
      while (!stopped) {
        let work = 0;
        try {
          work = await round();
        } catch (e) {
          if (!stopped) log.error({ err: e }, `events out: a ${name} round failed; retrying`);
        }
        if (!work && !stopped) {
          await new Promise<void>((resolve) => {
            const done = () => (waits.delete(done), (woken.wake = () => undefined), clearTimeout(timer), resolve());
            const timer = setTimeout(done, options.pollMs);
            woken.wake = done;
            waits.add(done);
          });
        }
      }
    })();
  // The relay and the sender run side by side: sending a round's deliveries never holds the next window back.
  const sender = { wake: () => undefined as void };
  const relaying = loop('relay', async () => {
    const queued = await relayAll(fork(), 'webhooks', webhookFanout);
    if (queued) sender.wake();
    return queued + (jetstream && options.nats ? await relayAll(fork(), `jetstream:${options.nats.stream}`, jetstream.handle) : 0);
  }, { wake: () => undefined });
  const sending = loop('sender', () => sendDue(fork(), options.webhooks, log), sender);
  log.info({ nats: options.nats ? options.nats.stream : null }, 'events out started');
  return {
    async stop() {
      stopped = true;
      for (const wake of [...waits]) wake();
      await Promise.all([relaying, sending]);
      await jetstream?.close();
    },
  };
}
