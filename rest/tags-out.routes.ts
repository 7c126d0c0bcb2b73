import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

/** Tags leaving service: replacements (applied tag → REPLACED, a new one on the same animal) and writeoffs. */
export const tagsOutRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/tags-replacements',
    tag: 'TagsReplacement',
    fields: { list: 'tagsReplacements', read: 'tagsReplacement', create: 'createTagsReplacement' },
    noun: ['tags replacement', 'tags replacements'],
    summaries: {
      index: 'Tags replacements at units the caller sees',
      search: 'Search tags replacements (record fields, establishment_id, animal_id, tag_id, str_tag_code, str_reason)',
      create: 'Replace applied tags of ACTIVE animals at a unit by AVAILABLE or RESERVED tags of that unit, all or nothing (owners, managers, operators)',
    },
  }),
  ...resourceRoutes({
    path: '/api/tags-writeoffs',
    tag: 'TagsWriteoff',
    fields: { list: 'tagsWriteoffs', read: 'tagsWriteoff', create: 'createTagsWriteoff' },
    noun: ['tags writeoff', 'tags writeoffs'],
    summaries: {
      index: 'Tags writeoffs at units the caller sees (Tags Writeoff Partial Data)',
      search: 'Search tags writeoffs (record fields, establishment_id, tag_id, str_tag_code, animal_id)',
      create: 'Write off tags of a unit, all or nothing: unused tags for DAMAGED, DEFECTIVE, LOST_UNUSED, OTHER; applied tags for ANIMAL_DEATH, ANIMAL_SLAUGHTER, ANIMAL_EXPORT, which end their animals',
    },
  }),
];
