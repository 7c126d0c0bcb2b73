import { geojsonDocumentText, MAX_LOT_LIST, MAX_WINDOW_DAYS } from '../graphql/eudr/eudr.document.js';
import type { Route } from './route.js';

const LOT = `The lot is exactly one of gta_id (the animals dispatched under it), animals_ingress_id (the animals it received), lst_animal_ids or lst_tag_codes (up to ${MAX_LOT_LIST}), or control_unit_id with ts_from and ts_to (the animals slaughtered at that unit in the window, at most ${MAX_WINDOW_DAYS} days). Asked by the organization holding every animal of the lot now, an AUTHORITY of its federative unit, or an administrator (404 for anyone else, and for ids that do not exist). A lot whose GeoJSON would pass the EU information system's file limit (EUDR_STATEMENT_MAX_BYTES, 25 MB) is a 422 naming the limit, the size and the count of establishments`;

export const VERDICT_PATH = '/api/eudr/verdict';
const STATEMENTS = '/api/eudr/statements';
const id = { id: { variable: 'id', uuid: true } };
const GEOJSON = 'An RFC 7946 FeatureCollection for TRACES: one Point feature per establishment (geometry null where it has none), properties ProducerName, ProducerCountry (BR), ProductionPlace, Area (hectares, where known), establishment_id, str_car, str_socioenvironmental_status, str_first_day, str_last_day, int_animals';
const VERDICT = 'READY when every establishment of the lot has a valid point (six decimals, inside Brazil) and a CAR, none is NON_COMPLIANT and no animal came from an unknown origin; otherwise NOT_READY with each reason per establishment (NO_POINT, INVALID_POINT, NO_CAR, NON_COMPLIANT, UNKNOWN_ORIGIN, the last naming its animals by id and tag code)';
const STATEMENT_READERS = "Read by the organization that made it (a statement made without one: by the user who made it) and administrators; 404 for anyone else";

/** EUDR due diligence (Regulation (EU) 2023/1115): docs/decisions/eudr.md. */
export const eudrRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/eudr/geolocation',
    auth: true,
    status: 200,
    body: 'lot',
    operation: 'EudrGeolocation',
    pick: 'eudrGeolocation',
    document: { field: 'feature_collection', contentType: 'application/geo+json', description: GEOJSON, text: geojsonDocumentText },
    tag: 'EUDR',
    errors: [400, 404, 422],
    summary: `Every establishment any animal of a lot stood at since identification, as the GeoJSON (application/geo+json, coordinates [longitude, latitude] with six decimals) an EUDR due diligence statement carries; the verdict is ${VERDICT_PATH} with the same body. To keep the statement, follow its verdict by a GET and record what TRACES gave, POST ${STATEMENTS}. ${LOT}`,
  },
  {
    method: 'POST',
    path: VERDICT_PATH,
    auth: true,
    status: 200,
    body: 'lot',
    operation: 'EudrVerdict',
    pick: 'eudrVerdict',
    tag: 'EUDR',
    errors: [400, 404, 422],
    summary: `The verdict beside /api/eudr/geolocation's GeoJSON: ${VERDICT}. ${LOT}`,
  },
  {
    method: 'POST',
    path: STATEMENTS,
    auth: true,
    status: 201,
    body: 'lot',
    operation: 'EudrStatementCreate',
    pick: 'createEudrStatement',
    tag: 'EUDR',
    errors: [400, 404, 422],
    summary: `Records a lot's due diligence statement: the animals the lot holds now are kept with it, its GeoJSON and verdict are then GETs (${STATEMENTS}/{id}/geolocation, /verdict), and PATCH records what TRACES gave. ${LOT}`,
  },
  { method: 'GET', path: `${STATEMENTS}/:id`, auth: true, status: 200, params: id, operation: 'EudrStatementRead', pick: 'eudrStatement', tag: 'EUDR', errors: [404], summary: `One recorded statement. ${STATEMENT_READERS}` },
  {
    method: 'PATCH',
    path: `${STATEMENTS}/:id`,
    auth: true,
    status: 200,
    params: id,
    body: 'input',
    operation: 'EudrStatementUpdate',
    pick: 'updateEudrStatement',
    tag: 'EUDR',
    errors: [400, 403, 404, 409, 422],
    summary: `Records what TRACES gave on submission (str_reference_number, str_verification_number, str_dds_identifier) and the upstream statements it references (upstream_statements, the whole list); the lot's animals and GTA then show the reference to whoever may read them. By the organization's owners, managers and operators. ${STATEMENT_READERS}`,
  },
  {
    method: 'GET',
    path: `${STATEMENTS}/:id/geolocation`,
    auth: true,
    status: 200,
    params: id,
    operation: 'EudrStatementGeolocation',
    pick: 'eudrStatementGeolocation',
    document: {
      field: 'feature_collection',
      contentType: 'application/geo+json',
      description: GEOJSON,
      link: (path) => `<${path.replace(/\/geolocation$/, '/verdict')}>; rel="describedby"; type="application/json"; title="the verdict"`,
      text: geojsonDocumentText,
    },
    tag: 'EUDR',
    errors: [404, 422],
    summary: `A recorded statement's GeoJSON (application/geo+json, six decimals), read now for the animals it holds (a point fixed since shows); the Link header points to its verdict (GET). ${STATEMENT_READERS}`,
  },
  { method: 'GET', path: `${STATEMENTS}/:id/verdict`, auth: true, status: 200, params: id, operation: 'EudrStatementVerdict', pick: 'eudrStatementVerdict', tag: 'EUDR', errors: [404, 422], summary: `A recorded statement's verdict: ${VERDICT}. ${STATEMENT_READERS}` },
  {
    method: 'GET',
    path: '/api/animals/:id/eudr-statements',
    auth: true,
    status: 200,
    params: id,
    operation: 'AnimalEudrStatements',
    pick: 'animalEudrStatements',
    tag: 'EUDR',
    errors: [404],
    summary: "The submitted EUDR statements the animal is part of (reference and verification numbers, DDS identifier), oldest first: the next operator keeps them. Whoever may read the animal; 404 otherwise",
  },
  {
    method: 'GET',
    path: '/api/gtas/:id/eudr-statements',
    auth: true,
    status: 200,
    params: id,
    operation: 'GtaEudrStatements',
    pick: 'gtaEudrStatements',
    tag: 'EUDR',
    errors: [404],
    summary: 'The submitted EUDR statements whose lot was given by this GTA, oldest first. Whoever may read the GTA; 404 otherwise',
  },
];
