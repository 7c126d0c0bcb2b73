import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { Checker } from '../shared/validation.js';
import type { Actor } from './actor.js';
import { PrivacyTerms } from './privacy-terms.entity.js';
import { currentTerms, type PrivacyTermsRow } from './privacy-terms.reader.js';

/** Privacy And Terms Publish. */
export interface PrivacyTermsInput {
  id?: string | null;
  str_version?: string | null;
  str_text?: string | null;
}

/** Privacy And Terms Accept: the version the user read, when the client says (a newer one published meanwhile is refused). */
export interface PrivacyTermsAcceptInput {
  str_version?: string | null;
}

const VERSION_MAX = 64;

/**
 * Privacy And Terms (DOMAIN.md, "Singletons"): the current version is the latest published, readable
 * by anyone; administrators publish; a user accepts the current one (User.ts_terms_accepted_at).
 * A user has accepted the current version when it accepted at or after its publication: a new
 * version asks everyone again.
 */
export class PrivacyTermsService {
  async current(db: Db, actor: Actor | null): Promise<PrivacyTermsRow> {
    const row = await currentTerms(db, actor?.userId ?? null);
    if (!row) throw DomainError.notFound('privacy and terms (none published yet)');
    return row;
  }

  async publish(em: EntityManager, actor: Actor, body: PrivacyTermsInput): Promise<PrivacyTermsRow> {
    if (!actor.isAdmin) throw DomainError.forbidden('only administrators publish privacy and terms');
    const input = { id: body.id?.toLowerCase() ?? null, str_version: body.str_version?.trim() ?? null, str_text: body.str_text?.trim() ?? null };
    const check = new Checker();
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    check.required('str_version', input.str_version).required('str_text', input.str_text);
    if (input.str_version) check.when(input.str_version.length > VERSION_MAX, 'str_version', `at most ${VERSION_MAX} characters`);
    check.throwIfAny();
    const hash = bodyHash({ ...input, id: undefined });
    const terms = await em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, PrivacyTerms, 'privacy_terms', 'PrivacyTerms', 'PRIVACY_TERMS_PUBLISHED', input.id, hash, () => true);
        if (replayed) return replayed;
      }
      // Publications are rare: one at a time keeps "the latest" unambiguous.
      await tx.execute('lock table privacy_terms in share row exclusive mode');
      const [taken] = await tx.execute<unknown[]>('select 1 from privacy_terms where str_version = ?', [input.str_version]);
      if (taken) throw DomainError.conflict('str_version', 'was already published');
      const now = new Date();
      const terms = tx.create(PrivacyTerms, {
        ...(input.id ? { id: input.id } : {}),
        str_version: input.str_version!,
        str_text: input.str_text!,
        publisher_user_id: actor.userId,
        ts_published_at: now,
        ts_created_at: now,
        ts_updated_at: now,
      });
      await tx.persist(terms).flush();
      await appendEvents(tx, [
        { type: 'PRIVACY_TERMS_PUBLISHED', recordType: 'PrivacyTerms', recordId: terms.id, actorId: actor.userId, occurredAt: now, payload: { changes: { str_version: terms.str_version, ts_published_at: now.toISOString() }, body_hash: hash } },
      ]);
      return terms;
    });
    return { ...rowOf(terms), ts_terms_accepted_at: null, bl_accepted: null };
  }

  /** Accepting the version already accepted changes nothing and writes no event. */
  async accept(em: EntityManager, actor: Actor, input: PrivacyTermsAcceptInput): Promise<PrivacyTermsRow> {
    const version = input.str_version?.trim() || null;
    return em.transactional(async (tx) => {
      const [row] = await tx.execute<Record<string, unknown>[]>('select * from privacy_terms order by ts_published_at desc, id desc limit 1 for share');
      if (!row) throw DomainError.notFound('privacy and terms (none published yet)');
      const terms = tx.map(PrivacyTerms, row as never);
      if (version && version !== terms.str_version) {
        throw new DomainError('INVALID_STATE', { str_version: terms.str_version, message: `version ${version} is not the current one (${terms.str_version}): read the current terms and accept them` });
      }
      const [user] = await tx.execute<{ ts_terms_accepted_at: Date | string | null }[]>('select ts_terms_accepted_at from "user" where id = ? for update', [actor.userId]);
      const before = user?.ts_terms_accepted_at ? new Date(user.ts_terms_accepted_at) : null;
      if (before && before >= terms.ts_published_at) return { ...rowOf(terms), ts_terms_accepted_at: before, bl_accepted: true };
      const now = new Date();
      await tx.execute('update "user" set ts_terms_accepted_at = ?, ts_updated_at = ? where id = ?', [now, now, actor.userId]);
      await appendEvents(tx, [
        {
          type: 'PRIVACY_TERMS_ACCEPTED',
          recordType: 'User',
          recordId: actor.userId,
          actorId: actor.userId,
          occurredAt: now,
          payload: { changes: { ts_terms_accepted_at: { from: before?.toISOString() ?? null, to: now.toISOString() } }, refs: { privacy_terms_id: terms.id, str_version: terms.str_version } },
        },
      ]);
      return { ...rowOf(terms), ts_terms_accepted_at: now, bl_accepted: true };
    });
  }
}

const rowOf = (t: PrivacyTerms) => ({ id: t.id, str_version: t.str_version, str_text: t.str_text, ts_published_at: t.ts_published_at, ts_created_at: t.ts_created_at, ts_updated_at: t.ts_updated_at });
