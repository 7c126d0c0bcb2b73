import type { Actor } from '../identity/actor.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { PageInput } from '../shared/pagination.js';
import { readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import type { County } from './county.entity.js';
import { countyPolicy } from './county.policy.js';
import { countySource } from './county.reader.js';

export const COUNTY_SEARCH: SearchSpec = {
  alias: 'c',
  exact: { id: 'uuid', str_ibge_code: 'text', str_name: 'text', str_federative_unit: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_ibge_code'],
};

export class CountyService {
  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<County>> {
    return readVisible(db, actor, countySource, countyPolicy.scope(actor), id, 'county', include);
  }

  /** Ordered by name unless the caller orders otherwise: the whole list arrives in one import, so creation time says nothing. */
  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<County>> {
    const f = filters ?? {};
    const ordered = f.str_order_by === undefined ? { ...f, str_order_by: 'str_name', str_order: f.str_order ?? 'ASC' } : f;
    return readVisiblePage(db, actor, countySource, countyPolicy.scope(actor), COUNTY_SEARCH, ordered, page, options);
  }
}
