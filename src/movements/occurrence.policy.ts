import type { Actor } from '../identity/actor.js';
import type { Role } from '../identity/membership.entity.js';
import { DomainError } from '../shared/errors.js';

/** DOMAIN.md: owners, managers and operators record field work; viewers, authorities and invitees only read. */
const HANDLING_ROLES: readonly Role[] = ['OWNER', 'MANAGER', 'OPERATOR'];

/**
 * Occurrences are seen where their unit is seen (occurrence.reader.ts, occurrenceScope); people
 * report them at, and resolve or dismiss them for, units of their active organization.
 */
export const occurrencePolicy = {
  canHandle(actor: Actor, establishment: { organization_id: string }): void {
    if (actor.isAdmin) return;
    if (establishment.organization_id === actor.organizationId && actor.role && HANDLING_ROLES.includes(actor.role)) return;
    throw DomainError.forbidden("only owners, managers and operators of the unit's organization report, resolve or dismiss its occurrences");
  },
};
