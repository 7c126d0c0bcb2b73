import type { Route } from './route.js';

const id = { id: { variable: 'id', uuid: true } };

export const userRoutes: Route[] = [
  { method: 'GET', path: '/api/users', auth: true, operation: 'UserIndex', status: 200, page: 'page', filter: { from: 'query', variable: 'filter' }, pick: 'users', paged: true, summary: 'Users the caller may see', tag: 'User' },
  { method: 'POST', path: '/api/users/search', auth: true, operation: 'UserSearch', status: 200, page: 'page', filter: { from: 'body', variable: 'filter' }, pick: 'users', paged: true, summary: 'Search users', tag: 'User' },
  { method: 'POST', path: '/api/users', auth: true, operation: 'UserCreate', status: 201, body: 'input', pick: 'createUser', summary: 'Create a user (mails a confirm-registration token)', tag: 'User' },
  { method: 'GET', path: '/api/users/:id', auth: true, operation: 'UserRead', status: 200, params: id, pick: 'user', summary: 'One user', tag: 'User' },
  { method: 'PUT', path: '/api/users/:id', auth: true, operation: 'UserUpdate', status: 200, params: id, body: 'input', pick: 'updateUser', summary: 'Update a user', tag: 'User' },
  { method: 'PATCH', path: '/api/users/:id', auth: true, operation: 'UserUpdate', status: 200, params: id, body: 'input', pick: 'updateUser', summary: 'Update a user', tag: 'User' },
];

const member = { id: { variable: 'id', uuid: true }, user_id: { variable: 'user_id', uuid: true } };

export const organizationRoutes: Route[] = [
  { method: 'GET', path: '/api/organizations', auth: true, operation: 'OrganizationIndex', status: 200, page: 'page', filter: { from: 'query', variable: 'filter' }, pick: 'organizations', paged: true, summary: 'Organizations the caller belongs to', tag: 'Organization' },
  { method: 'POST', path: '/api/organizations/search', auth: true, operation: 'OrganizationSearch', status: 200, page: 'page', filter: { from: 'body', variable: 'filter' }, pick: 'organizations', paged: true, summary: 'Search organizations', tag: 'Organization' },
  { method: 'POST', path: '/api/organizations', auth: true, operation: 'OrganizationCreate', status: 201, body: 'input', pick: 'createOrganization', summary: 'Create an organization (the caller becomes its owner)', tag: 'Organization' },
  { method: 'GET', path: '/api/organizations/:id', auth: true, operation: 'OrganizationRead', status: 200, params: id, pick: 'organization', summary: 'One organization', tag: 'Organization' },
  { method: 'PUT', path: '/api/organizations/:id', auth: true, operation: 'OrganizationUpdate', status: 200, params: id, body: 'input', pick: 'updateOrganization', summary: 'Update an organization', tag: 'Organization' },
  { method: 'PATCH', path: '/api/organizations/:id', auth: true, operation: 'OrganizationUpdate', status: 200, params: id, body: 'input', pick: 'updateOrganization', summary: 'Update an organization', tag: 'Organization' },
  { method: 'GET', path: '/api/organizations/:id/members', auth: true, operation: 'MemberIndex', status: 200, params: id, page: 'page', pick: 'organizationMembers', paged: true, summary: 'Members of an organization', tag: 'Organization' },
  { method: 'POST', path: '/api/organizations/:id/members', auth: true, operation: 'MemberAdd', status: 201, params: id, body: 'input', pick: 'addOrganizationMember', summary: 'Add a member', tag: 'Organization' },
  { method: 'PATCH', path: '/api/organizations/:id/members/:user_id', auth: true, operation: 'MemberRoleChange', status: 200, params: member, body: 'input', pick: 'changeOrganizationMemberRole', summary: "Change a member's role", tag: 'Organization' },
  { method: 'DELETE', path: '/api/organizations/:id/members/:user_id', auth: true, operation: 'MemberRemove', status: 204, params: member, pick: 'removeOrganizationMember', summary: 'Remove a member', tag: 'Organization' },
];
