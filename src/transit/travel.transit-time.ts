import type { EntityManager } from '@mikro-orm/postgresql';
import { raiseOccurrences } from '../movements/occurrences.raise.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { overLimit } from './travel.rules.js';

/** What the rule needs of a travel. */
export interface TimedTravel {
  id: string;
  str_status: string;
  ts_start_time: Date | null;
  ts_transit_time_exceeded_at: Date | null;
}

/**
 * TRANSIT_TIME_EXCEEDED (DOMAIN.md, Travel): a trip longer than TRAVEL_MAX_HOURS raises one
 * occurrence at its destination unit, the first time it is seen past the limit: when a command or a
 * read finds it IN_PROGRESS past it, or when it finishes after it. The travel's
 * `ts_transit_time_exceeded_at` is set by a conditional update in the same transaction as the
 * occurrence, so two readers race to one row lock and one occurrence (a unique partial index on
 * occurrence.travel_id holds the same line). A read that finds nothing overdue writes nothing.
 */
export class TransitTime {
  constructor(readonly maxHours: number) {}

  /** The trips among `rows` a read finds under way past the limit and not yet reported. */
  overdue<T extends TimedTravel>(rows: T[], now = new Date()): T[] {
    return rows.filter((r) => r.str_status === 'IN_PROGRESS' && !r.ts_transit_time_exceeded_at && r.ts_start_time && overLimit(new Date(r.ts_start_time), now, this.maxHours));
  }

  /** A read's overdue trips, raised in a short transaction of their own (nothing when none are). */
  async raiseOnRead<T extends TimedTravel>(writer: () => EntityManager, rows: T[]): Promise<void> {
    const now = new Date();
    const due = this.overdue(rows, now);
    if (!due.length) return;
    const marked = await writer().transactional(async (tx) => {
      const raised = await this.raise(tx, null, due.map((r) => r.id), now, true);
      await appendEvents(tx, raised.events);
      return new Set(raised.marked);
    });
    for (const r of due) if (marked.has(r.id)) r.ts_transit_time_exceeded_at = now;
  }

  /**
   * Marks the trips and raises their occurrences inside the caller's transaction: the trips marked,
   * and the events to append (the caller appends them with its own). `underWay`: only trips still IN_PROGRESS past
   * the limit now (a read's rows may have changed since it ran).
   */
  async raise(tx: EntityManager, actorId: string | null, ids: string[], now: Date, underWay: boolean): Promise<{ marked: string[]; events: EventInput[] }> {
    if (!ids.length) return { marked: [], events: [] };
    const limitMs = this.maxHours * 3_600_000;
    const marked = await tx.execute<{ id: string; to_control_unit_id: string; ts_start_time: Date | string }[]>(
      `update travel set ts_transit_time_exceeded_at = ?
        where id = any(array[?]::uuid[]) and ts_transit_time_exceeded_at is null and ts_start_time is not null
          ${underWay ? "and str_status = 'IN_PROGRESS' and ts_start_time < ?" : ''}
        returning id, to_control_unit_id, ts_start_time`,
      underWay ? [now, ids, new Date(now.getTime() - limitMs)] : [now, ids],
    );
    const events = await raiseOccurrences(
      tx,
      actorId,
      marked.map((t) => ({
        str_type: 'TRANSIT_TIME_EXCEEDED',
        control_unit_id: t.to_control_unit_id,
        travel_id: t.id,
        str_description: `the trip has lasted more than the maximum journey time of ${this.maxHours} hour(s)`,
        ts_occurred_at: new Date(new Date(t.ts_start_time).getTime() + limitMs),
      })),
    );
    return {
      marked: marked.map((t) => t.id),
      events: [
        ...marked.map((t): EventInput => ({ type: 'TRAVEL_TRANSIT_TIME_EXCEEDED', recordType: 'Travel', recordId: t.id, actorId, payload: { changes: { ts_transit_time_exceeded_at: now }, refs: { int_max_hours: this.maxHours, to_control_unit_id: t.to_control_unit_id } } })),
        ...events,
      ],
    };
  }

  /** Whether a trip from `start` to `end` is over the limit. */
  exceeded(start: Date, end: Date): boolean {
    return overLimit(start, end, this.maxHours);
  }
}
