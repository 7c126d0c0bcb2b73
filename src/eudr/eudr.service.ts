import { bulkOf, type Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { checkLot, type EudrLotInput } from './eudr-lot.input.js';
import { featureCollectionOf, geojsonText, type EudrFeatureCollection } from './eudr.geojson.js';
import { eudrPolicy } from './eudr.policy.js';
import { readLotHoldings, type EudrLot } from './eudr.reader.js';
import type { Scope } from '../shared/scoped-query.js';
import { verdictOf, type EudrVerdict } from './eudr.verdict.js';

/** A lot's due-diligence geolocation: the FeatureCollection TRACES takes, its text, and the verdict beside it. */
export interface EudrGeolocation {
  feature_collection: EudrFeatureCollection;
  /** The collection as served (`application/geo+json`), coordinates with six decimals at least. */
  text: string;
  verdict: EudrVerdict;
}

/** EUDR due diligence (Regulation (EU) 2023/1115): every holding a lot of cattle ever stood on (docs/decisions/eudr.md). */
export class EudrService {
  /** `maxStatementBytes`: the EU information system's limit on a statement's file (EUDR_STATEMENT_MAX_BYTES). */
  constructor(private readonly maxStatementBytes: number) {}

  /** POST /api/eudr/geolocation and /api/eudr/verdict: two statements whatever the lot's size (authentication, the read). */
  async geolocation(db: Db, actor: Actor, input: EudrLotInput): Promise<EudrGeolocation> {
    const { lot, expected } = checkLot(input);
    return this.ofLot(db, lot, eudrPolicy.holderScope(actor), expected, actor.now);
  }

  /** A checked lot's answer, `holder` deciding who may ask (a recorded statement's lot: whoever may read the statement). */
  async ofLot(db: Db, lot: EudrLot, holder: Scope, expected: number | null, now: Date): Promise<EudrGeolocation> {
    // A bulk read: on a replica when there is one (docs/decisions/replicas.md).
    const rows = await readLotHoldings(bulkOf(db), lot, holder, expected, now);
    if (!rows.length) throw DomainError.notFound('lot');
    const fc = featureCollectionOf(rows);
    const text = geojsonText(fc);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.maxStatementBytes) {
      throw new DomainError('RULE_VIOLATED', {
        rule: 'EUDR_STATEMENT_TOO_LARGE',
        message: `the lot's ${rows.length} establishments make a ${bytes}-byte GeoJSON file, over the EU information system's limit of ${this.maxStatementBytes} bytes: split the lot`,
        int_limit_bytes: this.maxStatementBytes,
        int_bytes: bytes,
        int_establishments: rows.length,
      });
    }
    return { feature_collection: fc, text, verdict: verdictOf(rows) };
  }
}
