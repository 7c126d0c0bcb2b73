import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput, Paged } from '../shared/pagination.js';
import { findVisible, searchVisible } from '../shared/scoped-query.js';
import type { SearchSpec } from '../shared/search.js';
import { County } from './county.entity.js';
import { countyPolicy } from './county.policy.js';

export const COUNTY_SEARCH: SearchSpec = {
  alias: 'c',
  exact: { id: 'uuid', str_ibge_code: 'text', str_name: 'text', str_federative_unit: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_ibge_code'],
};

export class CountyService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<County> {
    const county = isUuid(id) ? await findVisible(em, County, 'county c', countyPolicy.scope(actor), id) : null;
    if (!county) throw DomainError.notFound('county');
    return county;
  }

  /** Ordered by name unless the caller orders otherwise: the whole list arrives in one import, so creation time says nothing. */
  search(em: EntityManager, actor: Actor, filters: Record<string, unknown> | null | undefined, page: PageInput | null | undefined): Promise<Paged<County>> {
    const f = filters ?? {};
    const ordered = f.str_order_by === undefined ? { ...f, str_order_by: 'str_name', str_order: f.str_order ?? 'ASC' } : f;
    return searchVisible(em, County, 'county c', countyPolicy.scope(actor), COUNTY_SEARCH, ordered, page);
  }
}
