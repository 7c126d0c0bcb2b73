import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils';
import {
  areaProblems,
  carCountyProblem,
  geoPointOf,
  geoPointProblem,
  maskDocument,
  normalizeCar,
  normalizeEstablishmentDocument,
  normalizeInviteMovimentationTypes,
  normalizeZipCode,
  oneOf,
  statusTransitionProblem,
  ESTABLISHMENT_TYPES,
} from '../src/places/establishment.rules.js';

const HEX = '0123456789ABCDEF0123456789ABCDEF';
const CUIABA = { str_ibge_code: '5103403', str_federative_unit: 'MT' };

describe('CAR code', () => {
  test('the printed form with dots and lower case is stored upper case without dots', () => {
    expect(normalizeCar('mt-5103403-0123.4567.89ab.cdef.0123.4567.89ab.cdef')).toBe(`MT-5103403-${HEX}`);
    expect(normalizeCar(` MT-5103403-${HEX} `)).toBe(`MT-5103403-${HEX}`);
  });

  test.each([
    ['UF of three letters', `MTX-5103403-${HEX}`],
    ['IBGE code of six digits', `MT-510340-${HEX}`],
    ['31 hex digits', `MT-5103403-${HEX.slice(1)}`],
    ['33 hex digits', `MT-5103403-${HEX}A`],
    ['a non-hex digit', `MT-5103403-${HEX.slice(1)}G`],
    ['no separators', `MT5103403${HEX}`],
    ['empty', ''],
  ])('%s is malformed', (_why, car) => {
    expect(normalizeCar(car)).toBeNull();
  });

  test('matches its county: UF and IBGE code', () => {
    expect(carCountyProblem(`MT-5103403-${HEX}`, CUIABA)).toBeNull();
    expect(carCountyProblem(`GO-5103403-${HEX}`, CUIABA)).toMatch(/UF GO is not the county's \(MT\)/);
    expect(carCountyProblem(`MT-5101837-${HEX}`, CUIABA)).toMatch(/IBGE code 5101837 is not the county's \(5103403\)/);
    expect(carCountyProblem(`MT-5103403-${HEX}`, null)).toMatch(/needs the county/);
    expect(carCountyProblem('MT-5103403-XYZ', CUIABA)).toMatch(/must be a CAR code/);
  });
});

describe('CEP', () => {
  test.each([
    ['78000-000', '78000000'],
    ['78000000', '78000000'],
    ['78.000-000', '78000000'],
    [' 01310-100 ', '01310100'],
  ])('%s → %s', (given, stored) => {
    expect(normalizeZipCode(given)).toBe(stored);
  });

  test.each(['7800-000', '780000000', '78000-00', 'ABCDE-FGH', '', '78000 000'])('%s is refused', (given) => {
    expect(normalizeZipCode(given)).toBeNull();
  });
});

describe('document', () => {
  test('a CPF and a CNPJ with punctuation are stored as digits', () => {
    const cpf = generateCpf();
    const cnpj = generateCnpj();
    expect(normalizeEstablishmentDocument(`${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`)).toBe(cpf);
    expect(normalizeEstablishmentDocument(`${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`)).toBe(cnpj);
  });

  test('the alphanumeric CNPJ is accepted', () => {
    expect(normalizeEstablishmentDocument('12.ABC.345/01DE-35')).toBe('12ABC34501DE35');
  });

  test.each(['11111111111', '12345678900', '123', '00000000000000', '12ABC34501DE36'])('%s is refused', (doc) => {
    expect(normalizeEstablishmentDocument(doc)).toBeNull();
  });

  test('a CPF is masked keeping its middle digits; a CNPJ is shown', () => {
    expect(maskDocument('12345678909')).toBe('***.456.789-**');
    const cnpj = generateCnpj();
    expect(maskDocument(cnpj)).toBe(cnpj);
    expect(maskDocument(null)).toBeNull();
  });
});

describe('areas', () => {
  test('exploration area up to the area is fine, above it is named', () => {
    expect(areaProblems(100, 100)).toEqual({});
    expect(areaProblems(100, 40.5)).toEqual({});
    expect(areaProblems(null, 40)).toEqual({});
    expect(areaProblems(100, 100.01)).toEqual({ dec_exploration_area: 'must not exceed dec_area' });
  });

  test('negative or non-finite areas are named', () => {
    expect(areaProblems(-1, null)).toEqual({ dec_area: 'must be a number of at least 0' });
    expect(areaProblems(10, -0.5)).toEqual({ dec_exploration_area: 'must be a number of at least 0' });
    expect(areaProblems(Number.NaN, 1)).toEqual({ dec_area: 'must be a number of at least 0' });
    expect(areaProblems(0, 0)).toEqual({});
  });
});

describe('GeoJSON point', () => {
  test('a Point with two coordinates in range is accepted and comes back with exactly two', () => {
    expect(geoPointProblem({ type: 'Point', coordinates: [-56.1, -15.6] })).toBeNull();
    expect(geoPointOf({ num_longitude: -56.1, num_latitude: -15.6 })).toEqual({ type: 'Point', coordinates: [-56.1, -15.6] });
    expect(geoPointOf({ num_longitude: null, num_latitude: null })).toBeNull();
  });

  test.each([
    ['another type', { type: 'LineString', coordinates: [1, 2] }],
    ['three coordinates', { type: 'Point', coordinates: [1, 2, 3] }],
    ['one coordinate', { type: 'Point', coordinates: [1] }],
    ['longitude out of range', { type: 'Point', coordinates: [181, 0] }],
    ['latitude out of range', { type: 'Point', coordinates: [0, -91] }],
  ])('%s is refused', (_why, point) => {
    expect(geoPointProblem(point)).not.toBeNull();
  });
});

describe('enums and status transitions', () => {
  test('types', () => {
    expect(ESTABLISHMENT_TYPES).toEqual(['FARM', 'SLAUGHTERHOUSE', 'FEEDLOT', 'AUCTION', 'EXHIBITION', 'OTHER']);
    expect(oneOf(ESTABLISHMENT_TYPES, 'FARM')).toBe(true);
    expect(oneOf(ESTABLISHMENT_TYPES, 'farm')).toBe(false);
    expect(oneOf(ESTABLISHMENT_TYPES, 3)).toBe(false);
  });

  test('ACTIVE ⇄ SUSPENDED, ACTIVE → INACTIVE, INACTIVE final', () => {
    expect(statusTransitionProblem('ACTIVE', 'SUSPENDED')).toBeNull();
    expect(statusTransitionProblem('SUSPENDED', 'ACTIVE')).toBeNull();
    expect(statusTransitionProblem('ACTIVE', 'INACTIVE')).toBeNull();
    expect(statusTransitionProblem('SUSPENDED', 'INACTIVE')).toEqual(['ACTIVE']);
    expect(statusTransitionProblem('INACTIVE', 'ACTIVE')).toEqual([]);
  });
});

describe('invite movimentation types', () => {
  test('known values are kept once, in INGRESS, EGRESS, BOTH order; null and an empty list restrict nothing (null)', () => {
    expect(normalizeInviteMovimentationTypes(['BOTH', 'INGRESS', 'BOTH'])).toEqual({ types: ['INGRESS', 'BOTH'] });
    expect(normalizeInviteMovimentationTypes(['EGRESS'])).toEqual({ types: ['EGRESS'] });
    expect(normalizeInviteMovimentationTypes(null)).toEqual({ types: null });
    expect(normalizeInviteMovimentationTypes([])).toEqual({ types: null });
  });

  test.each([
    ['a string', 'INGRESS'],
    ['an object', { INGRESS: true }],
    ['a number', 3],
  ])('%s is not an array', (_label, value) => {
    expect(normalizeInviteMovimentationTypes(value)).toEqual({ problem: 'must be an array of INGRESS, EGRESS, BOTH' });
  });

  test('unknown values are named', () => {
    expect(normalizeInviteMovimentationTypes(['INGRESS', 'ingress', 4, null])).toEqual({ problem: 'must hold only INGRESS, EGRESS, BOTH, not "ingress", 4, null' });
  });
});
