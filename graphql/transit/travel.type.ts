import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import type { Context } from '../context.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { AnimalsEgress } from '../movements/animals-egress.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit, GeoPoint, GeoPointInput } from '../places/establishment.type.js';
import { asEnum } from '../shared/enums.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { VEHICLE_NEEDS, Vehicle } from './vehicle.type.js';
import { travelLoaders } from './travel.loaders.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { AnimalsEgress as AnimalsEgressRow } from '../../src/movements/animals-egress.entity.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import { geoPointOf } from '../../src/places/establishment.rules.js';
import type { Travel as TravelRow } from '../../src/transit/travel.entity.js';
import type { TravelEmbarkRow, TravelStopRow } from '../../src/transit/travel.reader.js';
import { TRAVEL_STATUSES } from '../../src/transit/travel.rules.js';
import type { Vehicle as VehicleRow } from '../../src/transit/vehicle.entity.js';

export const TravelStatusEnum = asEnum(TRAVEL_STATUSES);
registerEnumType(TravelStatusEnum, { name: 'TravelStatus' });

@ObjectType('TravelEmbark', { description: 'An animals egress loaded on the truck, when and where' })
export class TravelEmbark {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) animals_egress_id!: string;
  @Field(() => AnimalsEgress, { nullable: true, description: 'The egress carried (whoever sees the travel sees what it carries)' }) animals_egress!: AnimalsEgress | null;
  @Field(() => DateTime) ts_embarked_at!: Date;
  @Field(() => GeoPoint, { nullable: true }) geo_location!: GeoPoint | null;
  @Field(() => DateTime, { nullable: true, description: 'Set when the travel was cancelled: the egress may ride another travel' }) ts_released_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
}

@ObjectType('TravelStop', { description: 'A stop on the way' })
export class TravelStop {
  @Field(() => UUID) id!: string;
  @Field(() => GeoPoint, { nullable: true }) geo_location!: GeoPoint | null;
  @Field(() => DateTime) ts_arrival!: Date;
  @Field(() => DateTime, { nullable: true }) ts_departure!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
}

@ObjectType('Travel', { description: 'A truck trip carrying animals egresses: PLANNED → IN_PROGRESS → FINISHED | CANCELLED' })
export class Travel {
  @Field(() => UUID) id!: string;
  @Field(() => TravelStatusEnum) str_status!: string;
  @Field(() => [TravelEmbark], { description: 'The egresses loaded, in the order they were' }) embarks!: TravelEmbark[];
  @Field(() => [TravelStop], { description: 'In the order they happened' }) stops!: TravelStop[];
  @Field(() => UUID) transporter_user_id!: string;
  @Field(() => User, { nullable: true }) transporter!: User | null;
  @Field(() => UUID) vehicle_id!: string;
  @Field(() => Vehicle, { nullable: true }) vehicle!: Vehicle | null;
  @Field(() => String, { nullable: true, description: 'Who receives the animals, as on the documents' }) str_consignee_name!: string | null;
  @Field(() => UUID) from_control_unit_id!: string;
  @Field(() => UUID) to_control_unit_id!: string;
  @Field(() => ControlUnit) from_control_unit!: ControlUnit;
  @Field(() => ControlUnit) to_control_unit!: ControlUnit;
  @Field(() => String, { nullable: true }) str_from_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_from_control_unit_name!: string | null;
  @Field(() => String, { nullable: true }) str_to_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_to_control_unit_name!: string | null;
  @Field(() => GeoPoint, { nullable: true, description: 'Where the trip started' }) geo_coordinates_from!: GeoPoint | null;
  @Field(() => GeoPoint, { nullable: true, description: 'Where the trip ended, when given on finish' }) geo_coordinates_to!: GeoPoint | null;
  @Field(() => DateTime, { nullable: true }) ts_start_time!: Date | null;
  @Field(() => DateTime, { nullable: true }) ts_end_time!: Date | null;
  @Field(() => Int, { nullable: true, description: 'Whole minutes from ts_start_time to ts_end_time (on finish)' }) int_duration!: number | null;
  @Field(() => DateTime, { nullable: true, description: 'When TRANSIT_TIME_EXCEEDED was raised (once)' }) ts_transit_time_exceeded_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const TRAVEL_NEEDS: Needs = {
  from_control_unit: { path: ['from_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  to_control_unit: { path: ['to_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  str_from_control_unit_code: { path: ['from_control_unit'] },
  str_from_control_unit_name: { path: ['from_control_unit'] },
  str_to_control_unit_code: { path: ['to_control_unit'] },
  str_to_control_unit_name: { path: ['to_control_unit'] },
  vehicle: { path: ['vehicle'], next: () => VEHICLE_NEEDS },
  transporter: { path: ['transporter'], next: () => USER_NEEDS },
};

const unit = (ctx: Context, id: string): Promise<ControlUnitRow | null> => ctx.loaders.unrestrictedControlUnitById.load(id);
const point = (lon: number | null, lat: number | null) => geoPointOf({ num_longitude: lon, num_latitude: lat });

@Resolver(() => Travel)
export class TravelFieldsResolver {
  @FieldResolver(() => [TravelEmbark])
  embarks(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<TravelEmbarkRow[]> {
    return travelLoaders(ctx).embarks.load(t.id);
  }

  @FieldResolver(() => [TravelStop])
  stops(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<TravelStopRow[]> {
    return travelLoaders(ctx).stops.load(t.id);
  }

  @FieldResolver(() => User, { nullable: true })
  transporter(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<UserRow | null> {
    return ctx.loaders.userById.load(t.transporter_user_id);
  }

  @FieldResolver(() => Vehicle, { nullable: true })
  vehicle(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<VehicleRow | null> {
    return ctx.loaders.vehicleById.load(t.vehicle_id);
  }

  @FieldResolver(() => ControlUnit)
  from_control_unit(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<ControlUnitRow | null> {
    return unit(ctx, t.from_control_unit_id);
  }

  @FieldResolver(() => ControlUnit)
  to_control_unit(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<ControlUnitRow | null> {
    return unit(ctx, t.to_control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  async str_from_control_unit_code(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<string | null> {
    return (await unit(ctx, t.from_control_unit_id))?.str_code ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_from_control_unit_name(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<string | null> {
    return (await unit(ctx, t.from_control_unit_id))?.str_name ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_to_control_unit_code(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<string | null> {
    return (await unit(ctx, t.to_control_unit_id))?.str_code ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_to_control_unit_name(@Root() t: TravelRow, @Ctx() ctx: Context): Promise<string | null> {
    return (await unit(ctx, t.to_control_unit_id))?.str_name ?? null;
  }

  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_coordinates_from(@Root() t: TravelRow): GeoPoint | null {
    return point(t.num_from_longitude, t.num_from_latitude);
  }

  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_coordinates_to(@Root() t: TravelRow): GeoPoint | null {
    return point(t.num_to_longitude, t.num_to_latitude);
  }
}

@Resolver(() => TravelEmbark)
export class TravelEmbarkFieldsResolver {
  @FieldResolver(() => AnimalsEgress, { nullable: true })
  animals_egress(@Root() e: TravelEmbarkRow, @Ctx() ctx: Context): Promise<AnimalsEgressRow | null> {
    return ctx.loaders.animalsEgressById.load(e.animals_egress_id);
  }

  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_location(@Root() e: TravelEmbarkRow): GeoPoint | null {
    return geoPointOf(e);
  }
}

@Resolver(() => TravelStop)
export class TravelStopFieldsResolver {
  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_location(@Root() s: TravelStopRow): GeoPoint | null {
    return geoPointOf(s);
  }
}

@ObjectType('TravelPage')
export class TravelPage {
  @Field(() => [Travel]) data!: Travel[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('TravelCreateInput', { description: 'Travel create body: PLANNED' })
export class TravelCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: "Required: a vehicle of the origin's organization or of an organization of the transporter" }) vehicle_id?: string;
  @Field(() => String, { nullable: true, description: 'Required: the user who drives (works the travel with the origin)' }) transporter_user_id?: string;
  @Field(() => String, { nullable: true, description: 'Who receives the animals, as on the documents' }) str_consignee_name?: string;
  @Field(() => String, { nullable: true, description: 'Required: a unit the caller works at' }) from_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Required: any other control unit' }) to_control_unit_id?: string;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}

@InputType('TravelStartInput')
export class TravelStartInput {
  @Field(() => DateTime, { nullable: true, description: 'Default: now; not in the future' }) ts_start_time?: Date;
  @Field(() => GeoPointInput, { nullable: true, description: 'Required: where the trip starts' }) geo_coordinates_from?: GeoPointInput;
}

@InputType('TravelEmbarkInput', { description: 'An animals egress of the origin unit, OPEN or FINISHED, loaded' })
export class TravelEmbarkInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again changes nothing' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required' }) animals_egress_id?: string;
  @Field(() => DateTime, { nullable: true, description: 'Default: now; not in the future' }) ts_embarked_at?: Date;
  @Field(() => GeoPointInput, { nullable: true, description: 'Required: where it was loaded' }) geo_location?: GeoPointInput;
}

@InputType('TravelStopInput')
export class TravelStopInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again changes nothing' }) id?: string;
  @Field(() => GeoPointInput, { nullable: true, description: 'Required' }) geo_location?: GeoPointInput;
  @Field(() => DateTime, { nullable: true, description: "Required: not before the travel's ts_start_time" }) ts_arrival?: Date;
  @Field(() => DateTime, { nullable: true, description: 'Not before ts_arrival' }) ts_departure?: Date;
}

@InputType('TravelFinishInput')
export class TravelFinishInput {
  @Field(() => DateTime, { nullable: true, description: 'Default: now; not before the start nor the last stop' }) ts_end_time?: Date;
  @Field(() => GeoPointInput, { nullable: true, description: 'Where the trip ended' }) geo_coordinates_to?: GeoPointInput;
}
