import { randomInt, randomUUID } from 'node:crypto';
import { madeBeforeAll, type TestApp } from './app.js';
import { ibgeCheckDigit } from '../../src/places/ibge.js';

export const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const HEX32 = '0123456789ABCDEF0123456789ABCDEF';

export interface TestCounty {
  id: string;
  str_ibge_code: string;
  str_name: string;
  str_federative_unit: string;
}

/**
 * A county of its own in a made-up federative unit (Z* sigla, codes starting with 0: no real UF or
 * code, and none the county import tests pick), so UF-scoped reads see only what a test made.
 */
export async function makeCounty(app: TestApp, uf?: string): Promise<TestCounty> {
  const em = app.service.orm.em.fork();
  for (;;) {
    const six = `0${String(randomInt(100000)).padStart(5, '0')}`;
    const code = `${six}${ibgeCheckDigit(six)}`;
    // ZA..ZY at random: ZZ is left to tests that need a federative unit no other county shares.
    const sigla = uf ?? `Z${String.fromCharCode(65 + randomInt(25))}`;
    const name = `Município ${randomUUID().slice(0, 6)}`;
    const rows = await em.execute<TestCounty[]>(
      `insert into county (id, str_ibge_code, str_name, str_federative_unit) values (?, ?, ?, ?) on conflict do nothing returning id, str_ibge_code, str_name, str_federative_unit`,
      [randomUUID(), code, name, sigla],
    );
    if (rows[0]) return rows[0];
  }
}

/** A valid CAR code for the county. */
export const carOf = (county: TestCounty, hex = HEX32): string => `${county.str_federative_unit}-${county.str_ibge_code}-${hex}`;

/** A unique control unit code across the shared database. */
export const unitCode = (): string => `CU-${randomUUID().slice(0, 13).toUpperCase()}`;

/** A county of its own (makeCounty) made before the file's tests, once `app` is up; with `unlike`, in another federative unit than that one. */
export function useCounty(app: TestApp, unlike?: TestCounty): TestCounty {
  return madeBeforeAll('the county', async () => {
    let county: TestCounty;
    do county = await makeCounty(app);
    while (county.str_federative_unit === unlike?.str_federative_unit);
    return county;
  });
}
