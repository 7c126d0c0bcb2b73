import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventInput } from '../shared/events.js';
import { Membership } from './membership.entity.js';
import { OrganizationInvite } from './organization-invite.entity.js';
import { User } from './user.entity.js';

/**
 * An accepted invitation: the person becomes a member with the invited role (a member already
 * keeps the role they have) and, without one yet, takes the organization as their default. The
 * caller flushes and appends the events returned.
 */
export async function joinOrganization(tx: EntityManager, invite: OrganizationInvite): Promise<EventInput[]> {
  invite.str_status = 'ACCEPTED';
  invite.ts_decided_at = new Date();
  const events: EventInput[] = [{ type: 'ORGANIZATION_INVITE_ACCEPTED', recordType: 'OrganizationInvite', recordId: invite.id, actorId: invite.user_id, payload: { organization_id: invite.organization_id } }];
  if (await tx.count(Membership, { user_id: invite.user_id, organization_id: invite.organization_id })) return events;
  tx.persist(tx.create(Membership, { user_id: invite.user_id, organization_id: invite.organization_id, str_role: invite.str_role }));
  const user = await tx.findOneOrFail(User, { id: invite.user_id });
  user.organization_id ??= invite.organization_id;
  events.push({ type: 'MEMBERSHIP_ADDED', recordType: 'Organization', recordId: invite.organization_id, actorId: invite.user_id, payload: { user_id: invite.user_id, str_role: invite.str_role, organization_invite_id: invite.id } });
  return events;
}

/** On confirming a registration: the invitations that created the account (or found it without a password) are accepted. */
export async function joinOnConfirmation(tx: EntityManager, userId: string): Promise<EventInput[]> {
  const invites = await tx.find(OrganizationInvite, { user_id: userId, str_status: 'PENDING', bl_joins_on_confirmation: true }, { orderBy: { ts_created_at: 'asc' } });
  const events: EventInput[] = [];
  for (const invite of invites) events.push(...(await joinOrganization(tx, invite)));
  return events;
}
