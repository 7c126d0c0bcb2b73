import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { Animal } from '../animals/animal.type.js';
import type { Animal as AnimalRow } from '../../src/animals/animal.entity.js';
import { GeoPoint, GeoPointInput } from '../places/establishment.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { MovementReadRow } from '../../src/movements/animals-egress.reader.js';
import { geoPointOf } from '../../src/places/establishment.rules.js';

@ObjectType('AnimalsEgressTag', { description: 'A read at the origin: the animal named by its tag or rod code, when and where' })
export class AnimalsEgressTag {
  @Field(() => UUID) id!: string;
  @Field(() => UUID, { nullable: true }) animal_id!: string | null;
  @Field(() => Animal, { nullable: true, description: 'The animal read, when the caller sees it now (where it is)' }) animal!: Animal | null;
  @Field(() => UUID, { nullable: true, description: "The animal's tag when read" }) tag_id!: string | null;
  @Field(() => String, { nullable: true }) str_tag_code!: string | null;
  @Field(() => String, { nullable: true }) str_rod_code!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_egress_at!: Date | null;
  @Field(() => GeoPoint, { nullable: true }) geo_egress!: GeoPoint | null;
  @Field(() => DateTime) ts_created_at!: Date;
}

@ObjectType('AnimalsIngressTag', { description: 'A read at the destination; animal_id is null for a code no animal carried (it becomes an external tag on finish)' })
export class AnimalsIngressTag {
  @Field(() => UUID) id!: string;
  @Field(() => UUID, { nullable: true }) animal_id!: string | null;
  @Field(() => Animal, { nullable: true, description: 'The animal read, when the caller sees it now (where it is)' }) animal!: Animal | null;
  @Field(() => UUID, { nullable: true }) tag_id!: string | null;
  @Field(() => String, { nullable: true }) str_tag_code!: string | null;
  @Field(() => String, { nullable: true }) str_rod_code!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_ingress_at!: Date | null;
  @Field(() => GeoPoint, { nullable: true }) geo_ingress!: GeoPoint | null;
  @Field(() => DateTime) ts_created_at!: Date;
}

@Resolver(() => AnimalsEgressTag)
export class AnimalsEgressTagFieldsResolver {
  @FieldResolver(() => Animal, { nullable: true })
  animal(@Root() r: MovementReadRow, @Ctx() ctx: Context): Promise<AnimalRow | null> | null {
    return r.animal_id ? ctx.loaders.visibleAnimalById.load(r.animal_id) : null;
  }

  @FieldResolver(() => DateTime, { nullable: true })
  ts_egress_at(@Root() r: MovementReadRow): Date | null {
    return r.ts_read_at;
  }

  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_egress(@Root() r: MovementReadRow): GeoPoint | null {
    return geoPointOf(r);
  }
}

@Resolver(() => AnimalsIngressTag)
export class AnimalsIngressTagFieldsResolver {
  @FieldResolver(() => Animal, { nullable: true })
  animal(@Root() r: MovementReadRow, @Ctx() ctx: Context): Promise<AnimalRow | null> | null {
    return r.animal_id ? ctx.loaders.visibleAnimalById.load(r.animal_id) : null;
  }

  @FieldResolver(() => DateTime, { nullable: true })
  ts_ingress_at(@Root() r: MovementReadRow): Date | null {
    return r.ts_read_at;
  }

  @FieldResolver(() => GeoPoint, { nullable: true })
  geo_ingress(@Root() r: MovementReadRow): GeoPoint | null {
    return geoPointOf(r);
  }
}

@InputType('AnimalsMovementTagInput', { description: 'Animals Egress Create Tags (an ingress read the same, with ts_ingress_at and geo_ingress): one of tag_id, str_tag_code, str_rod_code' })
export class AnimalsMovementTagInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: a retried read changes nothing' }) id?: string;
  @Field(() => String, { nullable: true }) tag_id?: string;
  @Field(() => String, { nullable: true, description: '15 digits' }) str_tag_code?: string;
  @Field(() => String, { nullable: true }) str_rod_code?: string;
  @Field(() => DateTime, { nullable: true, description: 'Egress reads: required when the egress reads tags' }) ts_egress_at?: Date;
  @Field(() => GeoPointInput, { nullable: true, description: 'Egress reads: required when the egress reads tags' }) geo_egress?: GeoPointInput;
  @Field(() => DateTime, { nullable: true, description: 'Ingress reads: required when the ingress reads tags' }) ts_ingress_at?: Date;
  @Field(() => GeoPointInput, { nullable: true, description: 'Ingress reads: required when the ingress reads tags' }) geo_ingress?: GeoPointInput;
}
