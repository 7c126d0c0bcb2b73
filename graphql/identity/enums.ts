import { registerEnumType } from 'type-graphql';
import { ROLES } from '../../src/identity/membership.entity.js';
import { USER_TYPES } from '../../src/identity/user.entity.js';

const asEnum = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as { [K in T]: K };

export const UserTypeEnum = asEnum(USER_TYPES);
export const RoleEnum = asEnum(ROLES);
registerEnumType(UserTypeEnum, { name: 'UserType' });
registerEnumType(RoleEnum, { name: 'Role' });
