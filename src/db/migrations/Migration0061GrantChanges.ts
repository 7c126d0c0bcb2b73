import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 23: the session statement also says whether the caller may hold a grant (an accepted
 * invite, or a sharing naming the user or its organization); an actor known to hold none reads
 * with its own part of every scope alone, without the invited and shared subqueries
 * (docs/decisions/tenancy.md). The actor cache keeps that answer, so what can turn it from "none"
 * into "some" says so on `actor_changed` (Migration0048ActorChanges), the user's id as payload:
 * an invite accepted (or its invitee set), a sharing grantee added or changed (an organization's
 * grant reaches all its members: `*`). Removals need no word: a stale "may hold" only costs the
 * subqueries, which still judge every grant at the request's instant.
 */
export class Migration0061GrantChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create trigger actor_changed_invite after insert or update on invite for each row
      when (new.user_id is not null and new.bl_accepted and new.ts_revoked_at is null) execute function actor_changed_new()`);
    this.addSql(`create function actor_changed_grantee() returns trigger language plpgsql as $$
      begin perform pg_notify('actor_changed', case when new.organization_id is null then new.user_id::text else '*' end); return null; end $$`);
    this.addSql(`create trigger actor_changed_grantee after insert or update on sharing_grantee for each row
      when (new.user_id is not null or new.organization_id is not null) execute function actor_changed_grantee()`);
  }
}
