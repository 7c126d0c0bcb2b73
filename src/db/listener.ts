import pg from 'pg';

export interface ListenerOptions {
  databaseUrl: string;
  channel: string;
  /** The connection's application_name, followed by the process id (tests find and end it by that name). */
  name: string;
  /** How often the connection is asked whether it is still there (a half-open socket hears nothing and says nothing), and how long it may take to say so. */
  heartbeatMs: number;
  heartbeatTimeoutMs: number;
  /** Pauses before each new try after a loss, the last one repeated; back to the first once listening. */
  retryMs: readonly number[];
  /** A notification on `channel`. */
  heard(payload: string | undefined): void;
  /** Listening now. `roundTrip` answers once every notification signalled before it was heard, and throws once this connection is gone. */
  up?(roundTrip: () => Promise<void>): void;
  /** The connection was lost (or never listened): notifications signalled from now until `up` are not heard. Not called by `close`. */
  down(err: unknown): void;
  /** Whether to try again after a loss (asked when the pause is over); always when absent. */
  again?(): boolean;
}

/**
 * One connection of its own (not the pool's, whose connections come and go) that LISTENs on one
 * channel (PostgreSQL). An error, an end or a heartbeat that does not come back drops it, tells
 * `down`, and a new one is opened after a pause.
 */
export class Listener {
  private client: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private attempt = 0;
  private closed = false;
  private listened = false;

  constructor(private readonly options: ListenerOptions) {}

  /** Whether the connection is LISTENing now. */
  get up(): boolean {
    return this.listened;
  }

  /** Opens the connection unless it is open or opening; settles once it listens (or this try failed). */
  open(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the listener is closed'));
    if (this.listening) return this.listening;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const o = this.options;
    const c = new pg.Client({ connectionString: o.databaseUrl, application_name: `${o.name} ${process.pid}`, keepAlive: true });
    this.client = c;
    c.on('error', (err) => this.drop(c, err));
    c.on('end', () => this.drop(c, new Error('connection ended')));
    c.on('notification', (n) => {
      if (this.client === c && n.channel === o.channel) o.heard(n.payload);
    });
    this.listening = c
      .connect()
      .then(() => c.query(`listen ${o.channel}`))
      .then(
        () => {
          if (this.client !== c) return;
          this.attempt = 0;
          this.listened = true;
          // Notifications signalled before this round trip's statement reach the client before its answer
          // (PostgreSQL delivers pending ones before ReadyForQuery).
          o.up?.(async () => {
            if (this.client !== c) throw new Error('not listening');
            await c.query('select 1');
          });
          this.beat(c);
        },
        (err: unknown) => {
          this.drop(c, err);
          throw err;
        },
      );
    return this.listening;
  }

  private beat(c: pg.Client): void {
    let waiting = false;
    this.heartbeat = setInterval(() => {
      if (waiting || this.client !== c) return;
      waiting = true;
      const timer = setTimeout(() => this.drop(c, new Error('heartbeat timed out')), this.options.heartbeatTimeoutMs);
      c.query('select 1')
        .catch((err: unknown) => this.drop(c, err))
        .finally(() => {
          clearTimeout(timer);
          waiting = false;
        });
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  private drop(c: pg.Client, why: unknown): void {
    if (this.client !== c) return;
    this.stop();
    this.options.down(why);
    c.end().catch(() => undefined);
    if (this.closed || this.retry) return;
    const pauses = this.options.retryMs;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.closed && (this.options.again?.() ?? true)) this.open().catch(() => undefined);
    }, pauses[Math.min(this.attempt++, pauses.length - 1)]);
    this.retry.unref();
  }

  private stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.listened = false;
    this.client = null;
    this.listening = null;
  }

  /** Ends the connection; nothing is tried again. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const c = this.client;
    this.stop();
    await c?.end().catch(() => undefined);
  }
}
