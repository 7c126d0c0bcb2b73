import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import type { RelayHandler } from './relay.js';

export interface JetStreamOptions {
  url: string;
  stream: string;
  /** Subjects are `<prefix>.<record type>.<event type>`. */
  prefix: string;
}

export interface JetStreamOut {
  handle: RelayHandler;
  close(): Promise<void>;
}

/** How long the server remembers a Nats-Msg-Id: a window the relay publishes again after a crash is dropped as duplicate. */
const DUPLICATE_WINDOW_NS = 24 * 3600 * 1e9;

/**
 * The JetStream consumer of the relay: every event of a window published to its subject with the
 * event id as Nats-Msg-Id, each acknowledged before the window's position moves.
 */
export async function openJetStream(options: JetStreamOptions): Promise<JetStreamOut> {
  const nc: NatsConnection = await connect({ servers: options.url, name: 'livestock-relay' });
  const jsm = await nc.jetstreamManager();
  const subjects = [`${options.prefix}.>`];
  try {
    await jsm.streams.info(options.stream);
  } catch {
    await jsm.streams.add({ name: options.stream, subjects, duplicate_window: DUPLICATE_WINDOW_NS });
  }
  const js: JetStreamClient = nc.jetstream();
  const encoder = new TextEncoder();
  return {
    async handle(_tx, events) {
      // Published in log order, acknowledged together: JetStream stores them in the order sent on one connection.
      const acks = events.map((e) =>
        js.publish(
          `${options.prefix}.${e.str_record_type}.${e.str_type}`,
          encoder.encode(JSON.stringify({ id: e.id, seq: e.seq, str_type: e.str_type, str_record_type: e.str_record_type, record_id: e.record_id, actor_id: e.actor_id, ts_occurred_at: e.ts_occurred_at, payload: JSON.parse(e.str_payload), listed: e.listed })),
          { msgID: e.id },
        ),
      );
      await Promise.all(acks);
    },
    async close() {
      await nc.drain();
    },
  };
}
