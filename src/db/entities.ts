import { Organization } from '../identity/organization.entity.js';
import { User } from '../identity/user.entity.js';
import { Membership } from '../identity/membership.entity.js';
import { AuthSession, RefreshToken, UserToken } from '../identity/session.entity.js';
import { County } from '../places/county.entity.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { SentMessage } from '../shared/sent-message.entity.js';
import { Vehicle } from '../transit/vehicle.entity.js';

export const entities = [Organization, User, Membership, AuthSession, RefreshToken, UserToken, County, SentMessage, Vehicle, Establishment, ControlUnit];
