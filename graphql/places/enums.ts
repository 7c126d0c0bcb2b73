import { registerEnumType } from 'type-graphql';
import { asEnum } from '../shared/enums.js';
import {
  CONTROL_UNIT_TYPES,
  ESTABLISHMENT_STATUSES,
  ESTABLISHMENT_TYPES,
  PREDOMINANT_PHASES,
  PREDOMINANT_SYSTEMS,
  SOCIOENVIRONMENTAL_STATUSES,
} from '../../src/places/establishment.rules.js';


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
