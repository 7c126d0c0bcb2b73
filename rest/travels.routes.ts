import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const id = { id: { variable: 'id', uuid: true } };
const ERRORS = [400, 403, 404, 422];

/** A state change or a leg with a JSON body: `POST <base>/:id/<name>`, answering the travel. */
const withBody = (base: string, name: string, r: { operation: string; pick: string; summary: string; optionalBody?: boolean }): Route => ({
  method: 'POST',
  path: `${base}/:id/${name}`,
  auth: true,
  status: 200,
  params: id,
  body: 'input',
  tag: 'Travel',
  errors: ERRORS,
  ...r,
});

/** Travels (DOMAIN.md, Travel): the standard group, start, embarks, stops, finish and cancel. */
const travelRoutesUnder = (prefix: string): Route[] => {
  const base = `${prefix}/travels`;
  return [
    ...resourceRoutes({
      path: base,
      tag: 'Travel',
      fields: { list: 'travels', read: 'travel', create: 'createTravel' },
      noun: ['travel', 'travels'],
      summaries: {
        index: 'Travels from or to the units the caller sees, and those it drives (a trip under way past TRAVEL_MAX_HOURS raises TRANSIT_TIME_EXCEEDED once)',
        search: 'Search travels (record fields, animals_egress_id; str_query: consignee)',
        create: 'Plan a travel from a unit the caller works at (vehicle_id, transporter_user_id, str_consignee_name, from_control_unit_id, to_control_unit_id): PLANNED',
        read: 'One travel (a trip under way past TRAVEL_MAX_HOURS raises TRANSIT_TIME_EXCEEDED once)',
      },
    }),
    withBody(base, 'start', { operation: 'TravelStart', pick: 'startTravel', optionalBody: true, summary: 'PLANNED → IN_PROGRESS: {ts_start_time (default now), geo_coordinates_from (required)}' }),
    withBody(base, 'embarks', { operation: 'TravelAddEmbark', pick: 'addTravelEmbark', summary: 'An animals egress of the origin (OPEN or FINISHED) loaded while PLANNED or IN_PROGRESS: {id, animals_egress_id, ts_embarked_at, geo_location}; one travel at a time' }),
    withBody(base, 'stops', { operation: 'TravelAddStop', pick: 'addTravelStop', summary: 'A stop while IN_PROGRESS: {id, geo_location, ts_arrival, ts_departure}' }),
    withBody(base, 'finish', { operation: 'TravelFinish', pick: 'finishTravel', optionalBody: true, summary: 'IN_PROGRESS → FINISHED: {ts_end_time (default now), geo_coordinates_to}; int_duration in minutes; over TRAVEL_MAX_HOURS raises TRANSIT_TIME_EXCEEDED' }),
    actionRoute(base, 'cancel', { operation: 'TravelCancel', pick: 'cancelTravel', tag: 'Travel', errors: ERRORS, summary: 'PLANNED or IN_PROGRESS → CANCELLED; its egresses may ride another travel' }),
  ];
};

export const travelRoutes: Route[] = [...travelRoutesUnder('/api'), ...travelRoutesUnder('/api/v1')];
