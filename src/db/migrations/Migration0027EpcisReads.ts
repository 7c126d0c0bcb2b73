import { Migration } from '@mikro-orm/migrations';

/**
 * The EPCIS read model (src/epcis/epcis.reader.ts) finds an operation's animals and an animal's
 * operations through these: the animals an ingress received (its stays), an animal's replacements
 * and writeoffs, whether a tag came in by a replacement (so the first tag is the lifetime code), and
 * when an identification happened.
 */
export class Migration0027EpcisReads extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index if not exists animal_stay_ingress on animal_stay (animals_ingress_id) where animals_ingress_id is not null');
    this.addSql('create index if not exists tags_replacement_tag_new on tags_replacement_tag (new_tag_id)');
    this.addSql('create index if not exists tags_replacement_tag_animal on tags_replacement_tag (animal_id)');
    // An identification's time (its first animal's): the least of the index's entries, not a pass over its animals.
    this.addSql('create index if not exists animal_identification_time on animal (tags_identification_id, ts_identified_at) where tags_identification_id is not null');
    this.addSql('create index if not exists tags_writeoff_tag_animal on tags_writeoff_tag (animal_id) where animal_id is not null');
  }
}
