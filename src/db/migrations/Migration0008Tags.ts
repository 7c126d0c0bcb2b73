import { Migration } from '@mikro-orm/migrations';

const fk = (table: string, onDelete = 'restrict') => `references ${table} (id) on delete ${onDelete} deferrable initially deferred`;
const stamps = 'ts_created_at timestamptz not null default now(), ts_updated_at timestamptz not null default now()';
const clientStamp = 'ts_unsafe_client_created_at timestamptz null';

/**
 * Tags, their boxes and every operation on them, and the animals identification creates
 * (DOMAIN.md, "Tags" and "Animals"). The checks hold the values of src/tags/tag.rules.ts and
 * src/animals/animal.rules.ts.
 */
export class Migration0008Tags extends Migration {
  override async up(): Promise<void> {
    // A box holds one contiguous range of ISO 11784 codes; ranges never overlap, so no code is issued twice.
    this.addSql(`create table tags_box (
        id uuid primary key,
        str_code text not null check (str_code <> ''),
        str_begin text not null check (str_begin ~ '^076[0-9]{12}$'),
        str_finish text not null check (str_finish ~ '^076[0-9]{12}$'),
        int_quantity integer not null,
        str_status text not null check (str_status in ('IN_STOCK','IN_TRANSIT','OPENED','DEPLETED')),
        control_unit_id uuid not null ${fk('control_unit')},
        ${stamps},
        check (str_finish >= str_begin),
        check (int_quantity = str_finish::bigint - str_begin::bigint + 1),
        constraint tags_box_range_disjoint exclude using gist (int8range(str_begin::bigint, str_finish::bigint, '[]') with &&)
      )`);
    this.addSql('create unique index tags_box_code_unique on tags_box (str_code)');
    this.addSql('create index tags_box_unit on tags_box (control_unit_id, ts_created_at desc, id)');

    this.addSql(`create table tags_reservation (
        id uuid primary key,
        control_unit_id uuid not null ${fk('control_unit')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_name text not null check (str_name <> ''),
        str_description text null,
        str_label text null,
        str_begin text null,
        str_finish text null,
        int_quantity integer not null check (int_quantity > 0),
        str_status text not null default 'ACTIVE' check (str_status in ('ACTIVE','RELEASED','USED')),
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index tags_reservation_unit on tags_reservation (control_unit_id, ts_created_at desc, id)');

    this.addSql(`create table tags_identification (
        id uuid primary key,
        control_unit_id uuid not null ${fk('control_unit')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        int_animal_count integer not null check (int_animal_count > 0),
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index tags_identification_unit on tags_identification (control_unit_id, ts_created_at desc, id)');

    this.addSql(`create table animal (
        id uuid primary key,
        str_species text not null check (str_species in ('BOVINE','BUBALINE')),
        str_gender text not null check (str_gender in ('MALE','FEMALE')),
        str_status text not null default 'ACTIVE' check (str_status in ('ACTIVE','IN_TRANSIT','MISSING','DEAD','SLAUGHTERED','EXPORTED')),
        str_socioenvironmental_status text not null default 'NOT_EVALUATED' check (str_socioenvironmental_status in ('COMPLIANT','UNDER_REVIEW','NON_COMPLIANT','NOT_EVALUATED')),
        current_tag_id uuid null,
        last_control_unit_id uuid not null ${fk('control_unit')},
        tags_identification_id uuid null ${fk('tags_identification')},
        str_name text null,
        str_description text null,
        str_rod_code text null,
        str_extra_tag text null,
        ts_born_date timestamptz null,
        int_age_months_at_identification integer null check (int_age_months_at_identification >= 0),
        int_weight_kilos_at_identification integer null check (int_weight_kilos_at_identification > 0),
        ts_identified_at timestamptz null,
        num_longitude double precision null,
        num_latitude double precision null,
        ts_ended_at timestamptz null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index animal_unit_created on animal (last_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index animal_created on animal (ts_created_at desc, id)');
    this.addSql('create unique index animal_rod_code_unique on animal (str_rod_code) where str_rod_code is not null');
    // The animals of an identification (its record lists them).
    this.addSql('create index animal_identification on animal (tags_identification_id) where tags_identification_id is not null');

    this.addSql(`create table tag (
        id uuid primary key,
        str_code text not null check (str_code ~ '^[0-9]{15}$'),
        str_status text not null check (str_status in ('AVAILABLE','RESERVED','APPLIED','IN_TRANSIT','REPLACED','WRITTEN_OFF')),
        bl_external_tag boolean not null default false,
        tags_box_id uuid null ${fk('tags_box')},
        last_control_unit_id uuid null ${fk('control_unit')},
        animal_id uuid null ${fk('animal')},
        tags_reservation_id uuid null ${fk('tags_reservation', 'set null')},
        str_writeoff_reason text null,
        ts_writeoff_at timestamptz null,
        ${stamps},
        check (bl_external_tag or str_code like '076%'),
        check ((str_status = 'APPLIED') <= (animal_id is not null)),
        check ((str_status = 'RESERVED') = (tags_reservation_id is not null))
      )`);
    this.addSql('create unique index tag_code_unique on tag (str_code)');
    // Lowest available codes of a unit (reservations by quantity) and the unit's stock by status.
    this.addSql('create index tag_unit_status_code on tag (last_control_unit_id, str_status, str_code)');
    this.addSql('create index tag_box on tag (tags_box_id)');
    this.addSql('create index tag_animal on tag (animal_id) where animal_id is not null');
    this.addSql('create index tag_reservation on tag (tags_reservation_id) where tags_reservation_id is not null');
    this.addSql('create index tag_created on tag (ts_created_at desc, id)');
    // One active tag per animal (DOMAIN.md).
    this.addSql(`create unique index tag_one_applied_per_animal on tag (animal_id) where str_status = 'APPLIED'`);
    this.addSql(`alter table animal add constraint animal_current_tag_fk foreign key (current_tag_id) ${fk('tag')}`);
    this.addSql('create unique index animal_current_tag_unique on animal (current_tag_id) where current_tag_id is not null');

    this.addSql(`create table tags_egress (
        id uuid primary key,
        from_control_unit_id uuid not null ${fk('control_unit')},
        to_control_unit_id uuid not null ${fk('control_unit')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_type text not null check (str_type in ('TRANSFER','RETURN')),
        str_status text not null default 'SENT' check (str_status in ('SENT','RECEIVED','CANCELLED')),
        ${clientStamp},
        ${stamps},
        check (from_control_unit_id <> to_control_unit_id)
      )`);
    this.addSql('create index tags_egress_from on tags_egress (from_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index tags_egress_to on tags_egress (to_control_unit_id, ts_created_at desc, id)');
    // str_box_status: what the box was before it left, so a cancel or a rejection puts it back as it was.
    this.addSql(`create table tags_egress_box (
        tags_egress_id uuid not null ${fk('tags_egress', 'cascade')},
        tags_box_id uuid not null ${fk('tags_box')},
        str_box_status text not null,
        primary key (tags_egress_id, tags_box_id)
      )`);
    this.addSql('create index tags_egress_box_box on tags_egress_box (tags_box_id)');

    this.addSql(`create table tags_ingress (
        id uuid primary key,
        to_control_unit_id uuid not null ${fk('control_unit')},
        tags_egress_id uuid null ${fk('tags_egress')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_status text not null default 'PENDING' check (str_status in ('PENDING','EVALUATED','PARTIALLY_ACCEPTED')),
        str_description text null,
        str_label text null,
        ts_evaluated_at timestamptz null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index tags_ingress_unit on tags_ingress (to_control_unit_id, ts_created_at desc, id)');
    // A tags egress is received by one ingress.
    this.addSql('create unique index tags_ingress_egress_unique on tags_ingress (tags_egress_id) where tags_egress_id is not null');
    this.addSql(`create table tags_ingress_box (
        tags_ingress_id uuid not null ${fk('tags_ingress', 'cascade')},
        tags_box_id uuid not null ${fk('tags_box')},
        str_status text not null default 'PENDING' check (str_status in ('PENDING','ACCEPTED','REJECTED')),
        primary key (tags_ingress_id, tags_box_id)
      )`);
    this.addSql('create index tags_ingress_box_box on tags_ingress_box (tags_box_id)');

    this.addSql(`create table tags_replacement (
        id uuid primary key,
        control_unit_id uuid not null ${fk('control_unit')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_description text null,
        str_label text null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index tags_replacement_unit on tags_replacement (control_unit_id, ts_created_at desc, id)');
    this.addSql(`create table tags_replacement_tag (
        tags_replacement_id uuid not null ${fk('tags_replacement', 'cascade')},
        animal_id uuid not null ${fk('animal')},
        old_tag_id uuid not null ${fk('tag')},
        new_tag_id uuid not null ${fk('tag')},
        str_reason text not null check (str_reason in ('LOST','DAMAGED','ILLEGIBLE')),
        primary key (tags_replacement_id, old_tag_id)
      )`);

    this.addSql(`create table tags_writeoff (
        id uuid primary key,
        control_unit_id uuid not null ${fk('control_unit')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_reason text not null check (str_reason in ('DAMAGED','DEFECTIVE','LOST_UNUSED','ANIMAL_DEATH','ANIMAL_SLAUGHTER','ANIMAL_EXPORT','OTHER')),
        str_reason_description text null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index tags_writeoff_unit on tags_writeoff (control_unit_id, ts_created_at desc, id)');
    this.addSql(`create table tags_writeoff_tag (
        tags_writeoff_id uuid not null ${fk('tags_writeoff', 'cascade')},
        tag_id uuid not null ${fk('tag')},
        animal_id uuid null ${fk('animal')},
        str_previous_status text not null,
        primary key (tags_writeoff_id, tag_id)
      )`);
    this.addSql('create unique index tags_writeoff_tag_once on tags_writeoff_tag (tag_id)');
  }
}
