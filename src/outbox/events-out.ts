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
  let wake: (() => void) | null = null;
  const round = async (): Promise<number> => {
    let work = await relayAll(fork(), 'webhooks', webhookFanout);
    if (jetstream && options.nats) work += await relayAll(fork(), `jetstream:${options.nats.stream}`, jetstream.handle);
    work += await sendDue(fork(), options.webhooks, log);
    return work;
  };
  const loop = (async () => {
    while (!stopped) {
      let work = 0;
      try {
        work = await round();
      } catch (e) {
        if (!stopped) log.error({ err: e }, 'events out: a round failed; retrying');
      }
      if (!work && !stopped) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, options.pollMs)));
    }
  })();
  log.info({ nats: options.nats ? options.nats.stream : null }, 'events out started');
  return {
    async stop() {
      stopped = true;
      (wake as (() => void) | null)?.();
      await loop;
      await jetstream?.close();
    },
  };
}
