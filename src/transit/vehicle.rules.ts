/**
 * Brazilian vehicle identifiers. Plates come in the Mercosul form `AAA9A99` or the old `AAA9999`;
 * the old one maps onto Mercosul by turning its 5th character (a digit) into a letter, 0-9 → A-J,
 * which is how DENATRAN converted the fleet. Both are stored and compared in the Mercosul form, so
 * ABC1234 and ABC1C34 are one plate.
 */
const MERCOSUL = /^[A-Z]{3}\d[A-Z]\d{2}$/;
const OLD = /^[A-Z]{3}\d{4}$/;

/** The Mercosul form of a plate given in either form (hyphen, spaces and lower case accepted); null when it is neither. */
export function normalizePlate(value: string): string | null {
  const plate = value.replace(/[\s-]/g, '').toUpperCase();
  if (MERCOSUL.test(plate)) return plate;
  if (OLD.test(plate)) return plate.slice(0, 4) + String.fromCharCode(65 + Number(plate[4])) + plate.slice(5);
  return null;
}

const RENAVAM_WEIGHTS = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3];

/** The check digit of a RENAVAM's first ten digits: reversed, weighted 2..9,2,3, (sum × 10) mod 11, 10 → 0. */
export function renavamCheckDigit(first10: string): number {
  const sum = [...first10].reverse().reduce((acc, d, i) => acc + Number(d) * RENAVAM_WEIGHTS[i]!, 0);
  const digit = (sum * 10) % 11;
  return digit === 10 ? 0 : digit;
}

/** A RENAVAM as its 11 digits (older 9-digit numbers left-padded with zeros; dots, hyphens, spaces dropped); null when malformed or its check digit fails. */
export function normalizeRenavam(value: string): string | null {
  const digits = value.replace(/[\s.-]/g, '');
  if (!/^\d{9,11}$/.test(digits)) return null;
  const renavam = digits.padStart(11, '0');
  return renavamCheckDigit(renavam.slice(0, 10)) === Number(renavam[10]) ? renavam : null;
}
