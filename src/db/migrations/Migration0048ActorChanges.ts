import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 23: each instance keeps the actors it authenticated (src/identity/actor-cache.ts) and
 * forgets one as soon as anything it was built from changes, on every instance: these triggers
 * say so on the channel `actor_changed` (delivered at commit, to every session listening), with
 * the user's id as payload, or `*` for everyone (the privacy terms, which every actor's
 * "terms pending" reads). In the database, not in the services' code: a change made by any
 * statement (an operator's SQL, a test's set-up) reaches the caches too.
 * Per row: these tables change a row or a few at a time (a login, a logout, a role change).
 */
const ACTOR_CHANNEL = 'actor_changed';

export class Migration0048ActorChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function actor_changed_old() returns trigger language plpgsql as $$
      begin perform pg_notify('${ACTOR_CHANNEL}', old.user_id::text); return null; end $$`);
    this.addSql(`create function actor_changed_new() returns trigger language plpgsql as $$
      begin perform pg_notify('${ACTOR_CHANNEL}', new.user_id::text); return null; end $$`);
    this.addSql(`create function actor_changed_user() returns trigger language plpgsql as $$
      begin perform pg_notify('${ACTOR_CHANNEL}', old.id::text); return null; end $$`);
    this.addSql(`create function actor_changed_all() returns trigger language plpgsql as $$
      begin perform pg_notify('${ACTOR_CHANNEL}', '*'); return null; end $$`);
    // A session revoked (logout, password or profile change, a refresh token reused) or removed.
    this.addSql(`create trigger actor_changed_session after update of ts_revoked_at on auth_session for each row
      when (old.ts_revoked_at is distinct from new.ts_revoked_at) execute function actor_changed_old()`);
    this.addSql(`create trigger actor_changed_session_delete after delete on auth_session for each row execute function actor_changed_old()`);
    // What the actor reads of the user: administrator, type, county, terms accepted; or the user gone.
    this.addSql(`create trigger actor_changed_user after update on "user" for each row
      when (old.bl_admin is distinct from new.bl_admin or old.str_type is distinct from new.str_type or old.county_id is distinct from new.county_id
            or old.ts_terms_accepted_at is distinct from new.ts_terms_accepted_at or old.id is distinct from new.id)
      execute function actor_changed_user()`);
    this.addSql(`create trigger actor_changed_user_delete after delete on "user" for each row execute function actor_changed_user()`);
    // A membership granted, changed or taken away: the active organization's role.
    this.addSql(`create trigger actor_changed_membership_new after insert or update on membership for each row execute function actor_changed_new()`);
    this.addSql(`create trigger actor_changed_membership_old after update or delete on membership for each row execute function actor_changed_old()`);
    this.addSql(`create trigger actor_changed_terms after insert or update or delete or truncate on privacy_terms for each statement execute function actor_changed_all()`);
    this.addSql(`create trigger actor_changed_truncate after truncate on auth_session for each statement execute function actor_changed_all()`);
    this.addSql(`create trigger actor_changed_truncate after truncate on membership for each statement execute function actor_changed_all()`);
    this.addSql(`create trigger actor_changed_truncate after truncate on "user" for each statement execute function actor_changed_all()`);
    // The actor carries its county's federative unit: a county moved to another one (rare) forgets everyone.
    this.addSql(`create trigger actor_changed_county after update of str_federative_unit on county for each row
      when (old.str_federative_unit is distinct from new.str_federative_unit) execute function actor_changed_all()`);
  }
}
