import { Migration0001Identity } from './Migration0001Identity.js';

/** Every migration, in order. New ones are appended; applied ones are never edited. */
export const migrationsList = [{ name: 'Migration0001Identity', class: Migration0001Identity }];
