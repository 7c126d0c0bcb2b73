import { registerEnumType } from 'type-graphql';
import {
  CONTROL_UNIT_TYPES,
  ESTABLISHMENT_STATUSES,
  ESTABLISHMENT_TYPES,
  PREDOMINANT_PHASES,
  PREDOMINANT_SYSTEMS,
  SOCIOENVIRONMENTAL_STATUSES,
} from '../../src/places/establishment.rules.js';

const asEnum = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as { [K in T]: K };

export const EstablishmentTypeEnum = asEnum(ESTABLISHMENT_TYPES);
export const EstablishmentStatusEnum = asEnum(ESTABLISHMENT_STATUSES);
export const SocioenvironmentalStatusEnum = asEnum(SOCIOENVIRONMENTAL_STATUSES);
export const ControlUnitTypeEnum = asEnum(CONTROL_UNIT_TYPES);
export const PredominantPhaseEnum = asEnum(PREDOMINANT_PHASES);
export const PredominantSystemEnum = asEnum(PREDOMINANT_SYSTEMS);
registerEnumType(EstablishmentTypeEnum, { name: 'EstablishmentType' });
registerEnumType(EstablishmentStatusEnum, { name: 'EstablishmentStatus' });
registerEnumType(SocioenvironmentalStatusEnum, { name: 'SocioenvironmentalStatus' });
registerEnumType(ControlUnitTypeEnum, { name: 'ControlUnitType' });
registerEnumType(PredominantPhaseEnum, { name: 'PredominantPhase' });
registerEnumType(PredominantSystemEnum, { name: 'PredominantSystem' });
