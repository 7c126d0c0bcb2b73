import type { Route } from './route.js';

const AUTH_ERRORS = [400, 401, 403, 404, 422, 500];
const tag = 'Auth';

export const authRoutes: Route[] = [
  { method: 'POST', path: '/api/login', auth: false, operation: 'Login', status: 200, body: 'input', optionalBody: true, pick: 'login', summary: 'Log in by e-mail or CPF/CNPJ document', tag, errors: [...AUTH_ERRORS, 429] },
  { method: 'POST', path: '/api/refresh', auth: false, operation: 'Refresh', status: 200, body: 'input', pick: 'refresh', summary: 'Rotate a refresh token', tag, errors: AUTH_ERRORS },
  { method: 'POST', path: '/api/logout', auth: true, operation: 'Logout', status: 204, pick: 'logout', summary: 'Revoke this session', tag, errors: AUTH_ERRORS },
  { method: 'GET', path: '/api/whoami', auth: true, operation: 'Whoami', status: 200, pick: 'whoami', summary: 'The caller', tag, errors: AUTH_ERRORS },
  { method: 'PUT', path: '/api/self-update', auth: true, operation: 'SelfUpdate', status: 200, body: 'input', optionalBody: true, pick: 'selfUpdate', summary: 'Change own profile or password', tag, errors: AUTH_ERRORS },
  { method: 'POST', path: '/api/change-org', auth: true, operation: 'ChangeOrg', status: 200, body: 'input', optionalBody: true, pick: 'changeOrg', summary: 'Switch the active organization', tag, errors: AUTH_ERRORS },
  { method: 'POST', path: '/api/reset-profile', auth: true, operation: 'ResetProfile', status: 200, optionalBody: true, pick: 'resetProfile', summary: 'Back to the personal profile (no active organization)', tag, errors: AUTH_ERRORS },
  { method: 'POST', path: '/api/request-recovery-password', auth: false, operation: 'RequestRecoveryPassword', status: 204, body: 'input', pick: 'requestRecoveryPassword', summary: 'Mail a password recovery token', tag, errors: AUTH_ERRORS },
  { method: 'POST', path: '/api/recover-password', auth: false, operation: 'RecoverPassword', status: 204, body: 'input', pick: 'recoverPassword', summary: 'Set a new password with a recovery token', tag, errors: AUTH_ERRORS },
  { method: 'POST', path: '/api/confirm-registration', auth: false, operation: 'ConfirmRegistration', status: 204, body: 'input', pick: 'confirmRegistration', summary: 'Set the first password of an account someone else created', tag, errors: AUTH_ERRORS },
];
