export const ANIMAL_SPECIES = ['BOVINE', 'BUBALINE'] as const;
export const ANIMAL_GENDERS = ['MALE', 'FEMALE'] as const;
export const ANIMAL_STATUSES = ['ACTIVE', 'IN_TRANSIT', 'MISSING', 'DEAD', 'SLAUGHTERED', 'EXPORTED'] as const;
export type AnimalStatus = (typeof ANIMAL_STATUSES)[number];
export const FINAL_ANIMAL_STATUSES: readonly AnimalStatus[] = ['DEAD', 'SLAUGHTERED', 'EXPORTED'];

/** DOMAIN.md, "Animals": the transitions of str_status; anything else is INVALID_STATE. */
export const ANIMAL_TRANSITIONS: Record<AnimalStatus, readonly AnimalStatus[]> = {
  ACTIVE: ['IN_TRANSIT', 'MISSING', 'DEAD', 'SLAUGHTERED', 'EXPORTED'],
  IN_TRANSIT: ['ACTIVE'],
  MISSING: ['ACTIVE'],
  DEAD: [],
  SLAUGHTERED: [],
  EXPORTED: [],
};

export const canMoveAnimal = (from: AnimalStatus, to: AnimalStatus): boolean => ANIMAL_TRANSITIONS[from].includes(to);
