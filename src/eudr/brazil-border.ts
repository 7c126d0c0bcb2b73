import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { pointToPolygonDistance } from '@turf/point-to-polygon-distance';
import type { Polygon, Position } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';

/**
 * Brazil's land as Natural Earth 1:10m draws it (world-atlas 2, Natural Earth 4.1, public domain):
 * the mainland and the islands it keeps (Fernando de Noronha; Trindade, Martim Vaz and São Pedro e
 * São Paulo lie 3-5 km from their outlines there). A point within `BRAZIL_TOLERANCE_KM` of it counts
 * as inside: the 1:10m outline is about a kilometre off the true coast and border in places, and a
 * farm on the shore or the border must not be refused for the map's scale (docs/decisions/eudr.md).
 */
export const BRAZIL_TOLERANCE_KM = 10;

interface Part {
  polygon: Polygon;
  /** The part's bounding box widened by the tolerance: [west, south, east, north]. */
  near: [number, number, number, number];
}

let parts: Part[] | null = null;

/** The 1:10m file is 3.6 MB: read once, on the first point checked. */
function brazilParts(): Part[] {
  if (parts) return parts;
  const require = createRequire(import.meta.url);
  const topology = JSON.parse(readFileSync(require.resolve('world-atlas/countries-10m.json'), 'utf8')) as Topology<{ countries: GeometryCollection<{ name?: string }> }>;
  const brazil = topology.objects.countries.geometries.find((g) => (g.properties as { name?: string } | undefined)?.name === 'Brazil');
  const shape = brazil && feature(topology, brazil);
  const geometry = shape && 'geometry' in shape ? shape.geometry : null;
  if (geometry?.type !== 'MultiPolygon') throw new Error("world-atlas's countries-10m.json has no Brazil as a MultiPolygon");
  const polygons: Position[][][] = geometry.coordinates;
  // A degree of latitude is 111 km; a degree of longitude shrinks with the latitude (Brazil's far south, 34°S: 92 km).
  const dLat = BRAZIL_TOLERANCE_KM / 111;
  const dLon = BRAZIL_TOLERANCE_KM / 92;
  parts = polygons.map((coordinates) => {
    const ring = coordinates[0]!;
    const lons = ring.map((p) => p[0]!);
    const lats = ring.map((p) => p[1]!);
    return { polygon: { type: 'Polygon', coordinates }, near: [Math.min(...lons) - dLon, Math.min(...lats) - dLat, Math.max(...lons) + dLon, Math.max(...lats) + dLat] };
  });
  return parts;
}

/** Whether `[longitude, latitude]` is on Brazil's land, or within BRAZIL_TOLERANCE_KM of it. */
export function isInBrazil(point: readonly [number, number]): boolean {
  const [lon, lat] = point;
  const close = brazilParts().filter(({ near: [w, s, e, n] }) => lon >= w && lon <= e && lat >= s && lat <= n);
  const position = [lon, lat];
  if (close.some((p) => booleanPointInPolygon(position, p.polygon))) return true;
  // Planar: at 10 km it agrees with the geodesic distance to metres, and costs a tenth of it.
  return close.some((p) => pointToPolygonDistance(position, p.polygon, { units: 'kilometers', method: 'planar' }) <= BRAZIL_TOLERANCE_KM);
}
