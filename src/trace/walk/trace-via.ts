import { IntList } from '../graph/trace-graph.js';

/**
 * The animal a presence reached by a contact names (`via_animal_id`; docs/decisions/trace.md, "Via:
 * an animal that was there"), chosen among the presences of its occupancy run (a unit's stays or a
 * vehicle's rides), held in `from` order: the animal that brought the run its exposure, if it was
 * there at the contact's instant `e` (from ≤ e ≤ end); otherwise another animal there at `e`, the one
 * that arrived last by `e`, ties to the smaller uuid; the presence's own animal when no other was
 * there. The same choice as the SQL walk's (src/trace/sql/trace_runs.sql). A run's presences are copied
 * here on its first contact, the source's apart: the common case (the source is still there) reads
 * those alone, the other a step back from `e` in from order.
 */
export class RunPresences {
  private from = new Float64Array(256);
  private end = new Float64Array(256);
  private animal = new Int32Array(256);
  private length = 0;
  private readonly ofSource = new IntList();
  private source = -1;
  /** The run whose presences are held (-1: none). */
  run = -1;

  constructor(private readonly compareAnimals: (a: number, b: number) => number) {}

  /** Empties the list for run `run` and the animal that brought its label. */
  start(run: number, source: number): void {
    this.run = run;
    this.source = source;
    this.length = 0;
    this.ofSource.clear();
  }

  /** A presence of the run, in from order (an open stay's end: now). */
  push(from: number, end: number, animal: number): void {
    const i = this.length;
    if (i === this.from.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T, b: T): T => (b.set(a), b);
      this.from = grow(this.from, new Float64Array(2 * i));
      this.end = grow(this.end, new Float64Array(2 * i));
      this.animal = grow(this.animal, new Int32Array(2 * i));
    }
    this.from[i] = from;
    this.end[i] = end;
    this.animal[i] = animal;
    if (animal === this.source) this.ofSource.push(i);
    this.length = i + 1;
  }

  /** The contact named by a presence of animal `a` exposed at `e` (not the label's source). */
  via(a: number, e: number): number {
    const { from, end, animal, source } = this;
    for (let k = 0; k < this.ofSource.length; k++) {
      const i = this.ofSource.data[k]!;
      if (from[i]! <= e && end[i]! >= e) return source;
    }
    // The last presence begun by e, then back: the first other animal still there, and its ties of arrival.
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (from[mid]! <= e) lo = mid + 1;
      else hi = mid;
    }
    let best = -1;
    let arrived = NaN;
    for (let i = lo - 1; i >= 0; i--) {
      if (best >= 0 && from[i]! < arrived) break;
      if (end[i]! < e || animal[i] === a) continue;
      if (best < 0 || this.compareAnimals(animal[i]!, best) < 0) {
        best = animal[i]!;
        arrived = from[i]!;
      }
    }
    return best >= 0 ? best : a;
  }
}
