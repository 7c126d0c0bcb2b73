import { IntList } from '../graph/trace-graph.js';

/**
 * The animal a presence reached by a contact names (`via_animal_id`; docs/decisions/trace.md, "Via:
 * an animal that was there"), chosen among the presences of its occupancy run (a unit's stays or a
 * vehicle's rides), in `from` order: of the animals there at the contact's instant `e` (from ≤ e ≤
 * end), another animal before the presence's own; the animal that brought the run its exposure
 * first; then the earliest exposed (backward: the latest), `max(from, x)` (`min(end, x)`); then the
 * smaller uuid. The presence is itself there at `e`, so there is always one. The same choice as the
 * SQL walk's (src/trace/sql/trace_runs.sql). A run's presences are copied here once, on its first
 * contact; the source's own presences apart, so the common case (the source is still there) reads
 * only those.
 */
export class RunPresences {
  private from = new Float64Array(256);
  private end = new Float64Array(256);
  private animal = new Int32Array(256);
  private length = 0;
  private readonly ofSource = new IntList();
  private x = NaN;
  private source = -1;
  private forward = true;
  /** The run whose presences are held (-1: none). */
  run = -1;

  constructor(private readonly compareAnimals: (a: number, b: number) => number) {}

  /** Empties the list for run `run`, its label `x` and the label's source animal. */
  start(run: number, x: number, source: number, forward: boolean): void {
    this.run = run;
    this.x = x;
    this.source = source;
    this.forward = forward;
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
    const fwd = this.forward;
    const x = this.x;
    let best = -1;
    let bestOwn = true;
    let bestExposure = NaN;
    for (let i = 0; i < this.length && from[i]! <= e; i++) {
      if (end[i]! < e) continue;
      const q = animal[i]!;
      const own = q === a;
      const exposure = fwd ? Math.max(from[i]!, x) : Math.min(end[i]!, x);
      const better =
        best < 0 ||
        (own !== bestOwn ? !own : exposure !== bestExposure ? (fwd ? exposure < bestExposure : exposure > bestExposure) : this.compareAnimals(q, best) < 0);
      if (better) {
        best = q;
        bestOwn = own;
        bestExposure = exposure;
      }
    }
    return best;
  }
}
