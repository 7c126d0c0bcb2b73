import { randomInt } from 'node:crypto';
import type { TestApp } from './app.js';
import { member } from './factories.js';
import { renavamCheckDigit } from '../../src/transit/vehicle.rules.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const GEO = { type: 'Point', coordinates: [-47.9, -15.8] };

/** A GeoJSON point near the default one. */
export const at = (lon = -47.9, lat = -15.8) => ({ type: 'Point', coordinates: [lon, lat] });

/** A valid vehicle body with a random plate and RENAVAM (plates and RENAVAMs are unique across the shared database). */
export function vehicleBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const d = () => String(randomInt(10));
  const l = () => LETTERS[randomInt(26)]!;
  const first10 = Array.from({ length: 10 }, d).join('');
  return {
    str_brand: 'Volvo',
    str_color: 'Branco',
    str_fuel: 'DIESEL',
    str_last_registration: '2024',
    str_license_plate: `${l()}${l()}${l()}${d()}${l()}${d()}${d()}`,
    str_model: 'FH 540',
    str_renavam_number: first10 + renavamCheckDigit(first10),
    str_type: 'TRUCK',
    str_year_of_manufacture: '2019',
    ...over,
  };
}

/** A TRANSPORTER user owning a transport company, with one truck registered over HTTP. */
export async function transporterWithTruck(app: TestApp): Promise<{ driver: Awaited<ReturnType<typeof member>>; vehicle: { id: string; str_license_plate: string } }> {
  const driver = await member(app, 'OWNER', undefined, 'TRANSPORTER');
  const body = vehicleBody({ owner_id: driver.user.id });
  const res = await app.call('POST', '/api/vehicles', { token: driver.access, body });
  if (res.status !== 201) throw new Error(`vehicle failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { driver, vehicle: res.body.data };
}

export { GEO };
