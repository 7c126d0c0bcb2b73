import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import type { Actor } from './actor.js';
import { featureLevels, type FeatureSettingRow } from './user-features.reader.js';
import { FEATURE_NAME, MAX_FEATURES, effectiveFeatures } from './user-features.rules.js';
import { Checker } from '../shared/validation.js';

export interface UserFeatures {
  user_id: string;
  organization_id: string | null;
  lst_features: string[];
}

/** User Features Set: the whole setting of one user or organization (PUT replaces it; an absent list is empty). */
export interface FeatureSettingInput {
  lst_enabled?: string[] | null;
  lst_disabled?: string[] | null;
}

type Owner = { kind: 'user'; id: string } | { kind: 'organization'; id: string };

const OWNERS = {
  user: { table: 'user_feature', column: 'user_id', target: '"user"', recordType: 'User', event: 'USER_FEATURES_SET', noun: 'user' },
  organization: { table: 'organization_feature', column: 'organization_id', target: 'organization', recordType: 'Organization', event: 'ORGANIZATION_FEATURES_SET', noun: 'organization' },
} as const;

/** Feature flags (DOMAIN.md, "Singletons"): read by everyone for itself, set by administrators. */
export class UserFeatureService {
  constructor(private readonly defaults: readonly string[]) {}

  async mine(db: Db, actor: Actor): Promise<UserFeatures> {
    const l = await featureLevels(db, actor.userId, actor.organizationId);
    const levels = [
      { lst_enabled: l.org_enabled ?? [], lst_disabled: l.org_disabled ?? [] },
      { lst_enabled: l.user_enabled ?? [], lst_disabled: l.user_disabled ?? [] },
    ];
    return { user_id: actor.userId, organization_id: actor.organizationId, lst_features: effectiveFeatures(this.defaults, levels) };
  }

  setForUser(em: EntityManager, actor: Actor, userId: string, input: FeatureSettingInput): Promise<FeatureSettingRow> {
    return this.set(em, actor, { kind: 'user', id: userId.toLowerCase() }, input);
  }

  setForOrganization(em: EntityManager, actor: Actor, organizationId: string, input: FeatureSettingInput): Promise<FeatureSettingRow> {
    return this.set(em, actor, { kind: 'organization', id: organizationId.toLowerCase() }, input);
  }

  /** The same setting again changes nothing and writes no event. */
  private async set(em: EntityManager, actor: Actor, owner: Owner, input: FeatureSettingInput): Promise<FeatureSettingRow> {
    if (!actor.isAdmin) throw DomainError.forbidden('only administrators set feature flags');
    const enabled = checkList('lst_enabled', input.lst_enabled);
    const disabled = checkList('lst_disabled', input.lst_disabled);
    const both = enabled.filter((f) => disabled.includes(f));
    if (both.length) throw DomainError.field('lst_disabled', `a flag is either enabled or disabled: ${both.join(', ')}`);
    const o = OWNERS[owner.kind];
    return em.transactional(async (tx) => {
      const [target] = await tx.execute<unknown[]>(`select 1 from ${o.target} where id = ? for key share`, [owner.id]);
      if (!target) throw DomainError.notFound(o.noun);
      const [before] = await tx.execute<FeatureSettingRow[]>(`select * from ${o.table} where ${o.column} = ? for update`, [owner.id]);
      const from = { lst_enabled: before?.lst_enabled ?? [], lst_disabled: before?.lst_disabled ?? [] };
      if (before && same(from.lst_enabled, enabled) && same(from.lst_disabled, disabled)) return settingOf(owner, before);
      const now = new Date();
      const [row] = await tx.execute<FeatureSettingRow[]>(
        `insert into ${o.table} (${o.column}, lst_enabled, lst_disabled, ts_created_at, ts_updated_at) values (?, ?::text[], ?::text[], ?, ?)
         on conflict (${o.column}) do update set lst_enabled = excluded.lst_enabled, lst_disabled = excluded.lst_disabled, ts_updated_at = excluded.ts_updated_at
         returning *`,
        [owner.id, pgArray(enabled), pgArray(disabled), now, now],
      );
      await appendEvents(tx, [
        { type: o.event, recordType: o.recordType, recordId: owner.id, actorId: actor.userId, occurredAt: now, payload: { changes: { lst_enabled: { from: from.lst_enabled, to: enabled }, lst_disabled: { from: from.lst_disabled, to: disabled } } } },
      ]);
      return settingOf(owner, row!);
    });
  }
}

/** Sorted and without repeats: a setting is a set. */
function checkList(field: string, list: string[] | null | undefined): string[] {
  const check = new Checker();
  const flags = [...new Set(list ?? [])].sort();
  check.when(flags.length > MAX_FEATURES, field, `at most ${MAX_FEATURES} flags`);
  const bad = flags.filter((f) => !FEATURE_NAME.test(f));
  check.when(bad.length > 0, field, 'each flag is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit');
  check.throwIfAny();
  return flags;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A text[] literal: MikroORM expands JS arrays into comma lists, so arrays travel as one string. */
const pgArray = (flags: string[]) => `{${flags.map((f) => `"${f}"`).join(',')}}`;

function settingOf(owner: Owner, row: FeatureSettingRow): FeatureSettingRow {
  return {
    user_id: owner.kind === 'user' ? owner.id : null,
    organization_id: owner.kind === 'organization' ? owner.id : null,
    lst_enabled: [...row.lst_enabled].sort(),
    lst_disabled: [...row.lst_disabled].sort(),
    ts_created_at: new Date(row.ts_created_at),
    ts_updated_at: new Date(row.ts_updated_at),
  };
}
