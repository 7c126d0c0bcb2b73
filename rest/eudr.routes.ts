import { geojsonDocumentText, MAX_LOT_LIST, MAX_WINDOW_DAYS } from '../graphql/eudr/eudr.document.js';
import type { Route } from './route.js';

const LOT = `The lot is exactly one of gta_id (the animals dispatched under it), animals_ingress_id (the animals it received), lst_animal_ids or lst_tag_codes (up to ${MAX_LOT_LIST}), or control_unit_id with ts_from and ts_to (the animals slaughtered at that unit in the window, at most ${MAX_WINDOW_DAYS} days). Asked by the organization holding every animal of the lot now, an AUTHORITY of its federative unit, or an administrator (404 for anyone else, and for ids that do not exist). A lot whose GeoJSON would pass the EU information system's file limit (EUDR_STATEMENT_MAX_BYTES, 25 MB) is a 422 naming the limit, the size and the count of establishments`;

export const VERDICT_PATH = '/api/eudr/verdict';

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
    document: {
      field: 'feature_collection',
      contentType: 'application/geo+json',
      description: 'An RFC 7946 FeatureCollection for TRACES: one Point feature per establishment (geometry null where it has none), properties ProducerName, ProducerCountry (BR), ProductionPlace, Area (hectares, where known), establishment_id, str_car, str_socioenvironmental_status, str_first_day, str_last_day, int_animals',
      link: `<${VERDICT_PATH}>; rel="describedby"; type="application/json"; title="the verdict: POST the same body"`,
      text: geojsonDocumentText,
    },
    tag: 'EUDR',
    errors: [400, 404, 422],
    summary: `Every establishment any animal of a lot stood at since identification, as the GeoJSON (application/geo+json, coordinates [longitude, latitude] with six decimals) an EUDR due diligence statement carries; the Link header points to the verdict (${VERDICT_PATH}, same body). ${LOT}`,
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
    summary: `The verdict beside /api/eudr/geolocation's GeoJSON: READY when every establishment of the lot has a valid point (six decimals, inside Brazil) and a CAR, none is NON_COMPLIANT and no animal came from an unknown origin; otherwise NOT_READY with each reason per establishment (NO_POINT, INVALID_POINT, NO_CAR, NON_COMPLIANT, UNKNOWN_ORIGIN). ${LOT}`,
  },
];
