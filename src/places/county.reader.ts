import type { Source } from '../db/reader.js';

export const countySource: Source = { table: 'county', alias: 'c', relations: {} };
