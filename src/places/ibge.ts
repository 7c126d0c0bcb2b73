/**
 * IBGE municipality codes: 7 digits, the first two the federative unit's code, the last a check
 * digit over the first six (weights 1,2,1,2,1,2; a two-digit product counts as the sum of its
 * digits; digit = (10 - sum % 10) % 10).
 */

/**
 * Codes IBGE assigned whose last digit does not follow the rule (IBGE's own list, published with
 * the municipality table; exactly the codes of docs/data/municipios.csv that fail it).
 */
export const IBGE_CHECK_DIGIT_EXCEPTIONS: ReadonlySet<string> = new Set([
  '2201919', // Bom Princípio do Piauí/PI
  '2201988', // Brejo do Piauí/PI
  '2202251', // Canavieira/PI
  '2611533', // Quixaba/PE
  '3117836', // Cônego Marinho/MG
  '3152131', // Ponto Chique/MG
  '4305871', // Coronel Barros/RS
  '5203939', // Buriti de Goiás/GO
  '5203962', // Buritinópolis/GO
]);

/** The check digit of a code's first six digits. */
export function ibgeCheckDigit(firstSix: string): number {
  if (!/^\d{6}$/.test(firstSix)) throw new Error('ibgeCheckDigit takes six digits');
  let sum = 0;
  for (let i = 0; i < 6; i++) {
    const product = Number(firstSix[i]) * (i % 2 === 0 ? 1 : 2);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

/** Why a county code is not acceptable, or null when it is. */
export function ibgeCodeProblem(code: string): string | null {
  if (!/^\d{7}$/.test(code)) return 'must be 7 digits';
  if (IBGE_CHECK_DIGIT_EXCEPTIONS.has(code)) return null;
  const expected = ibgeCheckDigit(code.slice(0, 6));
  return Number(code[6]) === expected ? null : `has a bad check digit (expected ${expected})`;
}

export const isIbgeCountyCode = (code: string): boolean => ibgeCodeProblem(code) === null;
