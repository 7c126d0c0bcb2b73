import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

export const USER_TYPES = ['PRODUCER', 'TECHNICIAN', 'TRANSPORTER', 'SLAUGHTERHOUSE', 'AUTHORITY', 'INTEGRATION', 'OTHER'] as const;
export type UserType = (typeof USER_TYPES)[number];

@Entity({ tableName: 'user' })
export class User extends BaseEntity {
  @Property({ type: 'text' })
  str_name!: string;

  @Property({ type: 'text' })
  str_email!: string;

  /** Digits (CPF/CNPJ) or the alphanumeric CNPJ, without punctuation. */
  @Property({ type: 'text' })
  str_document!: string;

  @Property({ type: 'text' })
  str_type: Opt<UserType> = 'OTHER';

  @Property({ type: 'boolean' })
  bl_admin: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  bl_verified: Opt<boolean> = false;

  @Property({ type: 'text', nullable: true })
  str_phone: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  county_id: string | null = null;

  /** The active organization of the last token issued to this user. */
  @Property({ type: 'uuid', nullable: true })
  organization_id: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_terms_accepted_at: Date | null = null;

  @Property({ type: 'text', nullable: true, hidden: true })
  password_hash: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_registration_confirmed_at: Date | null = null;
}
