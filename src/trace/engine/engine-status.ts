import { Counter, Gauge, type Registry } from 'prom-client';
import type { EngineStatus } from './trace-engine.js';

const STATES = ['loading', 'current', 'stale', 'failed'] as const;

/** The engine's status as `/health` details show it (null: TRACE_GRAPH=false, every trace walks in SQL). */
export function engineHealth(status: EngineStatus | null): Record<string, unknown> {
  if (!status) return { str_state: 'off' };
  return {
    str_state: status.state,
    str_thread: status.thread,
    int_age_seconds: status.loadedAt === null ? null : Math.round((Date.now() - status.loadedAt) / 1000),
    int_stays: status.stays,
    int_bytes: status.bytes,
    num_last_load_seconds: status.lastLoadSeconds === null ? null : Math.round(status.lastLoadSeconds * 1000) / 1000,
    int_loads: status.loads,
    int_load_failures: status.loadFailures,
    int_stale_reloads: status.staleReloads,
    int_checks: status.checks,
    int_mismatches: status.mismatches,
    int_walks: status.walks,
    int_sql_fallbacks: status.fallbacks,
    int_restarts: status.restarts,
    str_last_error: status.lastError,
  };
}

/** The engine's gauges and counters, read when Prometheus scrapes. */
export function engineMetrics(registry: Registry, status: () => EngineStatus | null): void {
  const gauge = (name: string, help: string, value: (s: EngineStatus) => number | null) =>
    new Gauge({ name, help, registers: [registry], collect() {
      const s = status();
      const v = s && value(s);
      if (v === null || v === undefined) this.reset();
      else this.set(v);
    } });
  const counter = (name: string, help: string, value: (s: EngineStatus) => number) =>
    new Counter({ name, help, registers: [registry], collect() {
      this.reset();
      const s = status();
      if (s) this.inc(value(s));
    } });
  new Gauge({ name: 'trace_graph_state', help: "The trace graph's state (1 for the one it is in): loading, current, stale (reloading), failed (waiting to retry)", labelNames: ['state'], registers: [registry], collect() {
    const s = status();
    for (const state of STATES) this.set({ state }, s?.state === state ? 1 : 0);
  } });
  gauge('trace_graph_age_seconds', 'Seconds since the trace graph in use was loaded', (s) => (s.loadedAt === null ? null : (Date.now() - s.loadedAt) / 1000));
  gauge('trace_graph_stays', 'Stays the trace graph holds', (s) => s.stays);
  gauge('trace_graph_bytes', "The trace graph's bytes (records, indexes, uuid tables)", (s) => s.bytes);
  gauge('trace_graph_last_load_seconds', "The trace graph's last full load, seconds", (s) => s.lastLoadSeconds);
  counter('trace_graph_loads_total', 'Full loads of the trace graph that succeeded', (s) => s.loads);
  counter('trace_graph_load_failures_total', 'Full loads of the trace graph that failed (each retried with backoff)', (s) => s.loadFailures);
  counter('trace_graph_stale_reloads_total', "Reloads because the graph's change rows were gone", (s) => s.staleReloads);
  counter('trace_graph_checks_total', 'Comparisons of the trace graph with the database (its fingerprint)', (s) => s.checks);
  counter('trace_graph_mismatches_total', 'Comparisons that found the trace graph differing from the database (each a reload)', (s) => s.mismatches);
  counter('trace_walks_in_memory_total', 'Walks answered from the trace graph (a BOTH question is two)', (s) => s.walks);
  counter('trace_sql_fallbacks_total', 'Traces walked in SQL because the graph was not current or the engine failed', (s) => s.fallbacks);
  counter('trace_engine_restarts_total', "Times the trace engine's thread stopped and was started again", (s) => s.restarts);
}
