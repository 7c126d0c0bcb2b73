import { Migration } from '@mikro-orm/migrations';

// The accent fold of src/shared/search.ts, spelled out: an expression index serves only the same expression.
const FOLDED_NAME = "translate(lower(str_name), 'áàâãäåéèêëíìîïóòôõöúùûüçñý', 'aaaaaaeeeeiiiiooooouuuucny')";

export class Migration0002Counties extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table county (
        id uuid primary key,
        str_ibge_code text not null check (str_ibge_code ~ '^[0-9]{7}$'),
        str_name text not null check (str_name <> ''),
        str_federative_unit text not null check (str_federative_unit ~ '^[A-Z]{2}$'),
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    this.addSql('create unique index county_ibge_code_unique on county (str_ibge_code)');
    this.addSql('create index county_federative_unit on county (str_federative_unit, str_name)');
    this.addSql(`create index county_name on county (str_name, id)`);
    // str_query is a contains-match over the folded name: a trigram index serves it where pg_trgm is
    // available (PostgreSQL); embedded PGlite ships without it and gets a btree on the same
    // expression (prefix matches), which at ~5,600 rows is all a scan needs anyway.
    this.addSql(`do $$
      begin
        create extension if not exists pg_trgm;
        execute $i$create index county_name_folded on county using gin ((${FOLDED_NAME}) gin_trgm_ops)$i$;
      exception when others then
        execute $i$create index county_name_folded on county ((${FOLDED_NAME}) text_pattern_ops)$i$;
      end $$`);
    this.addSql(`alter table "user" add constraint user_county_fk foreign key (county_id) references county (id) on delete restrict deferrable initially deferred`);
    this.addSql('create index user_county on "user" (county_id)');
  }
}
