import { createHash } from 'node:crypto';
import { Checker } from '../shared/validation.js';
import { GTA_TRANSACTION_TYPE, parseEpc, parseGta, parseUnit } from './epcis.identifiers.js';

/** The business steps this service records (CBV 2.0 bare words). */
export const BIZ_STEPS = ['commissioning', 'shipping', 'receiving', 'replacing', 'decommissioning'] as const;
export type BizStep = (typeof BIZ_STEPS)[number];

/** EPCIS 2.0's SimpleEventQuery parameters that fit this service (the REST binding's query string, GraphQL's arguments). */
export interface EpcisQueryInput {
  GE_eventTime?: string | null;
  LT_eventTime?: string | null;
  EQ_bizStep?: string[] | null;
  /** EPCs in an event's epcList or childEPCs (the standard's MATCH_epc: not its parentID). */
  MATCH_epc?: string[] | null;
  MATCH_parentID?: string[] | null;
  /** EPCs anywhere in an event: epcList, childEPCs, parentID. */
  MATCH_anyEPC?: string[] | null;
  EQ_bizLocation?: string[] | null;
  /** This service's shorthand: GTA URIs, of the GTA type. */
  EQ_bizTransaction?: string[] | null;
  /** The standard's EQ_bizTransaction_<type>: each a type (the bizTransaction type, a URI) and its values. */
  bizTransactionsOfType?: { type: string; values: string[] }[] | null;
  perPage?: number | null;
  nextPageToken?: string | null;
}

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 500;
/** More values than this in one list parameter is a 422: a query stays bounded. */
const MAX_VALUES = 100;

/** Where a page starts: after this event in (eventTime in microseconds, event key) order. */
export interface Cursor {
  us: string;
  key: string;
}

/** The query checked and reduced to what the reader filters on; a list left null filters nothing. */
/** The animals (by lifetime code, id) and tags an EPC list names. */
export interface EpcMatch {
  animalCodes: string[];
  animalIds: string[];
  tagCodes: string[];
}

export interface GtaRef {
  uf: string;
  series: string | null;
  code: string;
}

export interface EventQuery {
  from: Date | null;
  to: Date | null;
  bizSteps: BizStep[] | null;
  /** MATCH_epc: events listing these animals (epcList) or these tags (childEPCs). */
  epcs: EpcMatch | null;
  /** MATCH_parentID: events whose parent is one of these animals (a tag association). */
  parentIds: EpcMatch | null;
  /** MATCH_anyEPC: either. */
  anyEpcs: EpcMatch | null;
  unitCodes: string[] | null;
  /** Each an EQ_bizTransaction filter: an event passes when it is under a GTA of every list. */
  gtas: GtaRef[][] | null;
  /** A filter no event of this service can pass (a bizTransaction type it never records). */
  none: boolean;
  perPage: number;
  after: Cursor | null;
  /** Names the filters: a page token is good only for the query it came from. */
  fingerprint: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function time(check: Checker, name: string, value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const at = ISO.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) {
    check.add(name, 'must be an ISO 8601 date-time with its offset (2025-03-01T12:00:00Z)');
    return null;
  }
  return at;
}

function list(check: Checker, name: string, values: string[] | null | undefined): string[] | null {
  if (values === undefined || values === null) return null;
  if (values.length === 0 || values.some((v) => v.trim() === '')) check.add(name, 'must not be empty');
  if (values.length > MAX_VALUES) check.add(name, `at most ${MAX_VALUES} values`);
  return values.map((v) => v.trim());
}

/** `shipping`, `https://ref.gs1.org/cbv/BizStep-shipping` and `urn:epcglobal:cbv:bizstep:shipping` are one step. */
export function bareBizStep(value: string): string {
  const m = /^(?:https?:\/\/ref\.gs1\.org\/cbv\/BizStep-|urn:epcglobal:cbv:bizstep:)(.+)$/.exec(value);
  return m ? m[1]! : value;
}

/** An EPC list parameter: animal URIs (lifetime code or id) and tag URIs; a tag names its animal too. */
function epcMatch(check: Checker, name: string, values: string[] | null | undefined): EpcMatch | null {
  const given = list(check, name, values);
  if (!given) return null;
  const match: EpcMatch = { animalCodes: [], animalIds: [], tagCodes: [] };
  for (const v of given) {
    const epc = parseEpc(v);
    if (!epc) check.add(name, `${v.slice(0, 100)} is not an animal or tag URI (urn:pnib:animal:<code>, urn:pnib:tag:<code>)`);
    else if ('animalCode' in epc) match.animalCodes.push(epc.animalCode);
    else if ('animalId' in epc) match.animalIds.push(epc.animalId);
    else match.tagCodes.push(epc.tagCode);
  }
  return match;
}

function gtaList(check: Checker, name: string, values: string[] | null | undefined): GtaRef[] | null {
  return (
    list(check, name, values)?.flatMap((v) => {
      const gta = parseGta(v);
      if (!gta) check.add(name, `${v.slice(0, 100)} is not a GTA URI (urn:pnib:bt:gta:<UF>:<series or ->:<number>)`);
      return gta ? [gta] : [];
    }) ?? null
  );
}

/** The query's parameters checked (422 naming each bad one) and reduced to filters. */
export function eventQuery(input: EpcisQueryInput): EventQuery {
  const check = new Checker();
  const from = time(check, 'GE_eventTime', input.GE_eventTime);
  const to = time(check, 'LT_eventTime', input.LT_eventTime);

  const steps = list(check, 'EQ_bizStep', input.EQ_bizStep);
  // A step this service never records matches nothing, as EPCIS answers; it is not an error.
  const bizSteps = steps ? BIZ_STEPS.filter((s) => steps.map(bareBizStep).includes(s)) : null;

  const epcs = epcMatch(check, 'MATCH_epc', input.MATCH_epc);
  const parentIds = epcMatch(check, 'MATCH_parentID', input.MATCH_parentID);
  const anyEpcs = epcMatch(check, 'MATCH_anyEPC', input.MATCH_anyEPC);

  const locations = list(check, 'EQ_bizLocation', input.EQ_bizLocation);
  const unitCodes = locations?.map((v) => {
    const code = parseUnit(v);
    if (code === null) check.add('EQ_bizLocation', `${v.slice(0, 100)} is not a control unit URI (urn:pnib:loc:unit:<code>)`);
    return code ?? '';
  }) ?? null;

  let none = false;
  const gtaLists: GtaRef[][] = [];
  const shorthand = gtaList(check, 'EQ_bizTransaction', input.EQ_bizTransaction);
  if (shorthand) gtaLists.push(shorthand);
  for (const { type, values } of input.bizTransactionsOfType ?? []) {
    const name = `EQ_bizTransaction_${type}`;
    // A type this service never records matches nothing, as the standard answers; its values are not ours to judge.
    if (type !== GTA_TRANSACTION_TYPE) {
      list(check, name, values);
      none = true;
    } else gtaLists.push(gtaList(check, name, values)!);
  }
  const gtas = gtaLists.length ? gtaLists : null;

  const perPage = input.perPage ?? DEFAULT_PER_PAGE;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) check.add('perPage', `must be an integer from 1 to ${MAX_PER_PAGE}`);

  const fingerprint = createHash('sha256')
    .update(JSON.stringify([from?.toISOString(), to?.toISOString(), bizSteps, epcs, parentIds, anyEpcs, unitCodes, gtas, none]))
    .digest('base64url')
    .slice(0, 16);
  let after: Cursor | null = null;
  if (input.nextPageToken !== undefined && input.nextPageToken !== null) {
    after = readToken(input.nextPageToken, fingerprint);
    if (!after) check.add('nextPageToken', 'is not a token this query gave (ask again with the same parameters, or without the token)');
  }
  check.throwIfAny();
  return { from, to, bizSteps, epcs, parentIds, anyEpcs, unitCodes, gtas, none, perPage, after, fingerprint };
}

/** The opaque token of the page after `last`, for the same query. */
export function pageToken(last: Cursor, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ t: last.us, k: last.key, f: fingerprint })).toString('base64url');
}

function readToken(token: string, fingerprint: string): Cursor | null {
  if (token.length > 500) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!v || typeof v !== 'object') return null;
    const { t, k, f } = v as Record<string, unknown>;
    if (typeof t !== 'string' || !/^-?\d{1,20}$/.test(t) || typeof k !== 'string' || k.length > 200 || f !== fingerprint) return null;
    return { us: t, key: k };
  } catch {
    return null;
  }
}
