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

  test("inside Brazil is its land border (Natural Earth 1:10m) within 10 km, islands included; Paraguay and the open Atlantic are not", () => {
    const inside = {
      'Fernando de Noronha': [-32.423151, -3.854329],
      Trindade: [-29.325012, -20.525013],
      'Martim Vaz': [-28.850013, -20.466712],
      'São Pedro e São Paulo': [-29.345812, 0.916712],
      'Chuí, on the Uruguayan border': [-53.372301, -33.741101],
      'Foz do Iguaçu, on the Paraguayan border': [-54.585401, -25.547801],
      'Ponta Porã, on the Paraguayan border': [-55.725801, -22.536101],
      'the beach at Copacabana': [-43.178912, -22.971234],
    };
    for (const [place, point] of Object.entries(inside)) expect([place, eudrPointProblem(point)]).toEqual([place, null]);
    for (const point of [
      [-57.575926, -25.263739], // Asunción, 260 km into Paraguay: inside the bounding box
      [-31.512347, -12.874561], // the Atlantic, 580 km off Bahia
      [-58.183432, -26.184911], // Formosa, Argentina
      [-63.181712, -17.783312], // Santa Cruz de la Sierra, Bolivia
    ]) expect(eudrPointProblem(point)).toContain('more than 10 km from its land');
  });

  test('a coordinate is written with at least six decimals, never fewer than it has', () => {
    expect([-53.5, -54.9876543, 0.0000001, -14.25, 12].map(coordinateText)).toEqual(['-53.500000', '-54.9876543', '0.0000001', '-14.250000', '12.000000']);
  });
});
