import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import { mustFindVisible, readVisible, type Read } from '../shared/scoped-query.js';
import { Checker } from '../shared/validation.js';
import { checkLot, type EudrLotInput } from './eudr-lot.input.js';
import { EudrStatement, type EudrStatementRef, type StoredLot } from './eudr-statement.entity.js';
import { eudrStatementPolicy } from './eudr-statement.policy.js';
import { eudrStatementSource, statementsOfAnimals, statementsOfGtas, type EudrStatementReferenceRow } from './eudr-statement.reader.js';
import { eudrPolicy } from './eudr.policy.js';
import { lotSql, type EudrLot } from './eudr.reader.js';
import type { EudrGeolocation, EudrService } from './eudr.service.js';

/** What TRACES gave on submission, and the upstream statements this one references (PATCH). */
export interface EudrStatementUpdate {
  str_reference_number?: string | null;
  str_verification_number?: string | null;
  str_dds_identifier?: string | null;
  upstream_statements?: { str_reference_number?: string | null; str_verification_number?: string | null }[] | null;
}

/** TRACES's reference number: the year's two digits, the member state's code, then letters and digits (`25FRVHQ8JAPRTG`). */
const REFERENCE = /^\d{2}[A-Z]{2}[A-Z0-9]{6,20}$/;
/** TRACES's verification number: letters and digits (`Y6ADF7PF`). */
const VERIFICATION = /^[A-Z0-9]{6,12}$/;
export const MAX_UPSTREAM = 500;

const upper = (v: string | null | undefined): string | null | undefined => (typeof v === 'string' ? v.trim().toUpperCase() : v);

function storedLot(lot: EudrLot): StoredLot {
  switch (lot.kind) {
    case 'gta':
      return { gta_id: lot.gtaId };
    case 'ingress':
      return { animals_ingress_id: lot.ingressId };
    case 'animals':
      return { lst_animal_ids: lot.animalIds };
    case 'tags':
      return { lst_tag_codes: lot.tagCodes };
    case 'slaughter':
      return { control_unit_id: lot.controlUnitId, ts_from: lot.from.toISOString(), ts_to: lot.to.toISOString() };
    case 'statement':
      throw new Error('a statement is not made of a statement');
  }
}

/** A lot's EUDR due diligence statement as a record (issue 38; docs/decisions/eudr.md, "The statement"). */
export class EudrStatementService {
  constructor(private readonly eudr: EudrService) {}

  read(db: Db, actor: Actor, id: string): Promise<Read<EudrStatement>> {
    return readVisible(db, actor, eudrStatementSource, eudrStatementPolicy.scope(actor), id, 'statement');
  }

  /**
   * Records the statement of a lot whoever may ask for its geolocation may make (the holder, an
   * authority of its UF, an administrator): the lot is checked and answered as POST /api/eudr/geolocation
   * does (404, the file limit), and the animals it holds now are kept with it.
   */
  async create(em: EntityManager, db: Db, actor: Actor, input: EudrLotInput): Promise<EudrStatement> {
    const { lot, expected } = checkLot(input);
    const answer = await this.eudr.ofLot(db, lot, eudrPolicy.holderScope(actor), expected, actor.now);
    return em.transactional(async (tx) => {
      const statement = tx.create(EudrStatement, {
        organization_id: actor.organizationId ?? null,
        created_by_id: actor.userId,
        lot: storedLot(lot),
        gta_id: lot.kind === 'gta' ? lot.gtaId : null,
        int_animals: answer.verdict.int_animals,
        upstream_statements: [],
      });
      tx.persist(statement);
      await tx.flush();
      const members = lotSql(lot);
      // Bound as they are: a list is one array parameter, which the ORM's execute would spread.
      await executeBound(tx, `insert into eudr_statement_animal (statement_id, animal_id) select distinct ?::uuid, m.animal_id from (${members.sql}) m`, [statement.id, ...members.params]);
      await appendEvent(tx, {
        type: 'EUDR_STATEMENT_CREATED',
        recordType: 'EudrStatement',
        recordId: statement.id,
        actorId: actor.userId,
        payload: { organization_id: statement.organization_id, lot: statement.lot, int_animals: statement.int_animals, str_status: answer.verdict.str_status },
      });
      return statement;
    });
  }

  /** The statement's GeoJSON and verdict, read now for the animals it held when it was made (a point fixed since shows). */
  async geolocation(db: Db, actor: Actor, id: string): Promise<EudrGeolocation> {
    const { row } = await this.read(db, actor, id);
    return this.eudr.ofLot(db, { kind: 'statement', statementId: row.id }, { sql: 'true', params: [] }, null, actor.now);
  }

  /** The submitted statements of an animal or a GTA the caller has been found to read. */
  referencesOf(db: Db, of: 'animal' | 'gta', id: string): Promise<EudrStatementReferenceRow[]> {
    return of === 'animal' ? statementsOfAnimals(db, [id]) : statementsOfGtas(db, [id]);
  }

  /** PATCH: what TRACES gave on submission and the upstream statements it references. */
  async update(em: EntityManager, actor: Actor, id: string, input: EudrStatementUpdate): Promise<EudrStatement> {
    const statement = await mustFindVisible(em, EudrStatement, 'eudr_statement es', eudrStatementPolicy.scope(actor), id, 'statement');
    eudrStatementPolicy.canRecord(actor, statement);
    const check = new Checker();
    const changes: Record<string, unknown> = {};
    const reference = upper(input.str_reference_number);
    if (reference !== undefined) {
      check.when(reference !== null && !REFERENCE.test(reference), 'str_reference_number', "must be TRACES's reference number, e.g. 25BRVHQ8JAPRTG");
      changes.str_reference_number = reference;
    }
    const verification = upper(input.str_verification_number);
    if (verification !== undefined) {
      check.when(verification !== null && !VERIFICATION.test(verification), 'str_verification_number', "must be TRACES's verification number, e.g. Y6ADF7PF");
      changes.str_verification_number = verification;
    }
    if (input.str_dds_identifier !== undefined) {
      const identifier = input.str_dds_identifier === null ? null : input.str_dds_identifier.trim().toLowerCase();
      check.when(identifier !== null && !isUuid(identifier), 'str_dds_identifier', "must be the DDS identifier TRACES gave (a uuid)");
      changes.str_dds_identifier = identifier;
    }
    if (input.upstream_statements !== undefined) {
      const list = input.upstream_statements ?? [];
      check.when(list.length > MAX_UPSTREAM, 'upstream_statements', `must hold at most ${MAX_UPSTREAM} statements`);
      const refs: EudrStatementRef[] = [];
      list.forEach((u, i) => {
        const r = upper(u.str_reference_number) ?? '';
        const v = upper(u.str_verification_number) ?? '';
        check.when(!REFERENCE.test(r), `upstream_statements[${i}].str_reference_number`, "must be TRACES's reference number, e.g. 25BRVHQ8JAPRTG");
        check.when(!VERIFICATION.test(v), `upstream_statements[${i}].str_verification_number`, "must be TRACES's verification number, e.g. Y6ADF7PF");
        if (!refs.some((x) => x.str_reference_number === r)) refs.push({ str_reference_number: r, str_verification_number: v });
      });
      changes.upstream_statements = refs;
    }
    const number = changes.str_reference_number === undefined ? statement.str_reference_number : (changes.str_reference_number as string | null);
    check.when(number === null && (changes.str_verification_number ?? changes.str_dds_identifier) != null, 'str_reference_number', 'is required with the verification number and the DDS identifier');
    check.throwIfAny();
    return em.transactional(async (tx) => {
      if (typeof changes.str_reference_number === 'string' && changes.str_reference_number !== statement.str_reference_number) {
        const taken = await tx.count(EudrStatement, { str_reference_number: changes.str_reference_number, id: { $ne: statement.id } });
        if (taken) throw DomainError.conflict('str_reference_number', 'is already recorded on another statement');
      }
      const changed = Object.fromEntries(Object.entries(changes).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify((statement as unknown as Record<string, unknown>)[k])));
      if (!Object.keys(changed).length) return statement;
      Object.assign(statement, changed);
      if (statement.str_reference_number && !statement.ts_submitted_at) statement.ts_submitted_at = actor.now;
      if (!statement.str_reference_number) statement.ts_submitted_at = null;
      tx.persist(statement);
      await tx.flush();
      await appendEvent(tx, { type: 'EUDR_STATEMENT_UPDATED', recordType: 'EudrStatement', recordId: statement.id, actorId: actor.userId, payload: { changes: changed } });
      return statement;
    });
  }
}
