import type { Route } from './route.js';

/** The singletons (CONTRACT.md: `home`, `privacy-and-terms`, `user-features`, `user-verification`): one record each, no id in the path. */
export const singletonRoutes: Route[] = [
  { method: 'GET', path: '/api/home', auth: true, operation: 'HomeRead', status: 200, pick: 'home', summary: 'Counts of the active organization: animals and tags by status, establishments, units, open movements, pending invites, open occurrences', tag: 'Home' },
  { method: 'GET', path: '/api/user-features', auth: true, operation: 'UserFeaturesRead', status: 200, pick: 'userFeatures', summary: 'The feature flags enabled for the caller (USER_FEATURES_DEFAULT, then its organization’s setting, then its own)', tag: 'User Features' },
  {
    method: 'PUT', path: '/api/user-features/users/:user_id', auth: true, operation: 'UserFeaturesSetUser', status: 200, params: { user_id: { variable: 'user_id', uuid: true } }, body: 'input', pick: 'setUserFeatures',
    summary: "Replace a user's setting: lst_enabled, lst_disabled (administrators)", tag: 'User Features', errors: [400, 403, 404, 422],
  },
  {
    method: 'PUT', path: '/api/user-features/organizations/:organization_id', auth: true, operation: 'UserFeaturesSetOrganization', status: 200, params: { organization_id: { variable: 'organization_id', uuid: true } }, body: 'input', pick: 'setOrganizationFeatures',
    summary: "Replace an organization's setting: lst_enabled, lst_disabled (administrators)", tag: 'User Features', errors: [400, 403, 404, 422],
  },
  { method: 'GET', path: '/api/privacy-and-terms', auth: false, operation: 'PrivacyAndTermsRead', status: 200, pick: 'privacyAndTerms', summary: 'The current terms (no token needed; with one, the caller’s acceptance)', tag: 'Privacy And Terms', errors: [404] },
  { method: 'POST', path: '/api/privacy-and-terms', auth: true, operation: 'PrivacyAndTermsPublish', status: 201, body: 'input', pick: 'publishPrivacyAndTerms', summary: 'Publish a new current version (administrators)', tag: 'Privacy And Terms', errors: [403, 422] },
  {
    method: 'POST', path: '/api/privacy-and-terms/accept', auth: true, operation: 'PrivacyAndTermsAccept', status: 200, body: 'input', optionalBody: true, pick: 'acceptPrivacyAndTerms',
    summary: 'The caller accepts the current version (ts_terms_accepted_at)', tag: 'Privacy And Terms', errors: [404, 422],
  },
  { method: 'POST', path: '/api/user-verification', auth: true, operation: 'UserVerificationSend', status: 201, body: 'input', optionalBody: true, pick: 'sendUserVerification', summary: 'Send the caller a 6-digit code (str_channel EMAIL or SMS); one per minute', tag: 'User Verification', errors: [422, 429] },
  {
    method: 'POST', path: '/api/user-verification/verify', auth: true, operation: 'UserVerificationVerify', status: 200, body: 'input', optionalBody: true, pick: 'verifyUserVerification',
    summary: 'Verify the code sent (str_verification_code, user_id): sets bl_verified; 5 attempts per code', tag: 'User Verification', errors: [403, 422],
  },
];
