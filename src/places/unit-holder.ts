/**
 * The holder columns every unit-scoped row carries (Migration0036ScopeHolders,
 * docs/decisions/tenancy.md): the organization holding its unit and the federative unit where the
 * unit is. The statements that move many rows set them themselves; the tables' triggers fill the rest.
 */

/** SQL for an UPDATE's SET list: the holder of the unit bound at the one `?` (the unit's id). */
export const SET_HOLDER_OF_UNIT = '(holder_organization_id, holder_federative_unit) = (select uh.holder_organization_id, uh.holder_federative_unit from unit_holder uh where uh.control_unit_id = ?::uuid)';

/** SQL for a FROM list: the holder of the unit bound at the one `?`, as alias `uh` (one row). */
export const HOLDER_OF_UNIT = '(select * from unit_holder where control_unit_id = ?::uuid) uh';
