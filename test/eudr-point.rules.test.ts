import { coordinateText, decimalsOf, eudrPointProblem } from '../src/eudr/eudr-point.rules.js';

describe('the EUDR point rule', () => {
  test('decimals are counted on the number as JSON writes it, exponent form included', () => {
    expect([decimalsOf(-47.929722), decimalsOf(-47.9), decimalsOf(12), decimalsOf(1e-7), decimalsOf(1.5e-7)]).toEqual([6, 1, 0, 7, 8]);
  });

  test('six decimals inside Brazil pass; fewer, abroad or swapped are refused', () => {
    expect(eudrPointProblem([-47.929722, -15.779722])).toBeNull();
    expect(eudrPointProblem([-32.423151, -3.854329])).toBeNull(); // Fernando de Noronha
    expect(eudrPointProblem([-47.92972, -15.779722])).toContain('6 decimals');
    expect(eudrPointProblem([-58.443832, -34.603722])).toContain('inside Brazil'); // Buenos Aires
    expect(eudrPointProblem([-15.779722, -47.929722])).toContain('check the order');
  });

  test('a coordinate is written with at least six decimals, never fewer than it has', () => {
    expect([-53.5, -54.9876543, 0.0000001, -14.25, 12].map(coordinateText)).toEqual(['-53.500000', '-54.9876543', '0.0000001', '-14.250000', '12.000000']);
  });
});
