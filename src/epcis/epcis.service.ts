import { bulkOf, type Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { animalScope, animalSource } from '../animals/animal.reader.js';
import type { Animal } from '../animals/animal.entity.js';
import type { Clock } from '../shared/clock.js';
import { readVisible } from '../shared/scoped-query.js';
import { epcisDocument, epcisQueryDocument, type JsonObject } from './epcis.mapper.js';
import { eventQuery, pageToken, type EpcisQueryInput } from './epcis.query.js';
import { readEpcisEvents } from './epcis.reader.js';

/** A page of EPCIS events: the query document, and the token of the next page when there is one. */
export interface EpcisEventsPage {
  document: JsonObject;
  nextPageToken: string | null;
}

/** The chain of custody in GS1 EPCIS 2.0 (CBV 2.0, JSON-LD), read from the domain's records. */
export class EpcisService {
  constructor(private readonly clock: Clock) {}

  /** GET /api/animals/:id/epcis: every event of the animal's life, oldest first; a 404 when the caller does not see it. */
  async animalDocument(db: Db, actor: Actor, id: string): Promise<JsonObject> {
    const { row } = await readVisible<Animal>(db, actor, animalSource, animalScope(actor), id, 'animal');
    // EPCIS documents are exports (a chain of custody, a page of events): read on a replica.
    const rows = await readEpcisEvents(bulkOf(db), actor, { mode: 'animal', animalId: row.id });
    return epcisDocument(rows, this.clock.now());
  }

  /** GET /api/epcis/events: SimpleEventQuery over the events the caller sees, paged by nextPageToken. */
  async events(db: Db, actor: Actor, input: EpcisQueryInput): Promise<EpcisEventsPage> {
    const query = eventQuery(input);
    const rows = await readEpcisEvents(bulkOf(db), actor, { mode: 'events', query });
    const more = rows.length > query.perPage;
    const page = more ? rows.slice(0, query.perPage) : rows;
    const last = page[page.length - 1];
    return {
      document: epcisQueryDocument(page, this.clock.now()),
      nextPageToken: more && last ? pageToken({ us: last.event_us, key: last.ekey }, query.fingerprint) : null,
    };
  }
}
