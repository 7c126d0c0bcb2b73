import { MOVIMENTATION_TYPES } from '../access/invite.rules.js';
import { isCpf, isDocument, normalizeDocument } from '../shared/validation.js';

export const ESTABLISHMENT_TYPES = ['FARM', 'SLAUGHTERHOUSE', 'FEEDLOT', 'AUCTION', 'EXHIBITION', 'OTHER'] as const;
export type EstablishmentType = (typeof ESTABLISHMENT_TYPES)[number];
export const ESTABLISHMENT_STATUSES = ['ACTIVE', 'SUSPENDED', 'INACTIVE'] as const;
export type EstablishmentStatus = (typeof ESTABLISHMENT_STATUSES)[number];
export const SOCIOENVIRONMENTAL_STATUSES = ['COMPLIANT', 'UNDER_REVIEW', 'NON_COMPLIANT', 'NOT_EVALUATED'] as const;
export type SocioenvironmentalStatus = (typeof SOCIOENVIRONMENTAL_STATUSES)[number];

export const CONTROL_UNIT_TYPES = ['PRODUCTION', 'SLAUGHTER', 'EVENT', 'QUARANTINE', 'TAG_STOCK'] as const;
export const PREDOMINANT_PHASES = ['BREEDING', 'REARING', 'FATTENING', 'FULL_CYCLE'] as const;
export const PREDOMINANT_SYSTEMS = ['EXTENSIVE', 'SEMI_INTENSIVE', 'INTENSIVE'] as const;

/** DOMAIN.md: ACTIVE ⇄ SUSPENDED, ACTIVE → INACTIVE; INACTIVE is final. */
export const STATUS_TRANSITIONS: Record<EstablishmentStatus, readonly EstablishmentStatus[]> = {
  ACTIVE: ['SUSPENDED', 'INACTIVE'],
  SUSPENDED: ['ACTIVE'],
  INACTIVE: [],
};

/** Suspension stops movements, not registration: units are added while ACTIVE or SUSPENDED, never once INACTIVE. */
export const UNIT_REGISTRATION_STATUSES: readonly EstablishmentStatus[] = ['ACTIVE', 'SUSPENDED'];

export const oneOf = <T extends string>(values: readonly T[], value: unknown): value is T => typeof value === 'string' && (values as readonly string[]).includes(value);

const CAR = /^([A-Z]{2})-(\d{7})-([0-9A-F]{32})$/;

/** The CAR code in its stored form (upper case, the dots of the printed form dropped); null when malformed. */
export function normalizeCar(value: string): string | null {
  const car = value.trim().replace(/\./g, '').toUpperCase();
  return CAR.test(car) ? car : null;
}

/** Why a CAR code does not belong to the county, or null when it does (UF and IBGE code both match). */
export function carCountyProblem(car: string, county: { str_ibge_code: string; str_federative_unit: string } | null): string | null {
  const m = CAR.exec(car);
  if (!m) return 'must be a CAR code: UF-IBGE7-32 hexadecimal digits';
  if (!county) return 'needs the county of the establishment (county_id or str_ibge_code)';
  if (m[1] !== county.str_federative_unit) return `its UF ${m[1]} is not the county's (${county.str_federative_unit})`;
  if (m[2] !== county.str_ibge_code) return `its IBGE code ${m[2]} is not the county's (${county.str_ibge_code})`;
  return null;
}

/** A CEP as its 8 digits (`00000-000`, `00.000-000` and `00000000` accepted); null when malformed. */
export function normalizeZipCode(value: string): string | null {
  const v = value.trim();
  if (!/^\d{2}\.?\d{3}-?\d{3}$/.test(v)) return null;
  return v.replace(/\D/g, '');
}

/** A CPF or CNPJ (alphanumeric too) in its stored form; null when invalid. */
export function normalizeEstablishmentDocument(value: string): string | null {
  const doc = normalizeDocument(value);
  return isDocument(doc) ? doc : null;
}

/** Field problems of the areas as they will be stored (given values over stored ones). */
export function areaProblems(area: number | null, exploration: number | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (area !== null && (!Number.isFinite(area) || area < 0)) out.dec_area = 'must be a number of at least 0';
  if (exploration !== null && (!Number.isFinite(exploration) || exploration < 0)) out.dec_exploration_area = 'must be a number of at least 0';
  if (!out.dec_area && !out.dec_exploration_area && area !== null && exploration !== null && exploration > area) out.dec_exploration_area = 'must not exceed dec_area';
  return out;
}

/** Why a GeoJSON point is unacceptable, or null. */
export function geoPointProblem(point: { type?: unknown; coordinates?: unknown }): string | null {
  if (point.type !== 'Point') return 'must be a GeoJSON Point (type Point)';
  const c = point.coordinates;
  if (!Array.isArray(c) || c.length !== 2 || !c.every((n) => typeof n === 'number' && Number.isFinite(n))) return 'must have exactly two coordinates, [longitude, latitude]';
  if (c[0] < -180 || c[0] > 180) return 'longitude must be from -180 to 180';
  if (c[1] < -90 || c[1] > 90) return 'latitude must be from -90 to 90';
  return null;
}

/**
 * Which invite movimentation types the establishment's units accept, as stored: each once, in
 * MOVIMENTATION_TYPES order. null, like an empty list, restricts nothing, so both are stored as null.
 */
export function normalizeInviteMovimentationTypes(value: unknown): { types: string[] | null } | { problem: string } {
  if (value === null) return { types: null };
  if (!Array.isArray(value)) return { problem: `must be an array of ${MOVIMENTATION_TYPES.join(', ')}` };
  const unknown = value.filter((v) => !oneOf(MOVIMENTATION_TYPES, v));
  if (unknown.length) return { problem: `must hold only ${MOVIMENTATION_TYPES.join(', ')}, not ${unknown.map((v) => JSON.stringify(v)).join(', ')}` };
  const types = MOVIMENTATION_TYPES.filter((t) => value.includes(t));
  return { types: types.length ? types : null };
}

/** A person's CPF is personal data: unrestricted reads see `***.456.789-**`. A company's CNPJ is public and shown as stored. */
export function maskDocument(document: string | null): string | null {
  if (document === null) return null;
  if (isCpf(document)) return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
  return document;
}

/** The allowed next statuses, or null when the transition is allowed. */
export function statusTransitionProblem(from: EstablishmentStatus, to: EstablishmentStatus): readonly EstablishmentStatus[] | null {
  if (from === to) return null;
  return STATUS_TRANSITIONS[from].includes(to) ? null : STATUS_TRANSITIONS[from];
}

/** The stored longitude and latitude as a GeoJSON Point (exactly two coordinates), or null. */
export function geoPointOf(e: { num_longitude: number | null; num_latitude: number | null }): { type: 'Point'; coordinates: [number, number] } | null {
  if (e.num_longitude === null || e.num_latitude === null) return null;
  return { type: 'Point', coordinates: [Number(e.num_longitude), Number(e.num_latitude)] };
}
