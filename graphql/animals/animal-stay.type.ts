import { Ctx, Field, FieldResolver, ObjectType, Resolver, Root } from 'type-graphql';
import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { ControlUnit } from '../places/establishment.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { staysOfAnimals, type StayRow } from '../../src/animals/stay.reader.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';

@ObjectType('AnimalStay', { description: 'Where an animal was (a control unit) from when to when: identified or received there, until it left or ended' })
export class AnimalStay {
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => ControlUnit, { description: 'Public fields: it may be another organization\'s unit' }) control_unit!: ControlUnit;
  @Field(() => UUID) establishment_id!: string;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => DateTime) ts_from!: Date;
  @Field(() => DateTime, { nullable: true, description: 'Null while it is there' }) ts_to!: Date | null;
  @Field(() => UUID, { nullable: true, description: 'The ingress that brought it (null: identified there)' }) animals_ingress_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'The egress that took it away' }) animals_egress_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'The GTA it left under' }) gta_id!: string | null;
}

const perRequest = new WeakMap<object, DataLoader<string, StayRow[]>>();

/** One statement per request for every animal's stays. */
export function staysLoader(ctx: Context): DataLoader<string, StayRow[]> {
  let loader = perRequest.get(ctx.loaders);
  if (!loader) {
    loader = new DataLoader((ids) => staysOfAnimals(ctx.db, ids));
    perRequest.set(ctx.loaders, loader);
  }
  return loader;
}

@Resolver(() => AnimalStay)
export class AnimalStayFieldsResolver {
  @FieldResolver(() => ControlUnit)
  control_unit(@Root() s: StayRow, @Ctx() ctx: Context): Promise<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(s.control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  async str_establishment_name(@Root() s: StayRow, @Ctx() ctx: Context): Promise<string | null> {
    return (await ctx.loaders.unrestrictedEstablishmentById.load(s.establishment_id))?.str_name ?? null;
  }
}
