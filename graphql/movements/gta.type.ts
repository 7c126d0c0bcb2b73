import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import type { Context } from '../context.js';
import { mapLoaded, type Loaded } from '../loaders.js';
import { personal } from '../identity/user-as-seen.js';
import type { Needs } from '../lookahead.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { CONTROL_UNIT_NEEDS, ControlUnit, ESTABLISHMENT_NEEDS, EstablishmentUnrestricted } from '../places/establishment.type.js';
import type { Gta as GtaRow } from '../../src/movements/gta.entity.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import type { Establishment as EstablishmentRow } from '../../src/places/establishment.entity.js';
import { GTA_PURPOSES, GTA_SPECIES, GTA_STATUSES, effectiveStatus } from '../../src/movements/gta.rules.js';

const asEnum = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as { [K in T]: K };
export const GtaStatusEnum = asEnum(GTA_STATUSES);
export const GtaPurposeEnum = asEnum(GTA_PURPOSES);
export const GtaSpeciesEnum = asEnum(GTA_SPECIES);
registerEnumType(GtaStatusEnum, { name: 'GtaStatus' });
registerEnumType(GtaPurposeEnum, { name: 'GtaPurpose' });
registerEnumType(GtaSpeciesEnum, { name: 'GtaSpecies' });

@ObjectType('GtaResponsibleUser')
export class GtaResponsibleUser {
  @Field(() => UUID, { nullable: true }) id!: string | null;
  @Field(() => String, { nullable: true }) str_document!: string | null;
  @Field(() => String, { nullable: true }) str_name!: string | null;
}

@ObjectType('Gta', { description: 'Guia de Trânsito Animal: ISSUED → IN_USE → RECEIVED; ISSUED → CANCELLED; EXPIRED derived on read' })
export class Gta {
  @Field(() => UUID) id!: string;
  @Field(() => String, { description: 'The GTA number' }) str_code!: string;
  @Field(() => Int, { description: 'At least 1; 0 while a GTA the state notified without it is not yet completed (docs/CONTRACT.md, Decisions)' }) int_animal_quantity!: number;
  @Field(() => String, { nullable: true }) str_federative_unit!: string | null;
  @Field(() => String, { nullable: true }) str_series!: string | null;
  @Field(() => GtaStatusEnum) str_status!: string;
  @Field(() => GtaPurposeEnum, { nullable: true }) str_purpose!: string | null;
  @Field(() => GtaSpeciesEnum) str_species!: string;
  @Field(() => String, { nullable: true, description: "The state's id_gta" }) str_external_id!: string | null;
  @Field(() => UUID, { nullable: true, description: "The origin establishment's organization" }) organization_id!: string | null;
  @Field(() => UUID, { nullable: true }) from_control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true }) to_control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true }) from_establishment_id!: string | null;
  @Field(() => UUID, { nullable: true }) to_establishment_id!: string | null;
  @Field(() => ControlUnit, { nullable: true }) from_control_unit!: ControlUnit | null;
  @Field(() => ControlUnit, { nullable: true }) to_control_unit!: ControlUnit | null;
  @Field(() => EstablishmentUnrestricted, { nullable: true, description: 'Public fields: the destination is often another organization; null until a notified GTA is completed' }) from_establishment!: EstablishmentUnrestricted | null;
  @Field(() => EstablishmentUnrestricted, { nullable: true, description: 'Public fields: the destination is often another organization; null until a notified GTA is completed' }) to_establishment!: EstablishmentUnrestricted | null;
  @Field(() => GtaResponsibleUser, { nullable: true }) responsible_user!: GtaResponsibleUser | null;
  @Field(() => DateTime) ts_issued_at!: Date;
  @Field(() => DateTime, { nullable: true }) ts_valid_until!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** What each GTA field reads through a relation (look-ahead joins them with the GTA). */
export const GTA_NEEDS: Needs = {
  from_control_unit: { path: ['from_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  to_control_unit: { path: ['to_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  from_establishment: { path: ['from_establishment'], next: () => ESTABLISHMENT_NEEDS },
  to_establishment: { path: ['to_establishment'], next: () => ESTABLISHMENT_NEEDS },
  // Its CPF shows only to those who see the person whole: their organizations come with them.
  responsible_user: { path: ['responsible_user', 'organizations'] },
};

@Resolver(() => Gta)
export class GtaFieldsResolver {
  @FieldResolver(() => GtaStatusEnum)
  str_status(@Root() g: GtaRow): string {
    return effectiveStatus(g);
  }

  /** Gta Partial Data requires the quantity: 0, never a real one, marks a notified GTA not yet completed. */
  @FieldResolver(() => Int)
  int_animal_quantity(@Root() g: GtaRow): number {
    return g.int_animal_quantity ?? 0;
  }

  @FieldResolver(() => ControlUnit, { nullable: true })
  from_control_unit(@Root() g: GtaRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return g.from_control_unit_id ? ctx.loaders.unrestrictedControlUnitById.load(g.from_control_unit_id) : null;
  }

  @FieldResolver(() => ControlUnit, { nullable: true })
  to_control_unit(@Root() g: GtaRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return g.to_control_unit_id ? ctx.loaders.unrestrictedControlUnitById.load(g.to_control_unit_id) : null;
  }

  @FieldResolver(() => EstablishmentUnrestricted, { nullable: true })
  from_establishment(@Root() g: GtaRow, @Ctx() ctx: Context): Loaded<EstablishmentRow | null> {
    return g.from_establishment_id ? ctx.loaders.unrestrictedEstablishmentById.load(g.from_establishment_id) : null;
  }

  @FieldResolver(() => EstablishmentUnrestricted, { nullable: true })
  to_establishment(@Root() g: GtaRow, @Ctx() ctx: Context): Loaded<EstablishmentRow | null> {
    return g.to_establishment_id ? ctx.loaders.unrestrictedEstablishmentById.load(g.to_establishment_id) : null;
  }

  @FieldResolver(() => GtaResponsibleUser, { nullable: true })
  responsible_user(@Root() g: GtaRow, @Ctx() ctx: Context): Loaded<GtaResponsibleUser | null> {
    if (!g.responsible_user_id) return null;
    return mapLoaded(ctx.loaders.userById.load(g.responsible_user_id), (u) => (u ? mapLoaded(personal(ctx, u, u.str_document), (str_document) => ({ id: u.id, str_document, str_name: u.str_name })) : null));
  }
}

@ObjectType('GtaPage')
export class GtaPage {
  @Field(() => [Gta]) data!: Gta[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('GtaGtaInput', { description: 'Gta Gta: the GTA inside Gta Create' })
export class GtaGtaInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: the GTA number' }) str_code?: string;
  @Field(() => Int, { nullable: true, description: 'Required, at least 1' }) int_animal_quantity?: number;
  @Field(() => String, { nullable: true, description: "Defaults to the origin county's UF" }) str_federative_unit?: string;
  @Field(() => String, { nullable: true }) str_series?: string;
  @Field(() => String, { nullable: true, description: `Required: ${GTA_PURPOSES.join(', ')}` }) str_purpose?: string;
  @Field(() => String, { nullable: true, description: `${GTA_SPECIES.join(', ')} (default BOVINE)` }) str_species?: string;
  @Field(() => String, { nullable: true, description: "The state's id_gta" }) str_external_id?: string;
  @Field(() => String, { nullable: true, description: 'Required: a control unit the caller sees' }) from_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Required' }) to_control_unit_id?: string;
  @Field(() => DateTime, { nullable: true, description: 'Default: now' }) ts_issued_at?: Date;
  @Field(() => DateTime, { nullable: true, description: 'Required' }) ts_valid_until?: Date;
}

@InputType('GtaCreateInput', { description: 'Gta Create: gta + user_id (the responsible user)' })
export class GtaCreateInput {
  @Field(() => GtaGtaInput, { nullable: true }) gta?: GtaGtaInput;
  @Field(() => String, { nullable: true }) user_id?: string;
}

@InputType('IntegrationGtaInput', { description: 'Integration Notificar / Cancelar (cancelar reads only ds_uf, ds_serie_gta and nr_gta)' })
export class IntegrationGtaInput {
  @Field(() => String, { nullable: true, description: 'The GTA series' }) ds_serie_gta?: string;
  @Field(() => String, { nullable: true, description: "Required: the caller's UF" }) ds_uf?: string;
  @Field(() => String, { nullable: true, description: "The state's GTA id, kept as str_external_id" }) id_gta?: string;
  @Field(() => String, { nullable: true, description: 'Required: the GTA number' }) nr_gta?: string;
  @Field(() => Int, { nullable: true, description: 'Notificar: optional (completed later)' }) int_animal_quantity?: number;
  @Field(() => String, { nullable: true, description: "Notificar: optional, the origin control unit's str_code" }) str_from_control_unit_code?: string;
  @Field(() => String, { nullable: true, description: "Notificar: optional, the destination control unit's str_code" }) str_to_control_unit_code?: string;
  @Field(() => String, { nullable: true, description: `Notificar: optional, ${GTA_PURPOSES.join(', ')}` }) str_purpose?: string;
  @Field(() => String, { nullable: true, description: 'Notificar: BOVINE (default) or BUBALINE' }) str_species?: string;
  @Field(() => DateTime, { nullable: true, description: 'Notificar: default now' }) ts_issued_at?: Date;
  @Field(() => DateTime, { nullable: true, description: 'Notificar: optional; without it the GTA does not expire until completed' }) ts_valid_until?: Date;
}
