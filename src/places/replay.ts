export { bodyHash, replayCreate } from '../shared/replay.js';
