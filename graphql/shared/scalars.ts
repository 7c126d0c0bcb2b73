import { DateTimeISOResolver, JSONObjectResolver, UUIDResolver } from 'graphql-scalars';

export const DateTime = DateTimeISOResolver;
export const UUID = UUIDResolver;
export const JSONObject = JSONObjectResolver;
