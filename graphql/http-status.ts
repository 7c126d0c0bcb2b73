import type { ApolloServerPlugin } from '@apollo/server';

/** Failures of the request itself: the document does not parse or validate, or its variables do not coerce. */
const REQUEST_FAILURES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'VALIDATION_FAILED']);

/**
 * GraphQL over HTTP: a client that asks for `application/json` (the legacy media type) SHOULD get
 * 200 for a document that fails to parse or validate or whose variables fail to coerce, the error
 * in `errors`; with `application/graphql-response+json` those are 4xx. Apollo answers 400 to both,
 * so graphql-http's audit warns three times. Here a request whose Accept names `application/json`
 * and not `application/graphql-response+json` gets its 400 as 200; one without an Accept, or with
 * `*\/*`, keeps Apollo's 400 (the status curl users and the tests read). The codes are unchanged.
 */
export const legacyJsonStatus: ApolloServerPlugin = {
  async requestDidStart({ request }) {
    const accept = request.http?.headers.get('accept') ?? '';
    if (!/\bapplication\/json\b/i.test(accept) || /application\/graphql-response\+json/i.test(accept)) return;
    return {
      async willSendResponse({ response }) {
        if (response.http.status !== 400 || response.body.kind !== 'single') return;
        const errors = response.body.singleResult.errors ?? [];
        if (errors.length && errors.every((e) => REQUEST_FAILURES.has(String(e.extensions?.code)))) response.http.status = 200;
      },
    };
  },
};
