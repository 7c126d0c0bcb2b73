/**
 * What a bulk operation's event says in GS1 EPCIS 2.0's terms (issue 20: one ObjectEvent per
 * operation, its epcList the records the event lists): the CBV 2.0 business step and disposition,
 * the GTAs as business transactions, and where the objects came from and went to. Ids only: a
 * reader of the log (or the EPCIS read model) writes them as URIs.
 */
export interface EpcisStep {
  str_biz_step: string;
  str_disposition: string;
  gta_ids: string[];
  source: Record<string, string | string[] | null>;
  destination: Record<string, string | string[] | null>;
}

export const epcisStep = (bizStep: string, disposition: string, gtaIds: string[], source: Record<string, string | string[] | null>, destination: Record<string, string | string[] | null>): EpcisStep => ({
  str_biz_step: bizStep,
  str_disposition: disposition,
  gta_ids: gtaIds,
  source,
  destination,
});
