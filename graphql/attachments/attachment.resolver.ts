import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, Info, Mutation, Query, Resolver } from 'type-graphql';
import type { Attachment as AttachmentRow } from '../../src/attachments/attachment.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { requireActor, type Context } from '../context.js';
import { pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';
import { ATTACHMENT_SEARCH } from '../../src/attachments/attachment.reader.js';
import { Attachment, AttachmentCreateInput, AttachmentPage } from './attachment.type.js';

@Resolver(() => Attachment)
export class AttachmentResolver {
  @Query(() => Attachment)
  async attachment(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<AttachmentRow> {
    return ctx.loaders.take(await ctx.core.attachments.read(ctx.db, requireActor(ctx), id));
  }

  @Query(() => AttachmentPage, { description: 'Attachments the caller sees; str_record_type + record_id list one record’s (404 when the caller does not see it); filters: the record fields, ts_* ranges, str_query on the name' })
  async attachments(
    @Args(searchArgsOf('Attachment', ATTACHMENT_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<AttachmentRow>> {
    return ctx.loaders.takePage(await ctx.core.attachments.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, {})));
  }

  @Mutation(() => Attachment, { description: 'Link the uploaded file to a record the caller may change. The file comes only through REST: POST /api/attachments, multipart/form-data' })
  createAttachment(@Arg('input', () => AttachmentCreateInput) input: AttachmentCreateInput, @Ctx() ctx: Context): Promise<AttachmentRow> {
    return ctx.core.attachments.create(ctx.em, requireActor(ctx), input, ctx.upload ?? null);
  }

  @Mutation(() => Boolean, { description: 'Its author deletes an attachment (its bytes go with it)' })
  deleteAttachment(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    return ctx.core.attachments.remove(ctx.em, requireActor(ctx), id);
  }
}
