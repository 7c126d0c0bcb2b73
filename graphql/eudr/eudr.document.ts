import { geojsonText, type EudrFeatureCollection } from '../../src/eudr/eudr.geojson.js';

export { MAX_LOT_LIST, MAX_WINDOW_DAYS } from '../../src/eudr/eudr-lot.input.js';

/** REST's hook for the `application/geo+json` answer: the picked feature_collection as the core writes it (six decimals a coordinate). */
export const geojsonDocumentText = (featureCollection: unknown): string => geojsonText(featureCollection as EudrFeatureCollection);
