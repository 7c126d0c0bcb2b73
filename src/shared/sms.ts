import type { Logger } from './logger.js';

/** The one way out for text messages. Production plugs a provider's client in here. */
export interface SmsSender {
  send(to: string, text: string): Promise<void>;
}

/** The default: the message is logged (a developer reads the code there), nothing is sent. */
export class LogSmsSender implements SmsSender {
  constructor(private readonly log: Logger) {}

  async send(to: string, text: string): Promise<void> {
    this.log.info({ to, text }, 'SMS logged, not sent (no SMS provider configured)');
  }
}
