import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Core } from '../core.js';
import type { Logger } from '../shared/logger.js';
import { hashPassword } from './passwords.js';
import { User } from './user.entity.js';

/** First start: when no user exists, ADMIN_EMAIL + ADMIN_PASSWORD create the platform administrator. */
export async function ensureAdministrator(em: EntityManager, core: Core, config: Config, log: Logger): Promise<void> {
  if (!config.ADMIN_EMAIL || !config.ADMIN_PASSWORD) return;
  if ((await em.count(User, {})) > 0) return;
  const user = await core.users.createAdministrator(em, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD, name: config.ADMIN_NAME, document: config.ADMIN_DOCUMENT }, await hashPassword(config.ADMIN_PASSWORD));
  log.info({ userId: user.id, email: user.str_email }, 'administrator created');
}
