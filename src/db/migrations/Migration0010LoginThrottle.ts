import { Migration } from '@mikro-orm/migrations';

export class Migration0010LoginThrottle extends Migration {
  override async up(): Promise<void> {
    // rate-limiter-flexible's PostgreSQL store (src/identity/throttle.ts): login counters every
    // instance shares. Its own layout; an expired row is overwritten by the next attempt.
    this.addSql('create table login_throttle (key varchar(255) primary key, points integer not null default 0, expire bigint)');
  }
}
