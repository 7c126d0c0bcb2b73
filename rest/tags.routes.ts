import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

/** Tags and boxes (reads only: tag operations write them), tags ingress and tags egress. */
export const tagsTransferRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/tags',
    tag: 'Tag',
    fields: { list: 'tags', read: 'tag' },
    noun: ['tag', 'tags'],
    summaries: {
      index: 'Tags at the control units the caller sees (Tag Partial Data)',
      search: 'Search tags: any scalar field, str_begin/str_finish (a range of codes), ts_*_from/_to, str_query over str_code',
    },
  }),
  ...resourceRoutes({
    path: '/api/tags-boxes',
    tag: 'TagsBox',
    fields: { list: 'tagsBoxes', read: 'tagsBox' },
    noun: ['tags box', 'tags boxes'],
    summaries: { search: 'Search boxes: any scalar field, str_tag_code (the box holding a code), ts_*_from/_to, str_query over code and range' },
  }),
  ...resourceRoutes({
    path: '/api/tags-ingress',
    tag: 'TagsIngress',
    fields: { list: 'tagsIngresses', read: 'tagsIngress', create: 'createTagsIngress' },
    noun: ['tags ingress', 'tags ingresses'],
    summaries: {
      create: 'Boxes arriving at a unit: from a supplier (tags_boxes, or str_begin + str_finish + int_box_size) or a SENT tags egress (tags_egress_id); PENDING until evaluated',
    },
  }),
  {
    ...actionRoute('/api/tags-ingress', 'evaluate', {
      operation: 'TagsIngressEvaluate',
      pick: 'evaluateTagsIngress',
      summary: 'Tags Ingress Evaluate: every box ACCEPTED or REJECTED at once; PENDING → EVALUATED | PARTIALLY_ACCEPTED',
      tag: 'TagsIngress',
      errors: [400, 403, 404],
    }),
    body: 'input',
  },
  ...resourceRoutes({
    path: '/api/tags-egress',
    tag: 'TagsEgress',
    fields: { list: 'tagsEgresses', read: 'tagsEgress', create: 'createTagsEgress' },
    noun: ['tags egress', 'tags egresses'],
    summaries: {
      index: 'Tags egresses from or to the units the caller sees (Tags Egress Partial Data)',
      search: 'Search tags egresses (Tags Egress Partial Data); str_query matches the units\' codes',
      create: 'Send boxes IN_STOCK or OPENED at the origin to another unit (Tags Egress Create): their AVAILABLE tags go IN_TRANSIT',
    },
  }),
  actionRoute('/api/tags-egress', 'cancel', {
    operation: 'TagsEgressCancel',
    pick: 'cancelTagsEgress',
    summary: 'Cancel a tags egress: SENT → CANCELLED before the destination takes it in; boxes and tags back as they were',
    tag: 'TagsEgress',
    errors: [400, 403, 404],
  }),
];
