/** A feature flag's name: what a frontend tests for, so plain and short. */
export const FEATURE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A setting lists at most this many flags on each side. */
export const MAX_FEATURES = 100;

/**
 * The flags enabled for a user: the default set (USER_FEATURES_DEFAULT), then its organization's
 * setting, then its own, each later level adding what it enables and removing what it disables.
 * So an administrator turns a flag off for one user even when the default or the organization
 * turns it on, and on for one user the organization has it off.
 */
export function effectiveFeatures(defaults: readonly string[], levels: { lst_enabled: readonly string[]; lst_disabled: readonly string[] }[]): string[] {
  const on = new Set(defaults);
  for (const level of levels) {
    for (const f of level.lst_disabled) on.delete(f);
    for (const f of level.lst_enabled) on.add(f);
  }
  return [...on].sort();
}
