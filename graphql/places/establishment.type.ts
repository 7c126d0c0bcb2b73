import type { GraphQLResolveInfo } from 'graphql';
import { Ctx, Field, FieldResolver, Float, Info, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { mapLoaded, type Loaded } from '../loaders.js';
import { personal } from '../identity/user-as-seen.js';
import { pickOf } from '../columns.js';
import { includeOf, type Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, JSONObject, UUID } from '../shared/scalars.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { ControlUnit as ControlUnitEntity } from '../../src/places/control-unit.entity.js';
import type { County as CountyRow } from '../../src/places/county.entity.js';
import type { Establishment as EstablishmentEntity } from '../../src/places/establishment.entity.js';
import { MOVIMENTATION_TYPES } from '../../src/access/invite.rules.js';
import { geoPointOf, maskDocument } from '../../src/places/establishment.rules.js';
import { County } from './county.type.js';
import { ControlUnitTypeEnum, EstablishmentStatusEnum, EstablishmentTypeEnum, PredominantPhaseEnum, PredominantSystemEnum, SocioenvironmentalStatusEnum } from './enums.js';

// ControlUnit and Establishment refer to each other: one file, so decorator metadata never meets an uninitialized class.

@ObjectType('GeoPoint', { description: 'GeoJSON Point: [longitude, latitude]' })
export class GeoPoint {
  @Field(() => String) type!: string;
  @Field(() => [Float]) coordinates!: number[];
}

@InputType('GeoPointInput')
export class GeoPointInput {
  @Field(() => String) type!: string;
  @Field(() => [Float], { description: 'Exactly two: [longitude, latitude]' }) coordinates!: number[];
}

@ObjectType('ControlUnit', { description: 'A livestock holding inside an establishment' })
export class ControlUnit {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) establishment_id!: string;
  @Field(() => UUID, { nullable: true }) responsible_user_id!: string | null;
  @Field(() => User, { nullable: true }) responsible_user!: User | null;
  @Field(() => String, { nullable: true }) str_responsible_user_name!: string | null;
  @Field(() => String, { description: 'Unique service-wide' }) str_code!: string;
  @Field(() => String) str_name!: string;
  @Field(() => ControlUnitTypeEnum) str_type!: string;
  @Field(() => PredominantPhaseEnum, { nullable: true }) str_predominant_phase!: string | null;
  @Field(() => PredominantSystemEnum, { nullable: true }) str_predominant_system!: string | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** Fields every establishment record shares (Establishment Partial Unrestricted Data, without the documents). */
@ObjectType('EstablishmentBase')
class EstablishmentBase {
  @Field(() => UUID) id!: string;
  @Field(() => Boolean) bl_move_with_tag_reading!: boolean;
  @Field(() => String) str_name!: string;
  @Field(() => EstablishmentTypeEnum) str_type!: string;
  @Field(() => EstablishmentStatusEnum) str_status!: string;
  @Field(() => SocioenvironmentalStatusEnum, { nullable: true }) str_socioenvironmental_status!: string | null;
  @Field(() => UUID, { nullable: true }) county_id!: string | null;
  @Field(() => UUID, { nullable: true }) responsible_user_id!: string | null;
  @Field(() => Float, { nullable: true, description: 'Hectares' }) dec_area!: number | null;
  @Field(() => Float, { nullable: true, description: 'Hectares, at most dec_area' }) dec_exploration_area!: number | null;
  @Field(() => GeoPoint, { nullable: true }) geo_location!: GeoPoint | null;
  @Field(() => [String], { nullable: true }) lst_invite_movimentation_types!: string[] | null;
  @Field(() => String, { nullable: true }) str_address!: string | null;
  @Field(() => String, { nullable: true, description: 'CAR: UF-IBGE7-32 hex' }) str_car!: string | null;
  @Field(() => String, { nullable: true }) str_code!: string | null;
  @Field(() => String, { nullable: true }) str_company_code!: string | null;
  @Field(() => String, { nullable: true }) str_county_federative_unit!: string | null;
  @Field(() => String, { nullable: true, description: "The IBGE code of the county's UF (2 digits)" }) str_county_ibge_uf_code!: string | null;
  @Field(() => String, { nullable: true }) str_county_name!: string | null;
  @Field(() => String, { nullable: true }) str_neighborhood!: string | null;
  @Field(() => String, { nullable: true }) str_responsible_user_name!: string | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('Establishment')
export class Establishment extends EstablishmentBase {
  @Field(() => UUID) organization_id!: string;
  @Field(() => String, { nullable: true, description: 'CPF or CNPJ' }) str_document!: string | null;
  @Field(() => String, { nullable: true }) str_responsible_document!: string | null;
  @Field(() => String, { nullable: true }) str_email!: string | null;
  @Field(() => String, { nullable: true, description: 'CEP, 8 digits' }) str_zip_code!: string | null;
  @Field(() => County, { nullable: true }) county!: County | null;
  @Field(() => User, { nullable: true }) responsible_user!: User | null;
  @Field(() => [ControlUnit]) control_units!: ControlUnit[];
}

@ObjectType('EstablishmentUnrestricted', { description: 'What every signed-in user reads of any establishment: a CPF is masked' })
export class EstablishmentUnrestricted extends EstablishmentBase {
  @Field(() => String, { nullable: true }) str_document!: string | null;
  @Field(() => String, { nullable: true }) str_responsible_document!: string | null;
  @Field(() => [ControlUnit]) control_units!: ControlUnit[];
}

/** What each establishment field reads through a relation (look-ahead joins them with the establishment). */
export const ESTABLISHMENT_NEEDS: Needs = {
  county: { path: ['county'] },
  str_county_federative_unit: { path: ['county'] },
  str_county_ibge_uf_code: { path: ['county'] },
  str_county_name: { path: ['county'] },
  responsible_user: { path: ['responsible_user'], next: () => USER_NEEDS },
  str_responsible_document: { path: ['responsible_user', 'organizations'] },
  str_responsible_user_name: { path: ['responsible_user'] },
};

export const CONTROL_UNIT_NEEDS: Needs = {
  establishment: { path: ['establishment'], next: () => ESTABLISHMENT_NEEDS },
  responsible_user: { path: ['responsible_user'], next: () => USER_NEEDS },
  str_responsible_user_name: { path: ['any_responsible_user'] },
};

const dec = (v: string | null): number | null => (v === null ? null : Number(v));

function countyOf(e: EstablishmentEntity, ctx: Context): Loaded<CountyRow | null> {
  return e.county_id ? ctx.loaders.countyById.load(e.county_id) : null;
}
function responsibleOf(e: EstablishmentEntity, ctx: Context): Loaded<UserRow | null> {
  return e.responsible_user_id ? ctx.loaders.userById.load(e.responsible_user_id) : null;
}

/** Computed fields shared by both establishment types. */
function sharedFields(of: () => typeof Establishment | typeof EstablishmentUnrestricted) {
  @Resolver(of)
  class SharedFieldsResolver {
    @FieldResolver(() => Float, { nullable: true })
    dec_area(@Root() e: EstablishmentEntity): number | null {
      return dec(e.dec_area);
    }

    @FieldResolver(() => Float, { nullable: true })
    dec_exploration_area(@Root() e: EstablishmentEntity): number | null {
      return dec(e.dec_exploration_area);
    }

    @FieldResolver(() => GeoPoint, { nullable: true })
    geo_location(@Root() e: EstablishmentEntity): GeoPoint | null {
      return geoPointOf(e);
    }

    @FieldResolver(() => String, { nullable: true })
    str_county_federative_unit(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<string | null> {
      return mapLoaded(countyOf(e, ctx), (v) => v?.str_federative_unit ?? null);
    }

    @FieldResolver(() => String, { nullable: true })
    str_county_ibge_uf_code(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<string | null> {
      return mapLoaded(countyOf(e, ctx), (v) => v?.str_ibge_code.slice(0, 2) ?? null);
    }

    @FieldResolver(() => String, { nullable: true })
    str_county_name(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<string | null> {
      return mapLoaded(countyOf(e, ctx), (v) => v?.str_name ?? null);
    }

    @FieldResolver(() => String, { nullable: true })
    str_responsible_user_name(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<string | null> {
      return mapLoaded(responsibleOf(e, ctx), (v) => v?.str_name ?? null);
    }
  }
  return SharedFieldsResolver;
}

export const EstablishmentSharedFieldsResolver = sharedFields(() => Establishment);
export const EstablishmentUnrestrictedSharedFieldsResolver = sharedFields(() => EstablishmentUnrestricted);

@Resolver(() => Establishment)
export class EstablishmentFieldsResolver {
  @FieldResolver(() => County, { nullable: true })
  county(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<CountyRow | null> {
    return countyOf(e, ctx);
  }

  @FieldResolver(() => User, { nullable: true })
  responsible_user(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return responsibleOf(e, ctx);
  }

  @FieldResolver(() => String, { nullable: true })
  str_responsible_document(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(responsibleOf(e, ctx), (v) => (v ? personal(ctx, v, v.str_document) : null));
  }

  /** An invitee sees its own unit, not the siblings it was not invited to. */
  @FieldResolver(() => [ControlUnit])
  control_units(@Root() e: EstablishmentEntity, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<ControlUnitEntity[]> {
    return ctx.loaders.controlUnitsOfEstablishment(true, includeOf(info, CONTROL_UNIT_NEEDS), pickOf(info)).load(e.id);
  }
}

@Resolver(() => EstablishmentUnrestricted)
export class EstablishmentUnrestrictedFieldsResolver {
  @FieldResolver(() => String, { nullable: true })
  str_document(@Root() e: EstablishmentEntity): string | null {
    return maskDocument(e.str_document);
  }

  @FieldResolver(() => String, { nullable: true })
  str_responsible_document(@Root() e: EstablishmentEntity, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(responsibleOf(e, ctx), (v) => (v ? mapLoaded(personal(ctx, v, v.str_document), maskDocument) : null));
  }

  /** Every unit's Read Only Data is public (unrestricted search); what lies behind a unit is scoped on the unit itself. */
  @FieldResolver(() => [ControlUnit])
  control_units(@Root() e: EstablishmentEntity, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<ControlUnitEntity[]> {
    return ctx.loaders.controlUnitsOfEstablishment(false, includeOf(info, CONTROL_UNIT_NEEDS)).load(e.id);
  }
}

@Resolver(() => ControlUnit)
export class ControlUnitFieldsResolver {
  /** A unit is reached from records of other organizations (a GTA's destination, an invite): null unless the caller sees the establishment. */
  @FieldResolver(() => Establishment, { nullable: true })
  establishment(@Root() u: ControlUnitEntity, @Ctx() ctx: Context): Loaded<EstablishmentEntity | null> {
    return ctx.loaders.visibleEstablishmentById.load(u.establishment_id);
  }

  /** E-mail and document: null unless the caller sees the unit (its name is public, str_responsible_user_name). */
  @FieldResolver(() => User, { nullable: true })
  responsible_user(@Root() u: ControlUnitEntity, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return u.responsible_user_id ? ctx.loaders.visibleResponsibleUserOfUnit.load(u.id) : null;
  }

  @FieldResolver(() => String, { nullable: true })
  str_responsible_user_name(@Root() u: ControlUnitEntity, @Ctx() ctx: Context): Loaded<string | null> {
    return u.responsible_user_id ? mapLoaded(ctx.loaders.userById.load(u.responsible_user_id), (v) => v?.str_name ?? null) : null;
  }
}

@ObjectType('EstablishmentHistory', { description: "One event of an establishment's history" })
export class EstablishmentHistory {
  @Field(() => UUID) id!: string;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => JSONObject, { description: '{str_event, ts_occurred_at, actor, changes, refs}' }) criteria!: Record<string, unknown>;
}

@ObjectType('EstablishmentPage')
export class EstablishmentPage {
  @Field(() => [Establishment]) data!: Establishment[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('EstablishmentUnrestrictedPage')
export class EstablishmentUnrestrictedPage {
  @Field(() => [EstablishmentUnrestricted]) data!: EstablishmentUnrestricted[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('EstablishmentHistoryPage')
export class EstablishmentHistoryPage {
  @Field(() => [EstablishmentHistory]) data!: EstablishmentHistory[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('ControlUnitPage')
export class ControlUnitPage {
  @Field(() => [ControlUnit]) data!: ControlUnit[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('EstablishmentResponsibleUserInput')
export class EstablishmentResponsibleUserInput {
  @Field(() => String, { nullable: true }) str_document?: string;
  @Field(() => String, { nullable: true }) str_email?: string;
  @Field(() => String, { nullable: true }) str_name?: string;
  @Field(() => String, { nullable: true }) str_type?: string;
}

@InputType('EstablishmentUpdateInput')
export class EstablishmentUpdateInput {
  @Field(() => Boolean, { nullable: true }) bl_move_with_tag_reading?: boolean;
  @Field(() => String, { nullable: true }) county_id?: string;
  @Field(() => String, { nullable: true }) responsible_user_id?: string;
  @Field(() => Float, { nullable: true }) dec_area?: number;
  @Field(() => Float, { nullable: true }) dec_exploration_area?: number;
  @Field(() => GeoPointInput, { nullable: true }) geo_location?: GeoPointInput;
  @Field(() => [String], { nullable: true, description: `Which invites its units accept: ${MOVIMENTATION_TYPES.join(', ')}; null accepts any` }) lst_invite_movimentation_types?: string[] | null;
  @Field(() => String, { nullable: true }) str_address?: string;
  @Field(() => String, { nullable: true }) str_car?: string;
  @Field(() => String, { nullable: true }) str_code?: string;
  @Field(() => String, { nullable: true }) str_company_code?: string;
  @Field(() => String, { nullable: true }) str_document?: string;
  @Field(() => String, { nullable: true }) str_email?: string;
  @Field(() => String, { nullable: true }) str_name?: string;
  @Field(() => String, { nullable: true }) str_neighborhood?: string;
  @Field(() => SocioenvironmentalStatusEnum, { nullable: true, description: 'Authorities, integrations and administrators only' }) str_socioenvironmental_status?: string;
  @Field(() => EstablishmentStatusEnum, { nullable: true, description: 'Authorities and administrators only' }) str_status?: string;
  @Field(() => EstablishmentTypeEnum, { nullable: true }) str_type?: string;
  @Field(() => String, { nullable: true }) str_zip_code?: string;
}

@InputType('EstablishmentCreateInput')
export class EstablishmentCreateInput extends EstablishmentUpdateInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'The county by its IBGE code (instead of county_id)' }) str_ibge_code?: string;
  @Field(() => EstablishmentResponsibleUserInput, { nullable: true, description: 'Found by document or e-mail, or registered and sent a confirm-registration mail' }) responsible_user?: EstablishmentResponsibleUserInput;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}

@InputType('ControlUnitCreateInput')
export class ControlUnitCreateInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: an establishment the caller configures' }) establishment_id?: string;
  @Field(() => String, { nullable: true, description: 'Required, unique' }) str_code?: string;
  @Field(() => String, { nullable: true, description: 'Required' }) str_name?: string;
  @Field(() => ControlUnitTypeEnum, { nullable: true, description: 'Required' }) str_type?: string;
  @Field(() => PredominantPhaseEnum, { nullable: true }) str_predominant_phase?: string;
  @Field(() => PredominantSystemEnum, { nullable: true }) str_predominant_system?: string;
  @Field(() => String, { nullable: true, description: 'A user the caller may see' }) responsible_user_id?: string;
}

@InputType('ControlUnitUpdateInput')
export class ControlUnitUpdateInput {
  @Field(() => String, { nullable: true }) str_code?: string;
  @Field(() => String, { nullable: true }) str_name?: string;
  @Field(() => ControlUnitTypeEnum, { nullable: true }) str_type?: string;
  @Field(() => PredominantPhaseEnum, { nullable: true }) str_predominant_phase?: string;
  @Field(() => PredominantSystemEnum, { nullable: true }) str_predominant_system?: string;
  @Field(() => String, { nullable: true }) responsible_user_id?: string;
}
