import { BRAZIL_TOLERANCE_KM, isInBrazil } from './brazil-border.js';

/**
 * The EUDR's geolocation of a holding (Regulation (EU) 2023/1115, art. 2(28) and 9(1)(d)): a point
 * in WGS 84, `[longitude, latitude]`, with at least six decimals, here inside Brazil. Checked where
 * an establishment's geo_location is written, and again on read for points stored before the rule
 * (docs/decisions/eudr.md).
 */

/** Brazil's extremes, its oceanic islands included (Serra do Divisor, Monte Caburaí, Chuí, Martim Vaz): a cheap first test, and the hint for swapped coordinates. */
export const BRAZIL_BOUNDS = { west: -74.0, east: -28.6, south: -33.8, north: 5.3 } as const;

export const EUDR_MIN_DECIMALS = 6;

/** Decimal places of a number as JSON writes it (shortest form; `1e-7` has 7). */
export function decimalsOf(n: number): number {
  const [mantissa = '', exponent = '0'] = String(Math.abs(n)).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/** Why a (well-formed) point is not an EUDR geolocation in Brazil, or null. */
export function eudrPointProblem(coordinates: readonly number[]): string | null {
  const [lon, lat] = coordinates as [number, number];
  if (decimalsOf(lon) < EUDR_MIN_DECIMALS || decimalsOf(lat) < EUDR_MIN_DECIMALS) {
    return `must give longitude and latitude with at least ${EUDR_MIN_DECIMALS} decimals (EUDR), e.g. [-47.929722, -15.779722]`;
  }
  const b = BRAZIL_BOUNDS;
  if (lon < b.west || lon > b.east || lat < b.south || lat > b.north) {
    return `must lie inside Brazil, [longitude, latitude] (longitude ${b.west} to ${b.east}, latitude ${b.south} to ${b.north}); check the order`;
  }
  if (!isInBrazil([lon, lat])) {
    return `must lie inside Brazil: [${lon}, ${lat}] is more than ${BRAZIL_TOLERANCE_KM} km from its land and border (Natural Earth 1:10m); check the point and the order, [longitude, latitude]`;
  }
  return null;
}

/** A coordinate as GeoJSON text with at least six decimals (JSON drops trailing zeros; TRACES counts them). */
export function coordinateText(n: number): string {
  const places = decimalsOf(n);
  if (places >= EUDR_MIN_DECIMALS && !String(n).includes('e')) return String(n);
  return n.toFixed(Math.min(20, Math.max(EUDR_MIN_DECIMALS, places)));
}
