import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

export const tagsReservationRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/tags-reservations',
    tag: 'TagsReservation',
    fields: { list: 'tagsReservations', read: 'tagsReservation', create: 'createTagsReservations' },
    noun: ['tags reservation', 'tags reservations'],
    summaries: {
      index: 'Tags reservations at the control units the caller sees (Tags Reservation Partial Data)',
      create: 'Reserve AVAILABLE tags (Tags Reservation Create: several reservations, all or nothing); answers {data: [Tags Reservation]} in body order',
    },
  }),
  actionRoute('/api/tags-reservations', 'release', {
    operation: 'TagsReservationRelease',
    pick: 'releaseTagsReservation',
    summary: 'Release a reservation: ACTIVE → RELEASED, its still-reserved tags AVAILABLE again',
    tag: 'TagsReservation',
    errors: [400, 403, 404],
  }),
].map((r) => ({ ...r, tag: 'Tags Reservation' }));

export const tagsIdentificationRoutes: Route[] = resourceRoutes({
  path: '/api/tags-identifications',
  tag: 'TagsIdentification',
  fields: { list: 'tagsIdentifications', read: 'tagsIdentification', create: 'createTagsIdentification' },
  noun: ['tags identification', 'tags identifications'],
  summaries: {
    index: 'Tags identifications at the control units the caller sees (Tags Identification Partial Data)',
    create: 'Identify animals at a control unit: each tag (tag_id or str_tag_code) AVAILABLE or RESERVED there becomes APPLIED to a new ACTIVE animal; all or none',
    read: 'One tags identification with the animals it identified',
  },
}).map((r) => ({ ...r, tag: 'Tags Identification' }));
