import { read, type Include, type ReadResult, type Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Page } from '../shared/pagination.js';
import type { Actor } from './actor.js';
import type { Membership } from './membership.entity.js';
import { userSource } from './user.reader.js';

export const organizationSource: Source = { table: 'organization', alias: 'o', relations: {} };

export const membershipSource: Source = {
  table: 'membership',
  alias: 'm',
  relations: {
    user: { loader: 'userById', target: () => userSource, fk: 'user_id' },
  },
};

/** A page of an organization's memberships (the caller already sees the organization), newest first, with the relations the query selects: one statement. */
export function membersOf(db: Db, actor: Actor, organizationId: string, page: Page, options: { count: boolean; include?: Include }): Promise<ReadResult<Membership>> {
  return read<Membership>(db, actor, membershipSource, {
    where: { sql: 'm.organization_id = ?', params: [organizationId] },
    orderBy: (a) => `${a}.ts_created_at desc, ${a}.id desc`,
    limit: page.size,
    offset: page.offset,
    count: options.count,
    include: options.include,
  });
}
