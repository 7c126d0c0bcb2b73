import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../shared/ids.js';

/** A login and every refresh token rotated from it (a token family). */
@Entity({ tableName: 'auth_session' })
export class AuthSession {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'uuid' })
  user_id!: string;

  @Property({ type: 'timestamptz' })
  ts_created_at: Opt<Date> = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  ts_revoked_at: Date | null = null;

  @Property({ type: 'text', nullable: true })
  str_revoke_reason: string | null = null;
}

@Entity({ tableName: 'refresh_token' })
export class RefreshToken {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'uuid' })
  session_id!: string;

  @Property({ type: 'text' })
  token_hash!: string;

  @Property({ type: 'uuid', nullable: true })
  organization_id: string | null = null;

  @Property({ type: 'timestamptz' })
  ts_created_at: Opt<Date> = new Date();

  @Property({ type: 'timestamptz' })
  ts_expires_at!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  ts_used_at: Date | null = null;

  /** The access token issued when this one was rotated, so a retry inside the grace window gets the same pair. */
  @Property({ type: 'uuid', nullable: true })
  next_jti: string | null = null;

  @Property({ type: 'integer', nullable: true })
  next_iat: number | null = null;
}

export const USER_TOKEN_PURPOSES = ['RECOVER_PASSWORD', 'CONFIRM_REGISTRATION'] as const;
export type UserTokenPurpose = (typeof USER_TOKEN_PURPOSES)[number];

/** Single-use mailed tokens (password recovery, registration confirmation); only the hash is kept. */
@Entity({ tableName: 'user_token' })
export class UserToken {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'uuid' })
  user_id!: string;

  @Property({ type: 'text' })
  str_purpose!: UserTokenPurpose;

  @Property({ type: 'text' })
  token_hash!: string;

  @Property({ type: 'timestamptz' })
  ts_created_at: Opt<Date> = new Date();

  @Property({ type: 'timestamptz' })
  ts_expires_at!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  ts_used_at: Date | null = null;
}
