import type { CsvExport } from './csv.js';

/** One REST endpoint, declared: which named GraphQL operation it runs and how HTTP maps onto it. */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Koa path, `:id` for path parameters. */
  path: string;
  /** Whether a bearer token is required. Every route says so explicitly. */
  auth: boolean;
  /** Name of the operation in rest/operations/*.graphql. */
  operation: string;
  status: 200 | 201 | 202 | 204;
  summary: string;
  tag: string;
  /** The JSON body becomes this variable (an input object); unknown keys are dropped and named in a Warning header. */
  body?: string;
  /**
   * Body fields interface.md makes required on this route although its input type leaves them
   * optional (the core checks them, answering 422 naming each): the document marks them required.
   */
  requiredBody?: string[];
  /** The body is optional (interface.md: "optional body"). */
  optionalBody?: boolean;
  /** Path parameters → variables; `uuid: true` answers 400 when the segment is not a uuid. */
  params?: Record<string, { variable: string; uuid?: boolean }>;
  /** int_current_page / int_max_results → this variable. */
  page?: string;
  /** Filters from the body (POST search) or the query string (GET index) → this variable. */
  filter?: { from: 'body' | 'query'; variable: string };
  /** The field of `data` that is the response; a page when it has `data` and `meta`. */
  pick: string;
  paged?: boolean;
  /** Fields of a paged answer carried beside `data` and `meta` (the trace's establishments). */
  extra?: string[];
  /** A paged answer also as CSV (`Accept: text/csv`): the whole answer, streamed from PostgreSQL. */
  csv?: CsvExport;
  /** The body is multipart/form-data: its fields become the `body` variable, its part "file" the request's upload (graphql/context.ts). */
  upload?: boolean;
  /** The answer is the bytes of the attachment the operation picks (its content type, as a download), not JSON. */
  download?: boolean;
  /**
   * The answer is a JSON-LD document (GS1 EPCIS), served as `application/ld+json` by itself, not
   * wrapped in `{data}`: `field` of the picked value (the value itself when absent); `nextPageToken`
   * names the field whose value, when set, becomes a `Link: <…>; rel="next"` header.
   */
  document?: {
    field?: string;
    nextPageToken?: string;
    /** Another document type (the EUDR's `application/geo+json`): served with it, without the GS1 headers. */
    contentType?: string;
    /** What the OpenAPI document says the answer is. */
    description?: string;
    /** A `Link` header sent with every answer (the GeoJSON's verdict), or made from the request's path. */
    link?: string | ((path: string) => string);
    /** The document's text when JSON.stringify's is not the one (GeoJSON's coordinates keep six decimals). */
    text?: (value: unknown) => string;
  };
  /** Query-string parameters of their own (not filters, not pages): their names, and how they become variables (a 422 naming a bad one). */
  queryParameters?: { names: readonly string[]; toVariables: (query: Record<string, unknown>) => Record<string, unknown> };
  /** Document error statuses besides the success one (interface.md lists them for some groups). */
  errors?: number[];
}
