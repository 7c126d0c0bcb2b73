import { GTA_TRANSACTION_TYPE } from '../graphql/epcis/epcis.document.js';
import { DomainError } from '../src/shared/errors.js';
import type { Route } from './route.js';

/** The standard's GTA filter: EQ_bizTransaction_<type>, the type in the name (EPCIS 2.0 §8.2.7.1). */
const BIZ_TRANSACTION_OF_TYPE = /^EQ_bizTransaction_(.+)$/;
export const GTA_FILTER = `EQ_bizTransaction_${GTA_TRANSACTION_TYPE}`;

/** EPCIS 2.0 SimpleEventQuery's parameters this service answers: the EpcisEvents operation's variables (EQ_bizTransaction_<type> for any type). */
const EPCIS_QUERY_PARAMETERS = ['GE_eventTime', 'LT_eventTime', 'EQ_bizStep', 'MATCH_epc', 'MATCH_parentID', 'MATCH_anyEPC', 'EQ_bizLocation', GTA_FILTER, 'EQ_bizTransaction', 'perPage', 'nextPageToken'] as const;

const LISTS = new Set(['EQ_bizStep', 'MATCH_epc', 'MATCH_parentID', 'MATCH_anyEPC', 'EQ_bizLocation', 'EQ_bizTransaction']);

/**
 * EPCIS 2.0's query string: a list parameter repeated or its values separated by `|`, the others
 * given once; perPage digits. An unknown parameter is a 422 naming it and the accepted ones.
 */
export function epcisQueryVariables(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields: Record<string, string[]> = {};
  const ofType: { type: string; values: string[] }[] = [];
  for (const [key, raw] of Object.entries(query)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map(String);
    const typed = key === 'EQ_bizTransaction' ? null : BIZ_TRANSACTION_OF_TYPE.exec(key);
    if (typed) {
      ofType.push({ type: typed[1]!, values: values.flatMap((v) => v.split('|')) });
      continue;
    }
    if (!(EPCIS_QUERY_PARAMETERS as readonly string[]).includes(key)) {
      fields[key] = [`is not a query parameter here; accepted: ${EPCIS_QUERY_PARAMETERS.join(', ')} (EQ_bizTransaction_<any type>)`];
      continue;
    }
    if (LISTS.has(key)) out[key] = values.flatMap((v) => v.split('|'));
    else if (values.length !== 1) fields[key] = ['must be given once'];
    else if (key === 'perPage') {
      if (/^\d{1,9}$/.test(values[0]!)) out[key] = Number(values[0]);
      else fields[key] = ['must be an integer from 1 to 500'];
    } else out[key] = values[0];
  }
  if (Object.keys(fields).length) throw DomainError.validation(fields);
  if (ofType.length) out.bizTransactionsOfType = ofType;
  return out;
}

const IDENTIFIERS = 'Identifiers: urn:pnib:animal:<lifetime 076 code>, urn:pnib:tag:<code>, urn:pnib:loc:unit:<unit code>, urn:pnib:loc:establishment:<id>, urn:pnib:bt:gta:<UF>:<series or ->:<number>';

/** The chain of custody in GS1 EPCIS 2.0 (CBV 2.0, JSON-LD), under both prefixes: the public API serves the integrators who read it. */
const epcisRoutesUnder = (base: string): Route[] => [
  {
    method: 'GET',
    path: `${base}/animals/:id/epcis`,
    auth: true,
    operation: 'AnimalEpcis',
    status: 200,
    params: { id: { variable: 'id', uuid: true } },
    pick: 'animalEpcis',
    document: {},
    tag: 'EPCIS',
    errors: [400, 404],
    summary: `The animal's whole life as a GS1 EPCIS 2.0 EPCISDocument (application/ld+json, CBV 2.0): commissioning at identification, shipping and receiving under its GTAs, tag replacements, decommissioning at death, slaughter or export. ${IDENTIFIERS}`,
  },
  {
    method: 'GET',
    path: `${base}/epcis/events`,
    auth: true,
    operation: 'EpcisEvents',
    status: 200,
    queryParameters: { names: EPCIS_QUERY_PARAMETERS, toVariables: epcisQueryVariables },
    pick: 'epcisEvents',
    document: { field: 'document', nextPageToken: 'nextPageToken' },
    tag: 'EPCIS',
    summary: `EPCIS 2.0 SimpleEventQuery over the events the caller sees, oldest first, as an EPCISQueryDocument (application/ld+json): GE_eventTime, LT_eventTime, EQ_bizStep, MATCH_epc (epcList and childEPCs), MATCH_parentID, MATCH_anyEPC, EQ_bizLocation, ${GTA_FILTER} (the standard's EQ_bizTransaction_<type>; EQ_bizTransaction takes GTA URIs too) (lists repeated or separated by |), perPage (1-500, default 50); the next page's URL (with nextPageToken) in the Link header, rel="next". ${IDENTIFIERS}`,
  },
];

export const epcisRoutes: Route[] = [...epcisRoutesUnder('/api'), ...epcisRoutesUnder('/api/v1')];
