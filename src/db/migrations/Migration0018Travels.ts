import { Migration } from '@mikro-orm/migrations';

const fk = (table: string, onDelete = 'restrict') => `references ${table} (id) on delete ${onDelete} deferrable initially deferred`;
const stamps = 'ts_created_at timestamptz not null default now(), ts_updated_at timestamptz not null default now()';
const point = (name: string) => `num_${name}_longitude double precision null check (num_${name}_longitude between -180 and 180),
        num_${name}_latitude double precision null check (num_${name}_latitude between -90 and 90)`;

/**
 * Travels (DOMAIN.md, "Animal movements" → Travel): a truck trip carrying one or more egresses,
 * PLANNED → IN_PROGRESS → FINISHED | CANCELLED, with the egresses loaded (embarks) and its stops.
 * The consignee is a name (interface.md's str_consignee_name), not a user. An egress rides one
 * travel at a time: its embark is released when the travel is cancelled. A TRANSIT_TIME_EXCEEDED
 * occurrence names its travel, once per travel.
 */
export class Migration0018Travels extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table travel (
        id uuid primary key,
        vehicle_id uuid not null ${fk('vehicle')},
        transporter_user_id uuid not null ${fk('"user"')},
        str_consignee_name text null,
        from_control_unit_id uuid not null ${fk('control_unit')},
        to_control_unit_id uuid not null ${fk('control_unit')},
        str_status text not null default 'PLANNED' check (str_status in ('PLANNED','IN_PROGRESS','FINISHED','CANCELLED')),
        ts_start_time timestamptz null,
        ${point('from')},
        ts_end_time timestamptz null,
        ${point('to')},
        int_duration integer null check (int_duration >= 0),
        ts_transit_time_exceeded_at timestamptz null,
        ts_unsafe_client_created_at timestamptz null,
        ${stamps},
        check (from_control_unit_id <> to_control_unit_id),
        check (ts_end_time is null or ts_end_time >= ts_start_time),
        check (str_status in ('PLANNED','CANCELLED') or ts_start_time is not null),
        check (str_status <> 'FINISHED' or (ts_end_time is not null and int_duration is not null))
      )`);
    this.addSql('create index travel_from on travel (from_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index travel_to on travel (to_control_unit_id, ts_created_at desc, id)');
    this.addSql('create index travel_transporter on travel (transporter_user_id, ts_created_at desc, id)');
    this.addSql('create index travel_vehicle on travel (vehicle_id)');
    this.addSql('create index travel_created on travel (ts_created_at desc, id)');
    // The trips a reader may find past the limit: only those under way and not yet reported.
    this.addSql("create index travel_in_progress on travel (ts_start_time) where str_status = 'IN_PROGRESS' and ts_transit_time_exceeded_at is null");

    this.addSql(`create table travel_embark (
        id uuid primary key,
        travel_id uuid not null ${fk('travel', 'cascade')},
        animals_egress_id uuid not null ${fk('animals_egress')},
        ts_embarked_at timestamptz not null,
        ${point('embark')},
        ts_released_at timestamptz null,
        ${stamps}
      )`);
    this.addSql('create index travel_embark_travel on travel_embark (travel_id, ts_embarked_at)');
    // One travel at a time: an egress's embark on a cancelled travel is released.
    this.addSql('create unique index travel_embark_egress_once on travel_embark (animals_egress_id) where ts_released_at is null');

    this.addSql(`create table travel_stop (
        id uuid primary key,
        travel_id uuid not null ${fk('travel', 'cascade')},
        ${point('stop')},
        ts_arrival timestamptz not null,
        ts_departure timestamptz null,
        ${stamps},
        check (ts_departure is null or ts_departure >= ts_arrival)
      )`);
    this.addSql('create index travel_stop_travel on travel_stop (travel_id, ts_arrival)');

    this.addSql(`alter table occurrence add column travel_id uuid null ${fk('travel')}`);
    // Raised at most once per travel, whichever comes first: the read past the limit or the finish.
    this.addSql("create unique index occurrence_travel_transit_time on occurrence (travel_id) where str_type = 'TRANSIT_TIME_EXCEEDED'");
  }
}
