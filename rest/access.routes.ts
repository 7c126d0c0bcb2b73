import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

/** interface.md's invite operations (PUT/PATCH) plus the standard endpoints of the group and the revoke action. */
export const inviteRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/invites',
    tag: 'Invite',
    fields: { list: 'invites', read: 'invite', create: 'createInvite', update: 'updateInvite', remove: 'deleteInvite' },
    noun: ['invite', 'invites'],
    summaries: {
      index: "Invites of the caller's organization and to the caller",
      create: 'Invite a user (user_id, or to_user by e-mail) to a control unit',
      update: 'The invitee accepts (bl_accepted); the author changes the rest while PENDING',
      remove: 'The author revokes the invite',
    },
  }),
  actionRoute('/api/invites', 'revoke', { operation: 'InviteRevoke', pick: 'revokeInvite', summary: 'The author revokes the invite', tag: 'Invite' }),
];

const action = (name: 'approve' | 'deny' | 'cancel', summary: string): Route =>
  actionRoute('/api/invite-requests', name, { operation: `InviteRequest${name[0]!.toUpperCase()}${name.slice(1)}`, pick: `${name}InviteRequest`, summary, tag: 'Invite Request' });

export const inviteRequestRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/invite-requests',
    tag: 'InviteRequest',
    fields: { list: 'inviteRequests', read: 'inviteRequest', create: 'createInviteRequest' },
    noun: ['invite request', 'invite requests'],
    summaries: { index: "The caller's requests and those to its organization's units", create: 'Ask to be invited to a control unit' },
  }).map((r) => ({ ...r, tag: 'Invite Request' })),
  action('approve', 'Approve: creates an accepted invite (owners and managers of the unit organization)'),
  action('deny', 'Deny (owners and managers of the unit organization)'),
  action('cancel', 'Cancel (the requester)'),
];

/** Sharings (CONTRACT.md's `sharings` group): the standard endpoints; PUT and PATCH alike change the fields given. */
export const sharingRoutes: Route[] = resourceRoutes({
  path: '/api/sharings',
  tag: 'Sharing',
  fields: { list: 'sharings', read: 'sharing', create: 'createSharing', update: 'updateSharing', remove: 'deleteSharing' },
  noun: ['sharing', 'sharings'],
  summaries: {
    index: "The active organization's sharings (str_status filters by the derived status)",
    create: 'Share establishments or control units of the active organization with users and organizations (owners and managers)',
    update: 'Change a sharing: the fields given; a list given replaces the stored one',
    remove: 'Remove a sharing, and every access it gave',
  },
});
