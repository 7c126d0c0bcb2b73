import { Migration } from '@mikro-orm/migrations';

const fk = (table: string, onDelete = 'restrict') => `references ${table} (id) on delete ${onDelete} deferrable initially deferred`;
const stamps = 'ts_created_at timestamptz not null default now(), ts_updated_at timestamptz not null default now()';
const clientStamp = 'ts_unsafe_client_created_at timestamptz null';
const SOCIO = "('COMPLIANT','UNDER_REVIEW','NON_COMPLIANT','NOT_EVALUATED')";

/** A read of an animal at a chute: by tag id, tag code or rod code, with where and when (DOMAIN.md, "Animal movements"). */
const readColumns = (parent: string, at: string) => `
        id uuid primary key,
        ${parent} uuid not null ${fk(parent.replace(/_id$/, ''), 'cascade')},
        animal_id uuid null ${fk('animal')},
        tag_id uuid null ${fk('tag')},
        str_tag_code text null,
        str_rod_code text null,
        ${at} timestamptz null,
        num_longitude double precision null,
        num_latitude double precision null,
        ${stamps}`;

/**
 * Animal movements (DOMAIN.md, "Animal movements", "Occurrences", "Tracing"): egresses and
 * ingresses with their reads, the GTAs an ingress takes in, occurrences, and every animal's stays
 * (animal, unit, from, to), the history that movements, the socio-environmental status and the
 * trace are computed from. A GTA the state notifies may lack its origin, destination, quantity and
 * validity until an egress or a second notification completes it.
 */
export class Migration0012Movements extends Migration {
  override async up(): Promise<void> {
    for (const column of ['int_animal_quantity', 'str_purpose', 'from_control_unit_id', 'to_control_unit_id', 'from_establishment_id', 'to_establishment_id', 'ts_valid_until', 'organization_id']) {
      this.addSql(`alter table gta alter column ${column} drop not null`);
    }

    this.addSql(`create table animals_egress (
        id uuid primary key,
        from_control_unit_id uuid not null ${fk('control_unit')},
        to_control_unit_id uuid null ${fk('control_unit')},
        gta_id uuid null ${fk('gta')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_status text not null default 'OPEN' check (str_status in ('OPEN','FINISHED','RECEIVED','CANCELLED')),
        bl_move_with_tag_reading boolean not null,
        int_tag_count integer not null default 0,
        str_socioenvironmental_status text null check (str_socioenvironmental_status in ${SOCIO}),
        str_description text null,
        str_label text null,
        str_license_plate text null,
        ts_last_read timestamptz null,
        ts_finished_at timestamptz null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index animals_egress_from on animals_egress (from_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index animals_egress_to on animals_egress (to_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index animals_egress_gta on animals_egress (gta_id) where gta_id is not null');
    this.addSql('create index animals_egress_created on animals_egress (ts_created_at desc, id)');

    this.addSql(`create table animals_egress_tag (${readColumns('animals_egress_id', 'ts_egress_at')})`);
    // A read of one animal twice is one animal.
    this.addSql('create unique index animals_egress_tag_animal on animals_egress_tag (animals_egress_id, animal_id)');
    this.addSql('create index animals_egress_tag_of_animal on animals_egress_tag (animal_id)');

    this.addSql(`create table animals_ingress (
        id uuid primary key,
        to_control_unit_id uuid not null ${fk('control_unit')},
        operator_user_id uuid null ${fk('"user"', 'set null')},
        str_status text not null default 'OPEN' check (str_status in ('OPEN','RECEIVED','RECEIVED_WITH_DIVERGENCE','CANCELLED')),
        bl_move_with_tag_reading boolean not null,
        int_animal_count integer null check (int_animal_count >= 0),
        int_received_count integer null,
        str_socioenvironmental_status text null check (str_socioenvironmental_status in ${SOCIO}),
        str_description text null,
        str_label text null,
        ts_started_at timestamptz null,
        ts_first_read timestamptz null,
        ts_finished_at timestamptz null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index animals_ingress_to on animals_ingress (to_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index animals_ingress_created on animals_ingress (ts_created_at desc, id)');

    this.addSql(`create table animals_ingress_gta (
        id uuid primary key,
        animals_ingress_id uuid not null ${fk('animals_ingress', 'cascade')},
        gta_id uuid not null ${fk('gta')},
        str_license_plate text null,
        ${stamps}
      )`);
    this.addSql('create unique index animals_ingress_gta_unique on animals_ingress_gta (animals_ingress_id, gta_id)');
    this.addSql('create index animals_ingress_gta_gta on animals_ingress_gta (gta_id)');

    this.addSql(`create table animals_ingress_tag (${readColumns('animals_ingress_id', 'ts_ingress_at')})`);
    // One animal once; an unknown code once.
    this.addSql('create unique index animals_ingress_tag_animal on animals_ingress_tag (animals_ingress_id, animal_id) where animal_id is not null');
    this.addSql('create unique index animals_ingress_tag_code on animals_ingress_tag (animals_ingress_id, coalesce(str_tag_code, str_rod_code)) where animal_id is null');
    this.addSql('create index animals_ingress_tag_of_animal on animals_ingress_tag (animal_id) where animal_id is not null');

    this.addSql(`create table occurrence (
        id uuid primary key,
        str_type text not null check (str_type in ('MISSING_ON_ARRIVAL','UNEXPECTED_ANIMAL','COUNT_DIVERGENCE','TAG_LOST','ANIMAL_DEATH','THEFT','SOCIOENVIRONMENTAL_ALERT','TRANSIT_TIME_EXCEEDED','OTHER')),
        str_status text not null default 'OPEN' check (str_status in ('OPEN','RESOLVED','DISMISSED')),
        control_unit_id uuid not null ${fk('control_unit')},
        animal_id uuid null ${fk('animal')},
        tag_id uuid null ${fk('tag')},
        animals_egress_id uuid null ${fk('animals_egress')},
        animals_ingress_id uuid null ${fk('animals_ingress')},
        gta_id uuid null ${fk('gta')},
        reporter_user_id uuid null ${fk('"user"', 'set null')},
        resolver_user_id uuid null ${fk('"user"', 'set null')},
        str_description text null,
        str_resolution text null,
        ts_occurred_at timestamptz not null default now(),
        ts_resolved_at timestamptz null,
        ${clientStamp},
        ${stamps}
      )`);
    this.addSql('create index occurrence_unit on occurrence (control_unit_id, ts_created_at desc, id)');
    this.addSql('create index occurrence_created on occurrence (ts_created_at desc, id)');
    this.addSql('create index occurrence_animal on occurrence (animal_id) where animal_id is not null');
    this.addSql('create index occurrence_ingress on occurrence (animals_ingress_id) where animals_ingress_id is not null');

    // An animal at a unit from `ts_from` (identified or received there) to `ts_to` (left, died,
    // slaughtered, exported; null while there). The establishment is the unit's, kept for the
    // set-based socio-environmental update and the trace.
    this.addSql(`create table animal_stay (
        id bigint generated always as identity primary key,
        animal_id uuid not null ${fk('animal', 'cascade')},
        control_unit_id uuid not null ${fk('control_unit')},
        establishment_id uuid not null ${fk('establishment')},
        ts_from timestamptz not null,
        ts_to timestamptz null,
        animals_ingress_id uuid null ${fk('animals_ingress', 'set null')},
        animals_egress_id uuid null ${fk('animals_egress', 'set null')},
        check (ts_to is null or ts_to >= ts_from)
      )`);
    this.addSql('create index animal_stay_animal on animal_stay (animal_id, ts_from)');
    this.addSql('create index animal_stay_establishment on animal_stay (establishment_id, animal_id)');
    this.addSql('create index animal_stay_unit on animal_stay (control_unit_id, ts_from)');
    this.addSql('create unique index animal_stay_open on animal_stay (animal_id) where ts_to is null');
    this.addSql(`insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to)
      select a.id, a.last_control_unit_id, cu.establishment_id, least(coalesce(a.ts_identified_at, a.ts_created_at), a.ts_created_at),
             case when a.str_status in ('DEAD','SLAUGHTERED','EXPORTED') then greatest(coalesce(a.ts_ended_at, a.ts_updated_at), least(coalesce(a.ts_identified_at, a.ts_created_at), a.ts_created_at)) end
        from animal a join control_unit cu on cu.id = a.last_control_unit_id`);
    this.addSql("alter table animal alter column str_gender drop not null");
  }
}
