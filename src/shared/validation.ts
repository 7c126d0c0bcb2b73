import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import { DomainError, type FieldErrors } from './errors.js';

/** Collects every field problem of one input, then throws them together. */
export class Checker {
  private readonly errors: FieldErrors = {};

  add(field: string, message: string): this {
    (this.errors[field] ??= []).push(message);
    return this;
  }

  required(field: string, value: unknown): this {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) this.add(field, 'is required');
    return this;
  }

  when(condition: boolean, field: string, message: string): this {
    if (condition) this.add(field, message);
    return this;
  }

  get ok(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(): void {
    if (!this.ok) throw DomainError.validation(this.errors);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const isEmail = (v: string): boolean => v.length <= 254 && EMAIL.test(v);
export const normalizeEmail = (v: string): string => v.trim().toLowerCase();

/** CPF and CNPJ (numeric or alphanumeric), stored upper-case without punctuation. */
export const normalizeDocument = (v: string): string => v.replace(/[\s./-]/g, '').toUpperCase();
export const isCpf = (v: string): boolean => /^\d{11}$/.test(v) && isValidCpf(v);
export const isCnpj = (v: string): boolean => v.length === 14 && isValidCnpj(v, { version: 2 });
export const isDocument = (v: string): boolean => isCpf(v) || isCnpj(v);

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export function checkPassword(check: Checker, field: string, value: string | undefined | null): void {
  if (value === undefined || value === null || value === '') {
    check.add(field, 'is required');
    return;
  }
  if (value.length < PASSWORD_MIN || value.length > PASSWORD_MAX) check.add(field, `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
}
