import { readFileSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parse } from 'csv-parse/sync';
import { appendEvents, type EventInput } from '../shared/events.js';
import { newId } from '../shared/ids.js';
import { ibgeCodeProblem } from './ibge.js';

/** One municipality as read from a source, with where it came from for messages. */
export interface CountyRow {
  where: string;
  str_ibge_code: string;
  str_name: string;
  str_federative_unit: string;
}

export interface ImportReport {
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

/** The source did not hold: every problem found, each naming its line (or JSON item). Nothing was written. */
export class CountyImportError extends Error {
  constructor(readonly problems: string[]) {
    super(`county import refused, nothing written:\n  ${problems.slice(0, 50).join('\n  ')}${problems.length > 50 ? `\n  ... and ${problems.length - 50} more` : ''}`);
  }
}

export const BATCH_SIZE = 1000;

type CsvRecord = Record<string, string>;

function readCsv(text: string, file: string, required: string[]): { line: number; record: CsvRecord }[] {
  let rows: { info: { lines: number }; record: CsvRecord }[];
  try {
    rows = parse(text, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), bom: true, skip_empty_lines: true, trim: true, info: true }) as never;
  } catch (err) {
    throw new CountyImportError([`${file}: not a readable CSV (${(err as Error).message})`]);
  }
  const header = rows[0] ? Object.keys(rows[0].record) : [];
  const missing = rows.length ? required.filter((c) => !header.includes(c)) : [];
  if (missing.length) throw new CountyImportError([`${file}: missing column(s) ${missing.join(', ')} (expected a header with ${required.join(', ')})`]);
  return rows.map((r) => ({ line: r.info.lines, record: r.record }));
}

/** municipios.csv (codigo_ibge, nome, codigo_uf, ...) and estados.csv (codigo_uf, uf, ...). */
export function countiesFromCsv(municipios: string, estados: string, names = { municipios: 'municipios.csv', estados: 'estados.csv' }): CountyRow[] {
  const problems: string[] = [];
  const ufByCode = new Map<string, string>();
  for (const { line, record } of readCsv(estados, names.estados, ['codigo_uf', 'uf'])) {
    const uf = (record.uf ?? '').toUpperCase();
    if (!/^\d{2}$/.test(record.codigo_uf ?? '')) problems.push(`${names.estados} line ${line}: codigo_uf must be 2 digits`);
    else if (!/^[A-Z]{2}$/.test(uf)) problems.push(`${names.estados} line ${line}: uf must be 2 letters`);
    else ufByCode.set(record.codigo_uf!, uf);
  }
  const rows: CountyRow[] = [];
  for (const { line, record } of readCsv(municipios, names.municipios, ['codigo_ibge', 'nome', 'codigo_uf'])) {
    const where = `${names.municipios} line ${line}`;
    const code = record.codigo_ibge ?? '';
    const uf = ufByCode.get(record.codigo_uf ?? '');
    if (!uf) problems.push(`${where}: codigo_uf ${JSON.stringify(record.codigo_uf)} is not in ${names.estados}`);
    else if (/^\d{7}$/.test(code) && !code.startsWith(record.codigo_uf!)) problems.push(`${where}: codigo_ibge ${code} does not start with its codigo_uf ${record.codigo_uf}`);
    rows.push({ where, str_ibge_code: code, str_name: record.nome ?? '', str_federative_unit: uf ?? '' });
  }
  if (problems.length) throw new CountyImportError([...problems, ...validate(rows)]);
  return rows;
}

interface IbgeUf {
  id?: number | string;
  sigla?: string;
}
interface IbgeMunicipio {
  id?: number | string;
  nome?: string;
  microrregiao?: { mesorregiao?: { UF?: IbgeUf } } | null;
  'regiao-imediata'?: { 'regiao-intermediaria'?: { UF?: IbgeUf } } | null;
}

/** The JSON of IBGE's localidades API, /api/v1/localidades/municipios (the UF through the micro-region, or the immediate region where that is null). */
export function countiesFromIbgeJson(text: string, file = 'municipios.json'): CountyRow[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CountyImportError([`${file}: not valid JSON (${(err as Error).message})`]);
  }
  if (!Array.isArray(data)) throw new CountyImportError([`${file}: expected an array of municipalities`]);
  const problems: string[] = [];
  const rows = (data as IbgeMunicipio[]).map((m, i) => {
    const where = `${file} item ${i + 1}`;
    const uf = m?.microrregiao?.mesorregiao?.UF ?? m?.['regiao-imediata']?.['regiao-intermediaria']?.UF;
    const code = m?.id === undefined || m?.id === null ? '' : String(m.id);
    if (!uf?.sigla) problems.push(`${where}: no UF (microrregiao.mesorregiao.UF or regiao-imediata.regiao-intermediaria.UF)`);
    else if (uf.id !== undefined && /^\d{7}$/.test(code) && !code.startsWith(String(uf.id))) problems.push(`${where}: id ${code} does not start with its UF's id ${uf.id}`);
    return { where, str_ibge_code: code, str_name: typeof m?.nome === 'string' ? m.nome.trim() : '', str_federative_unit: (uf?.sigla ?? '').toUpperCase() };
  });
  if (problems.length) throw new CountyImportError([...problems, ...validate(rows)]);
  return rows;
}

/** Each row's own checks and duplicate codes across the source. */
function validate(rows: CountyRow[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const r of rows) {
    const codeProblem = ibgeCodeProblem(r.str_ibge_code);
    if (codeProblem) problems.push(`${r.where}: code ${JSON.stringify(r.str_ibge_code)} ${codeProblem}`);
    if (!r.str_name) problems.push(`${r.where}: name is empty`);
    if (r.str_federative_unit && !/^[A-Z]{2}$/.test(r.str_federative_unit)) problems.push(`${r.where}: UF ${JSON.stringify(r.str_federative_unit)} must be 2 letters`);
    const first = seen.get(r.str_ibge_code);
    if (first) problems.push(`${r.where}: code ${r.str_ibge_code} already given at ${first}`);
    else seen.set(r.str_ibge_code, r.where);
  }
  return problems;
}

/** Reads `<municipios.csv> <estados.csv>` or one IBGE JSON file. */
export function readCountySource(paths: string[]): CountyRow[] {
  const [first, second] = paths;
  if (!first) throw new CountyImportError(['usage: counties:import <municipios.csv> <estados.csv> | <municipios.json>']);
  const text = readFileSync(first, 'utf8');
  if (first.toLowerCase().endsWith('.json') || /^\s*\[/.test(text)) return countiesFromIbgeJson(text, first);
  if (!second) throw new CountyImportError([`${first} is a CSV: the estados CSV (codigo_uf, uf) must follow it`]);
  return countiesFromCsv(text, readFileSync(second, 'utf8'), { municipios: first, estados: second });
}

/**
 * Upserts the rows, all or nothing: one statement per batch, inserting new codes and updating only
 * rows whose name or UF changed, so a second run writes nothing. Each change is an event.
 */
export async function importCounties(em: EntityManager, rows: CountyRow[]): Promise<ImportReport> {
  const problems = validate(rows);
  if (problems.length) throw new CountyImportError(problems);
  const report: ImportReport = { read: rows.length, inserted: 0, updated: 0, unchanged: 0 };
  await em.transactional(async (tx) => {
    for (let start = 0; start < rows.length; start += BATCH_SIZE) {
      const batch = rows.slice(start, start + BATCH_SIZE);
      const params = batch.flatMap((r) => [newId(), r.str_ibge_code, r.str_name, r.str_federative_unit]);
      // xmax = 0 only on a freshly inserted tuple; rows the WHERE kept unchanged return nothing.
      const changed = await tx.execute<{ id: string; str_ibge_code: string; str_name: string; str_federative_unit: string; inserted: boolean }[]>(
        `insert into county as c (id, str_ibge_code, str_name, str_federative_unit)
         values ${batch.map(() => '(?, ?, ?, ?)').join(', ')}
         on conflict (str_ibge_code) do update
           set str_name = excluded.str_name, str_federative_unit = excluded.str_federative_unit, ts_updated_at = now()
           where (c.str_name, c.str_federative_unit) is distinct from (excluded.str_name, excluded.str_federative_unit)
         returning c.id, c.str_ibge_code, c.str_name, c.str_federative_unit, (c.xmax = 0) as inserted`,
        params,
      );
      const events: EventInput[] = changed.map((r) => ({
        type: r.inserted ? 'COUNTY_CREATED' : 'COUNTY_UPDATED',
        recordType: 'County',
        recordId: r.id,
        actorId: null,
        payload: { str_ibge_code: r.str_ibge_code, str_name: r.str_name, str_federative_unit: r.str_federative_unit },
      }));
      await appendEvents(tx, events);
      const inserted = changed.filter((r) => r.inserted).length;
      report.inserted += inserted;
      report.updated += changed.length - inserted;
      report.unchanged += batch.length - changed.length;
    }
  });
  return report;
}

/** The command: read, check, upsert. */
export async function importCountyFiles(em: EntityManager, paths: string[]): Promise<ImportReport> {
  return importCounties(em, readCountySource(paths));
}
