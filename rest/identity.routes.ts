import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const id = { id: { variable: 'id', uuid: true } };

const inviteErrors = [400, 422, 500];

export const userRoutes: Route[] = [
  // A person is invited, never created outright: 202 whether or not they have an account (CONTRACT.md, Accounts).
  ...resourceRoutes({
    path: '/api/users',
    tag: 'User',
    fields: { list: 'users', read: 'user', create: 'createUser', update: 'updateUser' },
    noun: ['user', 'users'],
    summaries: { index: 'Users the caller may see', create: 'Invite a person to the active organization (a new address gets an account to confirm, an existing one an invitation to accept; the same answer either way)' },
  }).map((r): Route => (r.operation === 'UserCreate' ? { ...r, status: 202 } : r)),
  { method: 'POST', path: '/api/organization-invites/accept', auth: false, operation: 'OrganizationInviteAccept', status: 204, body: 'input', pick: 'acceptOrganizationInvite', summary: 'Join the organization an invitation mail names (its code)', tag: 'User', errors: inviteErrors },
  { method: 'POST', path: '/api/organization-invites/decline', auth: false, operation: 'OrganizationInviteDecline', status: 204, body: 'input', pick: 'declineOrganizationInvite', summary: 'Decline an invitation (its code)', tag: 'User', errors: inviteErrors },
];

const member = { id: { variable: 'id', uuid: true }, user_id: { variable: 'user_id', uuid: true } };

export const organizationRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/organizations',
    tag: 'Organization',
    fields: { list: 'organizations', read: 'organization', create: 'createOrganization', update: 'updateOrganization' },
    noun: ['organization', 'organizations'],
    summaries: { index: 'Organizations the caller belongs to', create: 'Create an organization (the caller becomes its owner)' },
  }),
  { method: 'GET', path: '/api/organizations/:id/members', auth: true, operation: 'MemberIndex', status: 200, params: id, page: 'page', pick: 'organizationMembers', paged: true, summary: 'Members of an organization', tag: 'Organization' },
  { method: 'POST', path: '/api/organizations/:id/members', auth: true, operation: 'MemberAdd', status: 201, params: id, body: 'input', pick: 'addOrganizationMember', summary: 'Add a member', tag: 'Organization' },
  { method: 'PATCH', path: '/api/organizations/:id/members/:user_id', auth: true, operation: 'MemberRoleChange', status: 200, params: member, body: 'input', pick: 'changeOrganizationMemberRole', summary: "Change a member's role", tag: 'Organization' },
  { method: 'DELETE', path: '/api/organizations/:id/members/:user_id', auth: true, operation: 'MemberRemove', status: 204, params: member, pick: 'removeOrganizationMember', summary: 'Remove a member', tag: 'Organization' },
];
