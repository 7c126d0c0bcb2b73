import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import type { PageInput } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { tagSource, tagsBoxSource } from './tag.reader.js';
import type { SearchSpec } from '../shared/search.js';
import { Tag } from './tag.entity.js';
import type { TagsBox } from './tags-box.entity.js';
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
    return mustFindVisible(em, Tag, 'tag_with_place t', tagsPolicy.unitScope(actor, 't.last_control_unit_id', 't'), id, 'tag');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Tag>> {
    return readVisible(db, actor, tagSource, tagsPolicy.unitScope(actor, 't.last_control_unit_id', 't'), id, 'tag', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Tag>> {
    return readVisiblePage(db, actor, tagSource, tagsPolicy.unitScope(actor, 't.last_control_unit_id', 't'), TAG_SEARCH, filters, page, options);
  }

  readBox(db: Db, actor: Actor, id: string): Promise<Read<TagsBox>> {
    return readVisible(db, actor, tagsBoxSource, tagsPolicy.unitScope(actor, 'tb.control_unit_id', 'tb'), id, 'tags box');
  }

  pageBoxes(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsBox>> {
    return readVisiblePage(db, actor, tagsBoxSource, tagsPolicy.unitScope(actor, 'tb.control_unit_id', 'tb'), TAGS_BOX_SEARCH, filters, page, options);
  }
}
