import { BIZ_STEP_OF, type EpcisRow } from './epcis.reader.js';
import { EXTENSION_IRI, EXTENSION_PREFIX, GTA_TRANSACTION_TYPE, animalUri, establishmentUri, eventUri, gtaUri, tagUri, unitUri } from './epcis.identifiers.js';

/** GS1's JSON-LD context for EPCIS 2.0 and CBV 2.0, and this service's prefix for its few extension fields. */
export const EPCIS_CONTEXT = ['https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld', { [EXTENSION_PREFIX]: EXTENSION_IRI }];

export type JsonObject = Record<string, unknown>;

/**
 * Brazil's legal time by federative unit (no daylight saving since 2019). The records keep instants
 * (UTC); the offset says the local time where the event happened. Unknown: Brasília time.
 */
const OFFSET_BY_UF: Record<string, string> = { AC: '-05:00', AM: '-04:00', MT: '-04:00', MS: '-04:00', RO: '-04:00', RR: '-04:00' };
export const offsetOfUf = (uf: string | null): string => (uf ? (OFFSET_BY_UF[uf] ?? '-03:00') : '-03:00');

const ext = (name: string) => `${EXTENSION_PREFIX}:${name}`;
const gtasOf = (row: EpcisRow) => (row.gtas ?? []).map((g) => ({ type: GTA_TRANSACTION_TYPE, bizTransaction: gtaUri(g.uf, g.series, g.code) }));

/** One event of the reader as EPCIS 2.0 JSON-LD (CBV 2.0 bare words); null when it lists no animal the caller may see. */
export function epcisEvent(row: EpcisRow): JsonObject | null {
  const epcs = (row.epcs ?? []).map(animalUri);
  if (!epcs.length) return null;
  const head: JsonObject = {
    eventTime: row.event_time.toISOString(),
    eventTimeZoneOffset: offsetOfUf(row.str_federative_unit),
    recordTime: row.record_time.toISOString(),
    eventID: eventUri(row.ekey),
  };
  const readPoint = { id: unitUri(row.read_point_code) };
  const bizLocation = row.biz_location_code ? { bizLocation: { id: unitUri(row.biz_location_code) } } : {};
  const bizStep = BIZ_STEP_OF[row.kind];
  switch (row.kind) {
    case 'commissioning':
      return { type: 'ObjectEvent', ...head, epcList: epcs, action: 'ADD', bizStep, disposition: 'active', readPoint, ...bizLocation };
    case 'shipping':
      // In transit, at no business location (CBV): the GTA is the transaction, the establishments its ends.
      return {
        type: 'ObjectEvent',
        ...head,
        ...(row.error_at ? { errorDeclaration: { declarationTime: row.error_at.toISOString(), reason: 'did_not_occur' } } : {}),
        epcList: epcs,
        action: 'OBSERVE',
        bizStep,
        disposition: 'in_transit',
        readPoint,
        bizTransactionList: gtasOf(row),
        sourceList: row.source_ids.map((id) => ({ type: 'location', source: establishmentUri(id) })),
        destinationList: row.destination_ids.map((id) => ({ type: 'location', destination: establishmentUri(id) })),
      };
    case 'receiving':
    case 'received_found':
      return {
        type: 'ObjectEvent',
        ...head,
        epcList: epcs,
        action: 'OBSERVE',
        bizStep,
        disposition: 'active',
        readPoint,
        ...bizLocation,
        bizTransactionList: gtasOf(row),
        sourceList: row.source_ids.map((id) => ({ type: 'location', source: establishmentUri(id) })),
        destinationList: row.destination_ids.map((id) => ({ type: 'location', destination: establishmentUri(id) })),
      };
    case 'replacing':
      // The animal keeps its identity; the new tag is associated with it, the old one named beside.
      return {
        type: 'AssociationEvent',
        ...head,
        parentID: epcs[0],
        childEPCs: row.child_tag_code ? [tagUri(row.child_tag_code)] : [],
        action: 'ADD',
        bizStep,
        disposition: 'active',
        readPoint,
        ...bizLocation,
        ...(row.old_tag_code ? { [ext('replacedTag')]: tagUri(row.old_tag_code) } : {}),
        [ext('reason')]: row.reason,
      };
    case 'decommissioning':
    case 'died':
      return { type: 'ObjectEvent', ...head, epcList: epcs, action: 'DELETE', bizStep, disposition: 'inactive', readPoint, ...bizLocation, [ext('reason')]: row.reason };
  }
}

const eventsOf = (rows: EpcisRow[]): JsonObject[] => rows.map(epcisEvent).filter((e): e is JsonObject => e !== null);

/** An EPCISDocument (an animal's life). */
export function epcisDocument(rows: EpcisRow[], now: Date): JsonObject {
  return { '@context': EPCIS_CONTEXT, type: 'EPCISDocument', schemaVersion: '2.0', creationDate: now.toISOString(), epcisBody: { eventList: eventsOf(rows) } };
}

/** An EPCISQueryDocument (a page of SimpleEventQuery's answer). */
export function epcisQueryDocument(rows: EpcisRow[], now: Date): JsonObject {
  return {
    '@context': EPCIS_CONTEXT,
    type: 'EPCISQueryDocument',
    schemaVersion: '2.0',
    creationDate: now.toISOString(),
    epcisBody: { queryResults: { queryName: 'SimpleEventQuery', resultsBody: { eventList: eventsOf(rows) } } },
  };
}
