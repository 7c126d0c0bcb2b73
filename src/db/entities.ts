import { Organization } from '../identity/organization.entity.js';
import { User } from '../identity/user.entity.js';
import { Membership } from '../identity/membership.entity.js';
import { AuthSession, RefreshToken, UserToken } from '../identity/session.entity.js';
import { County } from '../places/county.entity.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { SentMessage } from '../shared/sent-message.entity.js';
import { Vehicle } from '../transit/vehicle.entity.js';
import { Invite } from '../access/invite.entity.js';
import { InviteRequest } from '../access/invite-request.entity.js';
import { Gta } from '../movements/gta.entity.js';

export const entities = [Organization, User, Membership, AuthSession, RefreshToken, UserToken, County, SentMessage, Vehicle, Establishment, ControlUnit, Gta, Invite, InviteRequest];
