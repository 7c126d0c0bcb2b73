/**
 * How this service writes its records as URIs in EPCIS (docs/decisions/epcis.md): one
 * private URN namespace, one form per kind of thing. Animals have no GS1 key (an SGTIN names a
 * trade item, not a living animal), so every identifier here is a private URN, as CBV 2.0 allows
 * for identifiers outside GS1's keys. Change NAMESPACE once to move every identifier.
 */
export const NAMESPACE = 'urn:pnib';

/** The JSON-LD prefix of this service's extension fields (`pnib:reason`). */
export const EXTENSION_PREFIX = 'pnib';
export const EXTENSION_IRI = `${NAMESPACE}:epcis:`;

/**
 * An animal by its national lifetime number: the 15-digit ISO 11784 code (076 + 12 digits, or a
 * legacy SISBOV/external number) of the tag it was identified with, which a replacement never
 * changes; an animal that never carried a tag (registered on arrival by its rod code) by its id.
 */
export const animalUri = (lifetimeCode: string): string => `${NAMESPACE}:animal:${lifetimeCode}`;
/** An eartag by its 15-digit code. */
export const tagUri = (code: string): string => `${NAMESPACE}:tag:${code}`;
/** A control unit (a read point and business location) by its unique code; CBV's private location form `urn:…:loc:…`. */
export const unitUri = (code: string): string => `${NAMESPACE}:loc:unit:${encodeURIComponent(code)}`;
/** An establishment (a source or destination) by its id: its state and company codes are optional and not unique. */
export const establishmentUri = (id: string): string => `${NAMESPACE}:loc:establishment:${id}`;
/** A GTA by what makes it unique: federative unit, series (`-` when none) and number. */
export const gtaUri = (uf: string, series: string | null, code: string): string => `${NAMESPACE}:bt:gta:${uf}:${encodeURIComponent(series ?? '-')}:${encodeURIComponent(code)}`;
/** The business transaction type of a GTA (not one of CBV's). */
export const GTA_TRANSACTION_TYPE = `${NAMESPACE}:btt:gta`;
/** An EPCIS event: the operation it comes from, and for a replacement the tag it replaced. */
export const eventUri = (key: string): string => `${NAMESPACE}:event:${key}`;

const ANIMAL = new RegExp(`^${NAMESPACE}:animal:([0-9]{15}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`);
const TAG = new RegExp(`^${NAMESPACE}:tag:([0-9]{15})$`);
const UNIT = new RegExp(`^${NAMESPACE}:loc:unit:(.+)$`);
const GTA = new RegExp(`^${NAMESPACE}:bt:gta:([A-Z]{2}):([^:]+):([^:]+)$`);

/** What an EPC URI names: an animal (its lifetime code or id) or a tag (its code); null when it is not one of ours. */
export function parseEpc(uri: string): { animalCode: string } | { animalId: string } | { tagCode: string } | null {
  const animal = ANIMAL.exec(uri);
  if (animal) return animal[1]!.length === 15 ? { animalCode: animal[1]! } : { animalId: animal[1]!.toLowerCase() };
  const tag = TAG.exec(uri);
  return tag ? { tagCode: tag[1]! } : null;
}

/** The unit code a location URI names; null when it is not a unit of ours. */
export function parseUnit(uri: string): string | null {
  const m = UNIT.exec(uri);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

/** The GTA a business transaction URI names; null when it is not one. */
export function parseGta(uri: string): { uf: string; series: string | null; code: string } | null {
  const m = GTA.exec(uri);
  if (!m) return null;
  try {
    const series = decodeURIComponent(m[2]!);
    return { uf: m[1]!, series: series === '-' ? null : series, code: decodeURIComponent(m[3]!) };
  } catch {
    return null;
  }
}
