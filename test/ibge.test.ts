import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IBGE_CHECK_DIGIT_EXCEPTIONS, ibgeCheckDigit, ibgeCodeProblem, isIbgeCountyCode } from '../src/places/ibge.js';

const SHARED = fileURLToPath(new URL('../docs/data/municipios.csv', import.meta.url));

test('the check digit follows weights 1,2,1,2,1,2 with two-digit products summed by digit', () => {
  expect(ibgeCheckDigit('355030')).toBe(8); // São Paulo 3550308
  expect(ibgeCheckDigit('530010')).toBe(8); // Brasília 5300108
  expect(ibgeCheckDigit('410690')).toBe(2); // Curitiba 4106902
  expect(ibgeCheckDigit('110001')).toBe(5); // Alta Floresta D'Oeste 1100015
  expect(ibgeCheckDigit('000000')).toBe(0); // sum 0 → 0, not 10
  expect(() => ibgeCheckDigit('35503')).toThrow();
});

test('a code passes with its check digit and fails with any other', () => {
  expect(isIbgeCountyCode('3550308')).toBe(true);
  for (let d = 0; d <= 9; d++) if (d !== 8) expect(ibgeCodeProblem(`355030${d}`)).toBe('has a bad check digit (expected 8)');
});

test('malformed codes are refused for their form', () => {
  for (const bad of ['', '355030', '35503080', '355030a', ' 3550308', '3550308 ']) expect(ibgeCodeProblem(bad)).toBe('must be 7 digits');
});

test("IBGE's nine codes with an irregular check digit pass, and do not follow the rule", () => {
  expect([...IBGE_CHECK_DIGIT_EXCEPTIONS].sort()).toEqual(['2201919', '2201988', '2202251', '2611533', '3117836', '3152131', '4305871', '5203939', '5203962']);
  for (const code of IBGE_CHECK_DIGIT_EXCEPTIONS) {
    expect(ibgeCheckDigit(code.slice(0, 6))).not.toBe(Number(code[6]));
    expect(isIbgeCountyCode(code)).toBe(true);
  }
  // The exception is the code, not its prefix: another last digit there is still wrong.
  expect(isIbgeCountyCode('2201910')).toBe(false);
});

test('every code of the municipality list in docs/data passes, and exactly the exceptions break the rule', () => {
  const codes = readFileSync(SHARED, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[0]!);
  expect(codes.length).toBeGreaterThanOrEqual(5570);
  expect(codes.filter((c) => !isIbgeCountyCode(c))).toEqual([]);
  const offRule = codes.filter((c) => ibgeCheckDigit(c.slice(0, 6)) !== Number(c[6])).sort();
  expect(offRule).toEqual([...IBGE_CHECK_DIGIT_EXCEPTIONS].sort());
});
