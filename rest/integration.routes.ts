import type { Route } from './route.js';

/** interface.md lists these for every integration operation. */
const errors = [400, 401, 403, 404, 422, 500];
const base = { auth: true, tag: 'Integration', errors } as const;
const idParam = { id: { variable: 'id' } };

/** The state integration (public API, Portuguese paths): INTEGRATION and AUTHORITY users, scoped to the UF of their county. */
export const integrationRoutes: Route[] = [
  { ...base, method: 'GET', path: '/api/v1/propriedades', operation: 'IntegrationPropriedades', status: 200, page: 'page', pick: 'propriedades', paged: true, summary: "Establishments of the caller's federative unit (Establishment Partial Unrestricted Data)" },
  {
    ...base,
    method: 'POST',
    path: '/api/v1/gta/notificar',
    operation: 'IntegrationNotificar',
    status: 201,
    body: 'input',
    pick: 'gtaNotificar',
    summary:
      "Register the GTA the state issued (ds_uf the caller's UF and nr_gta required; ds_serie_gta, id_gta; optionally int_animal_quantity, str_from_control_unit_code, str_to_control_unit_code, str_purpose, str_species, ts_issued_at, ts_valid_until); notified again, returns the same GTA completed with what it lacked",
  },
  { ...base, method: 'POST', path: '/api/v1/gta/cancelar', operation: 'IntegrationCancelar', status: 200, body: 'input', pick: 'gtaCancelar', summary: 'The state cancels a GTA (by ds_uf, ds_serie_gta, nr_gta): ISSUED → CANCELLED; 404 unknown; 422 INVALID_STATE once animals were dispatched' },
  { ...base, method: 'GET', path: '/api/v1/entrada_animais/:id', operation: 'IntegrationEntradaAnimais', status: 200, params: idParam, pick: 'entradaAnimais', summary: "An animals ingress (Animals Ingress) of the caller's UF by its uuid or by the id_gta it was received under" },
  { ...base, method: 'GET', path: '/api/v1/saida_animais/:id', operation: 'IntegrationSaidaAnimais', status: 200, params: idParam, pick: 'saidaAnimais', summary: "An animals egress (Animals Egress) of the caller's UF by its uuid or by the id_gta it left under" },
];

const qa = { auth: true, tag: 'Integration Qa', errors } as const;

/** Integration QA: what a state's integrator checks before going live; the GTA calls answer as the real ones and write nothing. */
export const integrationQaRoutes: Route[] = [
  { ...qa, method: 'GET', path: '/api/v1/qa/ping', operation: 'QaPing', status: 200, pick: 'qaPing', summary: "Who the token is, its federative unit, whether the state integration answers it (and why not), and the server's time" },
  {
    ...qa, method: 'POST', path: '/api/v1/qa/gta/notificar', operation: 'QaGtaNotificar', status: 200, body: 'input', pick: 'qaGtaNotificar',
    summary: 'Validates a gta/notificar body exactly as POST /api/v1/gta/notificar and answers the GTA it would store (200), or the same error; writes nothing',
  },
  {
    ...qa, method: 'POST', path: '/api/v1/qa/gta/cancelar', operation: 'QaGtaCancelar', status: 200, body: 'input', pick: 'qaGtaCancelar',
    summary: 'Validates a gta/cancelar body exactly as POST /api/v1/gta/cancelar and answers the GTA as it would leave it, or the same error; changes nothing',
  },
];
