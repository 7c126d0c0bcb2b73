import { normalizePlate, normalizeRenavam, renavamCheckDigit } from '../src/transit/vehicle.rules.js';

describe('normalizePlate', () => {
  test.each([
    ['ABC1C34', 'ABC1C34'],
    ['abc1c34', 'ABC1C34'],
    ['ABC-1C34', 'ABC1C34'],
    [' abc 1c34 ', 'ABC1C34'],
  ])('a Mercosul plate %p stays %p', (input, expected) => expect(normalizePlate(input)).toBe(expected));

  test.each([
    ['ABC1034', 'ABC1A34'],
    ['ABC1234', 'ABC1C34'],
    ['abc-1934', 'ABC1J34'],
    ['XYZ 9999', 'XYZ9J99'],
    ['QRS5500', 'QRS5F00'],
  ])('an old plate %p becomes %p (5th digit 0-9 → A-J)', (input, expected) => expect(normalizePlate(input)).toBe(expected));

  test.each(['', 'AB1234', 'ABCD123', 'ABC12345', '1BC1234', 'ABC1CC4', 'ABCA234', 'ÁBC1234', 'ABC_1234', 'ABC.1234'])('%p is not a plate', (input) => expect(normalizePlate(input)).toBeNull());
});

describe('RENAVAM', () => {
  test.each(['00639884962', '35298206229', '86769597308', '01234567897', '98765432103', '26827649960'])('%p is valid and kept as is', (r) => expect(normalizeRenavam(r)).toBe(r));

  test('a 9-digit number is left-padded with zeros before its check digit is checked', () => {
    expect(normalizeRenavam('639884962')).toBe('00639884962');
    expect(normalizeRenavam('639884961')).toBeNull();
  });

  test('12345678900 is valid: 1234567890 reversed and weighted sums to 231, 2310 mod 11 = 0', () => expect(normalizeRenavam('12345678900')).toBe('12345678900'));

  test('dots, hyphens and spaces are dropped', () => expect(normalizeRenavam('3529820622-9')).toBe('35298206229'));

  test.each(['12345678909', '12345678901', '00639884963', '35298206228'])('%p has a wrong check digit', (r) => expect(normalizeRenavam(r)).toBeNull());

  test.each(['', '1234567', '123456789012', '3529820622a', 'abcdefghijk'])('%p is malformed', (r) => expect(normalizeRenavam(r)).toBeNull());

  test('check digit: (sum × 10) mod 11 of the reversed digits weighted 2..9,2,3, and 10 becomes 0', () => {
    // 0063988496 reversed: 6,9,4,8,8,9,3,6,0,0 → 12+27+16+40+48+63+24+54+0+0 = 284; 2840 mod 11 = 2
    expect(renavamCheckDigit('0063988496')).toBe(2);
    // Every 10-digit prefix has exactly one valid 11th digit.
    for (const prefix of ['0000000000', '1111111111', '9876543210', '5555512345']) {
      const valid = [...'0123456789'].filter((d) => normalizeRenavam(prefix + d) !== null);
      expect(valid).toEqual([String(renavamCheckDigit(prefix))]);
    }
  });

  test('a sum whose (sum × 10) mod 11 is 10 gives check digit 0', () => {
    // Find a prefix hitting the 10 case and check its digit is 0 and that 10 is never produced.
    let found = false;
    for (let n = 0; n < 200 && !found; n++) {
      const prefix = String(n).padStart(10, '0');
      const sum = [...prefix].reverse().reduce((a, d, i) => a + Number(d) * [2, 3, 4, 5, 6, 7, 8, 9, 2, 3][i]!, 0);
      if ((sum * 10) % 11 === 10) {
        found = true;
        expect(renavamCheckDigit(prefix)).toBe(0);
        expect(normalizeRenavam(prefix + '0')).toBe(prefix + '0');
      }
    }
    expect(found).toBe(true);
  });
});
