import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const gtaRoutesUnder = (base: string, create: boolean): Route[] =>
  resourceRoutes({
    path: `${base}/gtas`,
    tag: 'Gta',
    fields: { list: 'gtas', read: 'gta', ...(create ? { create: 'createGta' } : {}) },
    noun: ['GTA', 'GTAs'],
    summaries: {
      index: 'GTAs the caller sees (origin or destination organization; authorities and integrations of the UF)',
      search: 'Search GTAs the caller sees',
      create: "Issue a GTA (Gta Create: gta + user_id) for a unit of the active organization (owners, managers, operators) or as an authority of its UF",
      read: 'One GTA (str_status EXPIRED when ts_valid_until passed unused)',
    },
  });

export const gtaRoutes: Route[] = [
  ...gtaRoutesUnder('/api', true),
  actionRoute('/api/gtas', 'cancel', { operation: 'GtaCancel', pick: 'cancelGta', summary: 'Cancel a GTA: ISSUED → CANCELLED (its issuer, an authority of its UF or an administrator)', tag: 'Gta', errors: [400, 403, 404] }),
  ...gtaRoutesUnder('/api/v1', false),
];
