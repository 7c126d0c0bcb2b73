import { createHash } from 'node:crypto';
import { Checker } from '../shared/validation.js';
import { parseEpc, parseGta, parseUnit } from './epcis.identifiers.js';

/** The business steps this service records (CBV 2.0 bare words). */
export const BIZ_STEPS = ['commissioning', 'shipping', 'receiving', 'replacing', 'decommissioning'] as const;
export type BizStep = (typeof BIZ_STEPS)[number];

/** EPCIS 2.0's SimpleEventQuery parameters that fit this service (the REST binding's query string, GraphQL's arguments). */
export interface EpcisQueryInput {
  GE_eventTime?: string | null;
  LT_eventTime?: string | null;
  EQ_bizStep?: string[] | null;
  MATCH_epc?: string[] | null;
  EQ_bizLocation?: string[] | null;
  EQ_bizTransaction?: string[] | null;
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
export interface EventQuery {
  from: Date | null;
  to: Date | null;
  bizSteps: BizStep[] | null;
  epcs: { animalCodes: string[]; animalIds: string[]; tagCodes: string[] } | null;
  unitCodes: string[] | null;
  gtas: { uf: string; series: string | null; code: string }[] | null;
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

/** The query's parameters checked (422 naming each bad one) and reduced to filters. */
export function eventQuery(input: EpcisQueryInput): EventQuery {
  const check = new Checker();
  const from = time(check, 'GE_eventTime', input.GE_eventTime);
  const to = time(check, 'LT_eventTime', input.LT_eventTime);

  const steps = list(check, 'EQ_bizStep', input.EQ_bizStep);
  // A step this service never records matches nothing, as EPCIS answers; it is not an error.
  const bizSteps = steps ? BIZ_STEPS.filter((s) => steps.map(bareBizStep).includes(s)) : null;

  const epcValues = list(check, 'MATCH_epc', input.MATCH_epc);
  let epcs: EventQuery['epcs'] = null;
  if (epcValues) {
    epcs = { animalCodes: [], animalIds: [], tagCodes: [] };
    for (const v of epcValues) {
      const epc = parseEpc(v);
      if (!epc) check.add('MATCH_epc', `${v.slice(0, 100)} is not an animal or tag URI (urn:pnib:animal:<code>, urn:pnib:tag:<code>)`);
      else if ('animalCode' in epc) epcs.animalCodes.push(epc.animalCode);
      else if ('animalId' in epc) epcs.animalIds.push(epc.animalId);
      else epcs.tagCodes.push(epc.tagCode);
    }
  }

  const locations = list(check, 'EQ_bizLocation', input.EQ_bizLocation);
  const unitCodes = locations?.map((v) => {
    const code = parseUnit(v);
    if (code === null) check.add('EQ_bizLocation', `${v.slice(0, 100)} is not a control unit URI (urn:pnib:loc:unit:<code>)`);
    return code ?? '';
  }) ?? null;

  const transactions = list(check, 'EQ_bizTransaction', input.EQ_bizTransaction);
  const gtas = transactions?.flatMap((v) => {
    const gta = parseGta(v);
    if (!gta) check.add('EQ_bizTransaction', `${v.slice(0, 100)} is not a GTA URI (urn:pnib:bt:gta:<UF>:<series or ->:<number>)`);
    return gta ? [gta] : [];
  }) ?? null;

  const perPage = input.perPage ?? DEFAULT_PER_PAGE;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) check.add('perPage', `must be an integer from 1 to ${MAX_PER_PAGE}`);

  const fingerprint = createHash('sha256')
    .update(JSON.stringify([from?.toISOString(), to?.toISOString(), bizSteps, epcs, unitCodes, gtas]))
    .digest('base64url')
    .slice(0, 16);
  let after: Cursor | null = null;
  if (input.nextPageToken !== undefined && input.nextPageToken !== null) {
    after = readToken(input.nextPageToken, fingerprint);
    if (!after) check.add('nextPageToken', 'is not a token this query gave (ask again with the same parameters, or without the token)');
  }
  check.throwIfAny();
  return { from, to, bizSteps, epcs, unitCodes, gtas, perPage, after, fingerprint };
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
