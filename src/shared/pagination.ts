import { DomainError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface PageInput {
  int_current_page?: number | null;
  int_max_results?: number | null;
}

export interface Page {
  page: number;
  size: number;
  offset: number;
}

export interface PaginationMeta {
  int_current_page: number;
  int_max_results: number;
  int_total_results: number;
  int_total_pages: number;
}

export interface Paged<T> {
  data: T[];
  meta: PaginationMeta;
}

/** `max`: a larger page where a list allows it (the trace's export). */
export function toPage(input: PageInput | null | undefined, max = MAX_PAGE_SIZE): Page {
  const page = input?.int_current_page ?? 1;
  const size = input?.int_max_results ?? DEFAULT_PAGE_SIZE;
  const fields: Record<string, string[]> = {};
  if (!Number.isInteger(page) || page < 1) fields.int_current_page = ['must be an integer of at least 1'];
  if (!Number.isInteger(size) || size < 1 || size > max) fields.int_max_results = [`must be an integer from 1 to ${max}`];
  if (Object.keys(fields).length) throw DomainError.validation(fields);
  return { page, size, offset: (page - 1) * size };
}

export function paged<T>(data: T[], total: number, page: Page): Paged<T> {
  return {
    data,
    meta: {
      int_current_page: page.page,
      int_max_results: page.size,
      int_total_results: total,
      int_total_pages: Math.ceil(total / page.size),
    },
  };
}
