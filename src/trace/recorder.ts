/**
 * Connects an engine's observation streams to trace sinks through a filter.
 *
 * Subscribing is what turns tracing on: the engine builds no record for a stream nobody
 * subscribes to (DESIGN.md §4), so a run without a recorder pays nothing for tracing.
 */
import type { Subscription } from 'rxjs';
import type { Engine } from '../sim/engine.ts';
import type { MetaRecord, TraceRecord } from './records.ts';
import { TraceFilter, type TraceFilterOptions, type TraceSink } from './sinks.ts';

/** What to record. */
export interface RecorderOptions extends TraceFilterOptions {
  /** Record port occupancy counters (default true). */
  occupancy?: boolean;
  /** Record spans (default true). */
  spans?: boolean;
}

/** Records an engine's activity into sinks until {@link TraceRecorder.close}. */
export class TraceRecorder {
  private readonly subs: Subscription[] = [];
  private readonly sinks: readonly TraceSink[];
  private readonly filter: TraceFilter;
  private closed = false;
  /** The engine whose observation scope this recorder set (cleared on close). */
  private scopedEngine: Engine | null = null;

  /** @param scenarioName written in the meta record */
  constructor(engine: Engine, sinks: readonly TraceSink[], scenarioName: string, options: RecorderOptions = {}) {
    this.sinks = sinks;
    this.filter = new TraceFilter(options);
    const meta: MetaRecord = {
      t: 'meta',
      format: 'warpstate-trace',
      version: 1,
      scenario: scenarioName,
      seed: engine.seed,
      clocks: engine.allClocks().map((c) => ({ name: c.name, hz: c.frequencyHz })),
      units: engine.unitNames().map((name) => ({ name, kind: engine.unitKind(name), clock: engine.unit(name).clock.name })),
    };
    this.emit(meta);
    // A unit filter also scopes what the engine builds: other units make no span or occupancy record.
    if (this.filter.unitFiltered && (options.spans ?? true) && (options.occupancy ?? true)) {
      engine.setObservationScope((name) => this.filter.acceptsUnit(name));
      this.scopedEngine = engine;
    }
    this.subs.push(
      engine.delivered$.subscribe((m) => {
        // Out of the unit filter: drop before building the record.
        if (!this.filter.acceptsUnit(m.src) && !this.filter.acceptsUnit(m.dst)) return;
        this.emit({
          t: 'msg',
          id: m.id,
          kind: m.kind,
          src: m.src,
          srcPort: m.srcPort,
          dst: m.dst,
          dstPort: m.dstPort,
          send: m.sendTime,
          deliver: m.deliverTime,
          replyTo: m.replyTo,
          bytes: m.bytes,
          payload: m.payload ?? null,
        });
      }),
    );
    this.subs.push(engine.stateChanges$.subscribe((s) => this.emit({ t: 'state', time: s.time, unit: s.unit, value: s.value })));
    if (options.spans ?? true) {
      this.subs.push(
        engine.spans$.subscribe((s) => {
          if (!this.filter.acceptsUnit(s.unit)) return;
          this.emit({
            t: 'span',
            unit: s.unit,
            name: s.name,
            start: s.start,
            end: s.end,
            msgId: s.msgId,
            ...(s.reason !== undefined ? { reason: s.reason } : {}),
            ...(s.tags !== undefined ? { tags: s.tags } : {}),
          });
        }),
      );
    }
    if (options.occupancy ?? true) {
      this.subs.push(
        engine.occupancy$.subscribe((o) => {
          if (this.filter.acceptsUnit(o.port)) this.emit({ t: 'counter', time: o.time, name: o.port, value: o.value });
        }),
      );
    }
    this.subs.push(
      engine.samples$.subscribe((s) => {
        for (const [name, value] of Object.entries(s.values)) this.emit({ t: 'counter', time: s.time, name, value });
      }),
    );
  }

  private emit(rec: TraceRecord): void {
    if (!this.filter.accepts(rec)) return;
    for (const sink of this.sinks) sink.write(rec);
  }

  /** Unsubscribes and closes every sink (flushing files). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.scopedEngine?.setObservationScope(null);
    for (const s of this.subs) s.unsubscribe();
    for (const sink of this.sinks) sink.close();
  }
}
