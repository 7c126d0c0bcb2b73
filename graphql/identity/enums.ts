import { registerEnumType } from 'type-graphql';
import { asEnum } from '../shared/enums.js';
import { ROLES } from '../../src/identity/membership.entity.js';
import { USER_TYPES } from '../../src/identity/user.entity.js';


export const UserTypeEnum = asEnum(USER_TYPES);
export const RoleEnum = asEnum(ROLES);
registerEnumType(UserTypeEnum, { name: 'UserType' });
registerEnumType(RoleEnum, { name: 'Role' });
export const InvitationStatusEnum = asEnum(['INVITED'] as const);
registerEnumType(InvitationStatusEnum, { name: 'InvitationStatus' });
