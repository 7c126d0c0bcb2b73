import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput, Paged } from '../shared/pagination.js';
import { findVisible, searchVisible } from '../shared/scoped-query.js';
import type { SearchSpec } from '../shared/search.js';
import { Tag } from './tag.entity.js';
import { TagsBox } from './tags-box.entity.js';
import { tagsPolicy } from './tags.policy.js';

export const TAG_SEARCH: SearchSpec = {
  alias: 't',
  exact: {
    id: 'uuid',
    str_code: 'text',
    str_status: 'text',
    bl_external_tag: 'boolean',
    last_control_unit_id: 'uuid',
    tags_box_id: 'uuid',
    tags_reservation_id: 'uuid',
    animal_id: 'uuid',
    str_writeoff_reason: 'text',
  },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_writeoff_at'],
  query: ['str_code'],
  // Codes have one width, so text order is number order: a range of codes is two comparisons on the code index.
  computed: {
    str_begin: { kind: 'text', sql: 't.str_code >= ?' },
    str_finish: { kind: 'text', sql: 't.str_code <= ?' },
  },
};

export const TAGS_BOX_SEARCH: SearchSpec = {
  alias: 'tb',
  exact: { id: 'uuid', str_code: 'text', str_begin: 'text', str_finish: 'text', int_quantity: 'integer', str_status: 'text', control_unit_id: 'uuid' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_code', 'str_begin', 'str_finish'],
  computed: {
    /** The box holding this code. */
    str_tag_code: { kind: 'text', sql: '? between tb.str_begin and tb.str_finish' },
  },
};

/**
 * Tags and boxes are read where they are: a caller sees those at the control units it sees
 * (tagsPolicy.unitScope). They are written only by tag operations (ingress, egress, identification...).
 */
export class TagService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<Tag> {
    const tag = isUuid(id) ? await findVisible(em, Tag, 'tag t', tagsPolicy.unitScope(actor, 't.last_control_unit_id'), id) : null;
    if (!tag) throw DomainError.notFound('tag');
    return tag;
  }

  search(em: EntityManager, actor: Actor, filters: Record<string, unknown> | null | undefined, page: PageInput | null | undefined): Promise<Paged<Tag>> {
    return searchVisible(em, Tag, 'tag t', tagsPolicy.unitScope(actor, 't.last_control_unit_id'), TAG_SEARCH, filters, page);
  }

  async getBox(em: EntityManager, actor: Actor, id: string): Promise<TagsBox> {
    const box = isUuid(id) ? await findVisible(em, TagsBox, 'tags_box tb', tagsPolicy.unitScope(actor, 'tb.control_unit_id'), id) : null;
    if (!box) throw DomainError.notFound('tags box');
    return box;
  }

  searchBoxes(em: EntityManager, actor: Actor, filters: Record<string, unknown> | null | undefined, page: PageInput | null | undefined): Promise<Paged<TagsBox>> {
    return searchVisible(em, TagsBox, 'tags_box tb', tagsPolicy.unitScope(actor, 'tb.control_unit_id'), TAGS_BOX_SEARCH, filters, page);
  }
}
