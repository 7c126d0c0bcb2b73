import { Ctx, FieldResolver, Resolver, Root, type ClassType } from 'type-graphql';
import type { Context } from '../context.js';
import { establishmentNameOfUnit, type Loaded, mapLoaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';

/** A tag operation at one unit by one operator (a writeoff, a replacement). */
interface UnitOperationRow {
  control_unit_id: string;
  operator_user_id: string | null;
}

/** The unit and the operator are joined with the operation when the query selects them. */
export const UNIT_OPERATION_NEEDS: Needs = {
  control_unit: { path: ['control_unit'], next: () => CONTROL_UNIT_NEEDS },
  str_control_unit_name: { path: ['control_unit'] },
  str_establishment_name: { path: ['control_unit', 'any_establishment'] },
  operator_user: { path: ['operator_user'], next: () => USER_NEEDS },
  str_operator_user_name: { path: ['operator_user'] },
};

const operatorOf = (r: UnitOperationRow, ctx: Context): Loaded<UserRow | null> => (r.operator_user_id ? ctx.loaders.userById.load(r.operator_user_id) : null);

/**
 * The unit's and the operator's fields of `type`, for its field resolver to extend. A class per
 * type: type-graphql moves a base class's field resolvers to the first class that extends it.
 */
export function unitOperationFields(type: ClassType) {
  @Resolver(() => type)
  abstract class UnitOperationFields {
    @FieldResolver(() => ControlUnit)
    control_unit(@Root() r: UnitOperationRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
      return ctx.loaders.unrestrictedControlUnitById.load(r.control_unit_id);
    }

    @FieldResolver(() => String, { nullable: true })
    str_control_unit_name(@Root() r: UnitOperationRow, @Ctx() ctx: Context): Loaded<string | null> {
      return mapLoaded(ctx.loaders.unrestrictedControlUnitById.load(r.control_unit_id), (v) => v?.str_name ?? null);
    }

    @FieldResolver(() => String, { nullable: true })
    str_establishment_name(@Root() r: UnitOperationRow, @Ctx() ctx: Context): Loaded<string | null> {
      return establishmentNameOfUnit(ctx.loaders, r.control_unit_id);
    }

    @FieldResolver(() => User, { nullable: true })
    operator_user(@Root() r: UnitOperationRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
      return operatorOf(r, ctx);
    }

    @FieldResolver(() => String, { nullable: true })
    str_operator_user_name(@Root() r: UnitOperationRow, @Ctx() ctx: Context): Loaded<string | null> {
      return mapLoaded(operatorOf(r, ctx), (v) => v?.str_name ?? null);
    }
  }
  return UnitOperationFields;
}
