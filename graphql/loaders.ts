import DataLoader from 'dataloader';
import { groupedBy, read, readByIds, type Include, type LoaderName, type Pick, type Related, type Source } from '../src/db/reader.js';
import type { Db } from '../src/db/sql.js';
import { gtasOfInvites } from '../src/access/invite.reader.js';
import { accessesOfSharings, organizationsOfSharings, usersOfSharings, type SharingAccessRow, type SharingGranteeRow } from '../src/access/sharing.reader.js';
import type { Actor } from '../src/identity/actor.js';
import { organizationsOfUsers, userSource, type UserOrganizationRow, type UserRow } from '../src/identity/user.reader.js';
import type { Gta } from '../src/movements/gta.entity.js';
import type { Animal } from '../src/animals/animal.entity.js';
import { animalScope, animalSource } from '../src/animals/animal.reader.js';
import { gtaSource } from '../src/movements/gta.reader.js';
import type { AnimalsEgress } from '../src/movements/animals-egress.entity.js';
import { animalsEgressSource } from '../src/movements/animals-egress.reader.js';
import type { Vehicle } from '../src/transit/vehicle.entity.js';
import { vehicleSource } from '../src/transit/vehicle.reader.js';
import type { ControlUnit } from '../src/places/control-unit.entity.js';
import { controlUnitSource, unitsOfEstablishments } from '../src/places/control-unit.reader.js';
import type { County } from '../src/places/county.entity.js';
import { countySource } from '../src/places/county.reader.js';
import type { Establishment } from '../src/places/establishment.entity.js';
import { establishmentPolicy } from '../src/places/establishment.policy.js';
import { establishmentSource } from '../src/places/establishment.reader.js';
import { NOTHING, type Scope } from '../src/shared/scoped-query.js';
import type { Tag } from '../src/tags/tag.entity.js';
import { tagSource, tagsReservationSource } from '../src/tags/tag.reader.js';
import type { TagsReservation } from '../src/tags/tags-reservation.entity.js';

export type OrganizationRef = Omit<UserOrganizationRow, 'user_id'>;

/** A value a resolver has at once (joined by the read, or loaded before in this request), or will have. */
export type Loaded<T> = T | Promise<T>;

/** `f` of a loaded value: at once when the value is there, else when it comes. */
export const mapLoaded = <T, U>(value: Loaded<T>, f: (v: T) => Loaded<U>): Loaded<U> => (value instanceof Promise ? value.then(f) : f(value));

/**
 * A DataLoader that answers synchronously what it already knows: the rows a read joined (primed)
 * and what it loaded before in this request. graphql-js completes a plain value in place, where a
 * promise costs it a microtask and a promise per object above it; a nested page whose relations
 * were all joined then resolves without one. Priming follows DataLoader's rule: the first value for
 * a key stays, and a key already asked for is not primed.
 */
export class KnownLoader<V> {
  /** Made at the first prime or load, like the loader: a request makes a dozen of these and most are never asked. */
  private known: Map<string, V> | null = null;
  private asked: Set<string> | null = null;
  /** Made at the first load: a request makes a dozen of these and most only ever answer primed rows. */
  private loader: DataLoader<string, V> | null = null;

  constructor(private readonly batch: DataLoader.BatchLoadFn<string, V>) {}

  load(key: string): Loaded<V> {
    const known = (this.known ??= new Map());
    if (known.has(key)) return known.get(key)!;
    (this.asked ??= new Set()).add(key);
    return (this.loader ??= new DataLoader(this.batch)).load(key).then((value) => {
      if (!known.has(key)) known.set(key, value);
      return value;
    });
  }

  prime(key: string, value: V): void {
    const known = (this.known ??= new Map());
    if (known.has(key) || this.asked?.has(key)) return;
    known.set(key, value);
  }
}

/**
 * One loader per request and relation: a relation costs one statement per request, not per row,
 * and none when the parent's read joined it (look-ahead primes these loaders). `unrestricted*`
 * loaders read past every policy and serve only public views (a record names where it happened);
 * `visible*` loaders apply the caller's policy scope in the same statement.
 */
export function createLoaders(db: Db, actor: Actor | null) {
  // The scope is built when a batch runs: most requests never run one, and a scoped caller's scope is string work.
  const byId = <R extends { id: string }>(source: Source, scope?: () => Scope) => new KnownLoader<R | null>((ids) => readByIds<R>(db, actor, source, ids, scope?.()));

  const primed = {
    tagById: byId<Tag>(tagSource),
    tagsReservationById: byId<TagsReservation>(tagsReservationSource),
    unrestrictedControlUnitById: byId<ControlUnit>(controlUnitSource),
    unrestrictedEstablishmentById: byId<Establishment>(establishmentSource),
    visibleEstablishmentById: byId<Establishment>(establishmentSource, () => (actor ? establishmentPolicy.scope(actor) : NOTHING)),
    countyById: byId<County>(countySource),
    userById: byId<UserRow>(userSource),
    /** Keyed by control unit: its responsible user (e-mail, document) only when the caller sees the unit. */
    visibleResponsibleUserOfUnit: new KnownLoader<UserRow | null>(async (unitIds) => {
      const { related } = await read(db, actor, controlUnitSource, { where: { sql: 'cu.id = any(?)', params: [unitIds] }, include: { responsible_user: {} } });
      const byUnit = new Map(related.map((r) => [r.key, r.row as UserRow | null]));
      return unitIds.map((id) => byUnit.get(id) ?? null);
    }),
    organizationsOfUser: new KnownLoader<OrganizationRef[]>(async (userIds) =>
      groupedBy(userIds, await organizationsOfUsers(db, userIds), (r) => r.user_id).map((list) => list.map(({ id, str_name, str_role }) => ({ id, str_name, str_role }))),
    ),
    /** Keyed by invite: its GTA when the caller or the invite's organization sees it. */
    gtaOfInvite: new KnownLoader<Gta | null>((inviteIds) => gtasOfInvites(db, actor, inviteIds)),
    /** A movement's GTA, read past the GTA policy: whoever sees a movement sees the permit it moves under. */
    gtaById: byId<Gta>(gtaSource),
    /** An animal a movement names, when the caller sees it now (its last unit). */
    visibleAnimalById: byId<Animal>(animalSource, () => (actor ? animalScope(actor) : NOTHING)),
    /** A travel's vehicle, read past the vehicle policy: whoever sees a trip sees the truck that makes it. */
    vehicleById: byId<Vehicle>(vehicleSource),
    /** An egress a travel carries, read past the movement policy: whoever sees a trip sees what it carries. */
    animalsEgressById: byId<AnimalsEgress>(animalsEgressSource),
    /** Keyed by sharing (one the caller sees): its granted users, organizations and accesses. */
    usersOfSharing: new KnownLoader<SharingGranteeRow[]>(async (ids) => groupedBy(ids, await usersOfSharings(db, ids), (r) => r.sharing_id).map((list) => list.map(({ id, str_name }) => ({ id, str_name })))),
    organizationsOfSharing: new KnownLoader<SharingGranteeRow[]>(async (ids) => groupedBy(ids, await organizationsOfSharings(db, ids), (r) => r.sharing_id).map((list) => list.map(({ id, str_name }) => ({ id, str_name })))),
    accessesOfSharing: new KnownLoader<SharingAccessRow[]>(async (ids) => groupedBy(ids, await accessesOfSharings(db, ids), (r) => r.sharing_id).map((list) => list.map(({ establishment_id, str_establishment_name, control_unit_id, str_control_unit_code, str_scope }) => ({ establishment_id, str_establishment_name, control_unit_id, str_control_unit_code, str_scope })))),
  };
  const primable: Record<LoaderName, KnownLoader<unknown>> = primed;

  /** Joined rows go where a later load finds them without a statement. */
  const prime = (related: Related[]): void => {
    for (const r of related) primable[r.loader].prime(r.key, r.row);
  };

  // To-many relations: one loader per selection (what the query selects under them is joined too;
  // a request runs one operation, so one `pick`).
  const unitLoaders = new Map<string, DataLoader<string, ControlUnit[]>>();
  const controlUnitsOfEstablishment = (visibleOnly: boolean, include: Include, pick?: Pick): DataLoader<string, ControlUnit[]> => {
    const key = `${visibleOnly}:${JSON.stringify(include)}`;
    let loader = unitLoaders.get(key);
    if (!loader) {
      loader = new DataLoader(async (ids) => {
        const { groups, related } = await unitsOfEstablishments(db, actor, ids, visibleOnly, include, pick);
        prime(related);
        return groups;
      });
      unitLoaders.set(key, loader);
    }
    return loader;
  };

  return {
    ...primed,
    prime,
    /** A read's rows, its joined relations primed. */
    take<R>(result: { row: R; related: Related[] }): R {
      prime(result.related);
      return result.row;
    },
    takePage<P extends { related: Related[] }>(result: P): Omit<P, 'related'> {
      const { related, ...page } = result;
      prime(related);
      return page;
    },
    controlUnitsOfEstablishment,
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** The name of a unit's establishment, read past every policy: a record names where it happened. */
export function establishmentNameOfUnit(loaders: Loaders, unitId: string): Loaded<string | null> {
  return mapLoaded(loaders.unrestrictedControlUnitById.load(unitId), (unit) =>
    unit ? mapLoaded(loaders.unrestrictedEstablishmentById.load(unit.establishment_id), (e) => e?.str_name ?? null) : null,
  );
}
