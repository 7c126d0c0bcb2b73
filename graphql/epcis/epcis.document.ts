/** The GTA's bizTransaction type, for REST's query string (its EQ_bizTransaction_<type> parameter). */
export { GTA_TRANSACTION_TYPE } from '../../src/epcis/epcis.identifiers.js';
