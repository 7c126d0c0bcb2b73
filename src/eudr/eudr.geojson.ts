import { geoPointOf } from '../places/establishment.rules.js';
import { coordinateText } from './eudr-point.rules.js';
import type { EudrHoldingRow } from './eudr.reader.js';

/** The properties the EU information system (TRACES) reads from each feature, then this service's own. */
export interface EudrFeatureProperties {
  ProducerName: string;
  ProducerCountry: 'BR';
  ProductionPlace: string;
  /** Hectares, where the establishment's area is known. */
  Area?: number;
  establishment_id: string;
  str_car: string | null;
  str_socioenvironmental_status: string;
  /** The first and last day (UTC) any animal of the lot was there. */
  str_first_day: string;
  str_last_day: string;
  int_animals: number;
}

export interface EudrFeature {
  type: 'Feature';
  /** Null (RFC 7946 §3.2, an unlocated feature) when the establishment has no point: the holding is never dropped. */
  geometry: { type: 'Point'; coordinates: [number, number] } | null;
  properties: EudrFeatureProperties;
}

export interface EudrFeatureCollection {
  type: 'FeatureCollection';
  features: EudrFeature[];
}

const day = (t: Date) => t.toISOString().slice(0, 10);

/** One Point feature per establishment (RFC 7946), in the order the lot first stood there. */
export function featureCollectionOf(rows: readonly EudrHoldingRow[]): EudrFeatureCollection {
  return {
    type: 'FeatureCollection',
    features: rows.map((r) => ({
      type: 'Feature',
      geometry: geoPointOf(r),
      properties: {
        ProducerName: r.str_responsible_user_name ?? r.str_name,
        ProducerCountry: 'BR',
        ProductionPlace: r.str_name,
        ...(r.dec_area === null ? {} : { Area: Number(r.dec_area) }),
        establishment_id: r.id,
        str_car: r.str_car,
        str_socioenvironmental_status: r.str_socioenvironmental_status,
        str_first_day: day(r.ts_first),
        str_last_day: day(r.ts_last),
        int_animals: r.int_animals,
      },
    })),
  };
}

/** The collection as `application/geo+json` text, each coordinate written with at least six decimals (JSON.stringify would drop trailing zeros). */
export function geojsonText(fc: EudrFeatureCollection): string {
  const features = fc.features.map((f) => {
    const geometry = f.geometry ? `{"type":"Point","coordinates":[${f.geometry.coordinates.map(coordinateText).join(',')}]}` : 'null';
    return `{"type":"Feature","geometry":${geometry},"properties":${JSON.stringify(f.properties)}}`;
  });
  return `{"type":"FeatureCollection","features":[${features.join(',')}]}`;
}
