import { mustPost, type TestApp } from './app.js';
import { codeAt, freshCodeBlock } from './tags.js';

export const TAGS_BOX_KEYS = ['id', 'str_code', 'str_begin', 'str_finish', 'int_quantity', 'str_status', 'control_unit_id', 'ts_created_at', 'ts_updated_at'].sort();
export const INGRESS_KEYS = [
  'id', 'str_status', 'to_control_unit_id', 'to_control_unit', 'tags_egress_id', 'operator_user_id', 'str_description', 'str_label', 'tags_boxes',
  'ts_evaluated_at', 'ts_unsafe_client_created_at', 'ts_created_at', 'ts_updated_at',
].sort();
export const INGRESS_BOX_KEYS = ['id', 'str_code', 'str_begin', 'str_finish', 'int_quantity', 'str_status', 'str_box_status'].sort();

/** A box as the ingress and egress records list it. */
export interface Box {
  id: string;
  str_code: string;
  str_begin: string;
  str_finish: string;
  int_quantity: number;
  str_status: string;
  str_box_status: string;
}

/** An ingress or egress record: its boxes typed, the rest read as the test needs. */
export interface Rec {
  id: string;
  str_status: string;
  tags_boxes: Box[];
  [field: string]: unknown;
}

/** `n` supplier ranges of `size` codes, each from its own fresh block. */
export const ranges = (n: number, size: number): { str_begin: string; str_finish: string }[] =>
  Array.from({ length: n }, () => {
    const begin = freshCodeBlock();
    return { str_begin: begin, str_finish: codeAt(begin, size - 1) };
  });

/** POST /api/tags-ingress that must answer 201; returns the record. */
export const createIngress = async (app: TestApp, token: string, body: unknown): Promise<Rec> => (await mustPost(app, '/api/tags-ingress', token, body)).body.data;

/** POST /api/tags-ingress/:id/evaluate that must answer 200; `decide` maps each box to ACCEPTED or REJECTED. */
export async function evaluate(app: TestApp, token: string, ingress: { id: string; tags_boxes: { id: string }[] }, decide: (i: number) => string = () => 'ACCEPTED'): Promise<Rec> {
  const body = { tags_boxes: ingress.tags_boxes.map((b, i) => ({ id: b.id, str_status: decide(i) })) };
  return (await mustPost(app, `/api/tags-ingress/${ingress.id}/evaluate`, token, body, 200)).body.data;
}

/** POST /api/tags-egress that must answer 201. */
export const createEgress = async (app: TestApp, token: string, body: unknown): Promise<Rec> => (await mustPost(app, '/api/tags-egress', token, body)).body.data;

/** Tags of a box by status, e.g. { AVAILABLE: 10 }. */
export async function tagStatuses(app: TestApp, boxId: string): Promise<Record<string, number>> {
  const rows = await app.service.orm.em.fork().execute<{ str_status: string; n: number }[]>('select str_status, count(*)::int as n from tag where tags_box_id = ? group by 1', [boxId]);
  return Object.fromEntries(rows.map((r) => [r.str_status, r.n]));
}
