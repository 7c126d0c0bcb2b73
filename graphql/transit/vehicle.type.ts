import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { Vehicle as VehicleRow } from '../../src/transit/vehicle.entity.js';

@ObjectType('Vehicle')
export class Vehicle {
  @Field(() => UUID) id!: string;
  @Field(() => User, { nullable: true }) owner!: User | null;
  @Field(() => String, { nullable: true }) str_brand!: string | null;
  @Field(() => String, { nullable: true }) str_color!: string | null;
  @Field(() => String, { nullable: true }) str_fuel!: string | null;
  @Field(() => String, { nullable: true }) str_last_registration!: string | null;
  @Field(() => String, { nullable: true, description: 'Mercosul form (AAA9A99); old plates are converted' }) str_license_plate!: string | null;
  @Field(() => String, { nullable: true }) str_model!: string | null;
  @Field(() => String, { nullable: true, description: '11 digits' }) str_renavam_number!: string | null;
  @Field(() => String, { nullable: true, description: 'Mercosul form (AAA9A99)' }) str_trailer_plate!: string | null;
  @Field(() => String, { nullable: true }) str_type!: string | null;
  @Field(() => String, { nullable: true }) str_year_of_manufacture!: string | null;
  @Field(() => UUID) organization_id!: string;
  @Field(() => UUID, { nullable: true }) owner_id!: string | null;
  @Field(() => String, { nullable: true }) lt_path!: string | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock at creation, as sent" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** A vehicle's owner is joined with the vehicle when the query selects it. */
export const VEHICLE_NEEDS: Needs = { owner: { path: ['owner'], next: () => USER_NEEDS } };

@Resolver(() => Vehicle)
export class VehicleFieldsResolver {
  @FieldResolver(() => User, { nullable: true })
  owner(@Root() v: VehicleRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return v.owner_id ? ctx.loaders.userById.load(v.owner_id) : null;
  }
}

@ObjectType('VehiclePage')
export class VehiclePage {
  @Field(() => [Vehicle]) data!: Vehicle[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('VehicleCreateInput')
export class VehicleCreateInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String) str_brand!: string;
  @Field(() => String) str_color!: string;
  @Field(() => String) str_fuel!: string;
  @Field(() => String) str_last_registration!: string;
  @Field(() => String, { description: 'Mercosul (AAA9A99) or old (AAA9999) form' }) str_license_plate!: string;
  @Field(() => String) str_model!: string;
  @Field(() => String, { description: '11 digits with its check digit (9-digit numbers are left-padded)' }) str_renavam_number!: string;
  @Field(() => String) str_type!: string;
  @Field(() => String) str_year_of_manufacture!: string;
  @Field(() => String, { nullable: true }) lt_path?: string;
  @Field(() => String, { nullable: true, description: 'A user the caller may see' }) owner_id?: string;
  @Field(() => String, { nullable: true }) str_trailer_plate?: string;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}

@InputType('VehicleUpdateInput')
export class VehicleUpdateInput {
  @Field(() => String, { nullable: true }) str_brand?: string;
  @Field(() => String, { nullable: true }) str_color?: string;
  @Field(() => String, { nullable: true }) str_fuel?: string;
  @Field(() => String, { nullable: true }) str_last_registration?: string;
  @Field(() => String, { nullable: true }) str_license_plate?: string;
  @Field(() => String, { nullable: true }) str_model?: string;
  @Field(() => String, { nullable: true }) str_renavam_number?: string;
  @Field(() => String, { nullable: true }) str_type?: string;
  @Field(() => String, { nullable: true }) str_year_of_manufacture?: string;
  @Field(() => String, { nullable: true }) lt_path?: string;
  @Field(() => String, { nullable: true }) owner_id?: string;
  @Field(() => String, { nullable: true }) str_trailer_plate?: string;
}
