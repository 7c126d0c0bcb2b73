import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type Koa from 'koa';

/**
 * Apollo Server on Koa: @as-integrations/koa's handler, less its `url.parse` of every request's URL
 * (3-4% of a point read's CPU in the service, profiled under bench:peers' load) for the query
 * string, which is all Apollo reads of the URL. The rest as the integration does it: the request's
 * headers, method and parsed body to Apollo, its status, headers and body (whole or chunked) to Koa.
 */
export function apolloKoa<C extends BaseContext>(server: ApolloServer<C>, context: (ctx: Koa.Context) => Promise<C>): (ctx: Koa.Context) => Promise<void> {
  server.assertStarted('apolloKoa()');
  return async (ctx) => {
    const body = (ctx.request as { body?: unknown }).body;
    if (ctx.method === 'POST' && !body) {
      ctx.status = 500;
      ctx.body = '`ctx.request.body` is not set: the JSON body parser must run before Apollo Server.';
      return;
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(ctx.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = ctx.url;
    const at = url.indexOf('?');
    const hash = at === -1 ? -1 : url.indexOf('#', at);
    const search = at === -1 ? '' : hash === -1 ? url.slice(at) : url.slice(at, hash);
    const answer = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: ctx.method.toUpperCase(), headers, search, body },
      context: () => context(ctx),
    });
    // Apollo's headers first: with its Content-Type set, Koa's body setter guesses none (a MIME lookup per request).
    for (const [key, value] of answer.headers) ctx.set(key, value);
    if (answer.body.kind === 'complete') ctx.body = answer.body.string;
    else {
      const chunks = answer.body.asyncIterator;
      ctx.body = Readable.from(
        (async function* () {
          for await (const chunk of chunks) {
            yield chunk;
            const flush = (ctx.body as { flush?: () => void }).flush;
            if (typeof flush === 'function') flush.call(ctx.body);
          }
        })(),
      );
    }
    if (answer.status !== undefined) ctx.status = answer.status;
  };
}
