// Client self-health: was the load generator itself the bottleneck? Event-loop delay, CPU, send lag, drops.
import { availableParallelism } from 'node:os';
import type { MediaClient } from './media.js';
import { createHistogram, monitorEventLoopDelay, type RecordableHistogram } from 'node:perf_hooks';

export interface HealthQuantiles {
  p50: number;
  p99: number;
  max: number;
}

export interface ClientHealth {
  /** How late the event loop ran a timer: the time the client could not react to a socket; max = the longest single stall. */
  event_loop_delay_ms: HealthQuantiles;
  /**
   * The part of each timer's lateness during which the event loop was busy with the client's own code and the process
   * was running (min of lateness, loop active time and process CPU time in that gap): the delay the client caused itself. The rest of event_loop_delay_ms is the host's scheduling (steal,
   * other processes). Absent in summaries written before issue 25.
   */
  own_delay_ms?: HealthQuantiles;
  /** Timer lateness the host caused while the loop was idle, sampled for IDLE_FLOOR_MS before the run clock started: the noise floor. */
  idle_floor_ms?: HealthQuantiles | null;
  /** Process CPU (user + system) over the monitored wall time: of one core (100 = one core busy) and of the machine. */
  cpu_percent: { one_core: number; machine: number };
  /** sent_at − scheduled_at per request, as fed by recordSendLag. */
  send_lag_ms: HealthQuantiles & { count: number };
  /** Open-loop sends that could not go out on time (fed by recordDropped). */
  dropped: number;
  /** True when any threshold below was crossed: latencies may include time spent inside the client. */
  client_bound: boolean;
  /** One plain sentence per crossed threshold. */
  reasons: string[];
  /** Runs with media (summary.json only): the client's media cost, the same object as summary.media.client (docs/metrics.md#images-video-and-audio). */
  media?: MediaClient;
}

/**
 * When the client counts as the bottleneck. A single event-loop stall over 100 ms (a long synchronous task:
 * a token count, a GC pause, a big JSON) delays every stream open at that moment, which a p99 can hide in a
 * long run. Event-loop delay and send lag above 10 ms are already visible in
 * TTFT/ITL of a fast server; one core above 90% means the single JS thread had no headroom left; more than 1%
 * of open-loop sends dropped means the offered load was not what was asked. The CPU rule needs ≥ 1 s of data.
 *
 * The two event-loop rules judge the client's own delay, not the host's (issue 25): a timer is also late when the
 * OS does not schedule the process (vCPU steal, other processes on a shared machine), and a client using 5% of a
 * core is not saturated. So the p99 rule needs the delay above the idle floor measured before the run AND the
 * client's own share (own_delay_ms) over the threshold; the stall rule needs the stall to have been spent in the client's own code;
 * the send-lag rule counts only the lag beyond the host's share of the delay (max(idle floor, p99 delay − own p99)).
 * Without own_delay_ms (an old summary), a client below busyCpuOneCorePercent per thread counts as idle for the p99.
 */
export const HEALTH_THRESHOLDS = {
  eventLoopDelayP99Ms: 10,
  eventLoopStallMs: 100,
  sendLagP99Ms: 10,
  cpuOneCorePercent: 90,
  droppedFraction: 0.01,
  minCpuWindowMs: 1000,
  busyCpuOneCorePercent: 50,
} as const;

/** How long the idle client samples its event-loop delay before the run clock starts (the host's noise floor). */
export const IDLE_FLOOR_MS = 250;

export interface HealthMonitor {
  /** Call once per request: sent_at_ms − scheduled_at_ms. */
  recordSendLag(ms: number): void;
  /** Call once per open-loop send that could not go out on time. */
  recordDropped(): void;
  /** Stop sampling and judge the run. Idempotent. */
  stop(): ClientHealth;
}

/** Timer period of the event-loop delay sampler: 100 wake-ups per second, negligible cost. */
const ELD_RESOLUTION_MS = 10;
const NS_PER_MS = 1e6;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Quantiles of a ns histogram in ms, minus a fixed offset (the sampler's own period), floored at 0. */
function quantilesMs(h: { count: number; percentile(p: number): number; max: number }, offsetMs: number): HealthQuantiles {
  if (h.count === 0) return { p50: 0, p99: 0, max: 0 };
  const ms = (ns: number) => round3(Math.max(0, ns / NS_PER_MS - offsetMs));
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

/**
 * The rules applied to one run's measurements; pure, so the thresholds are testable without a clock.
 * `threads` = JS threads doing request work (worker threads): process CPU is judged against that many cores.
 */
export function judgeHealth(h: Omit<ClientHealth, 'client_bound' | 'reasons'>, windowMs: number, threads = 1): ClientHealth {
  const t = HEALTH_THRESHOLDS;
  const reasons: string[] = [];
  const eld = h.event_loop_delay_ms;
  const floor = h.idle_floor_ms?.p99 ?? 0;
  // The client's own share of the delay, measured per timer tick. Without it (old data): the p99 counts only when the
  // client was busy, and a single stall counts as the client's (a synchronous task blocks the loop at any CPU).
  const busy = h.cpu_percent.one_core >= t.busyCpuOneCorePercent * threads;
  const ownP99 = h.own_delay_ms?.p99 ?? (busy ? eld.p99 : 0);
  const ownMax = h.own_delay_ms?.max ?? eld.max;
  if (eld.p99 - floor > t.eventLoopDelayP99Ms && ownP99 > t.eventLoopDelayP99Ms)
    reasons.push(
      `the client's event loop was blocked: p99 delay ${eld.p99} ms > ${t.eventLoopDelayP99Ms} ms${floor > 0 ? ` above the idle floor of ${floor} ms` : ''} (${ownP99} ms of it the client's own work), so measured times may include waiting inside the client`,
    );
  if (eld.max > t.eventLoopStallMs && ownMax > t.eventLoopStallMs)
    reasons.push(
      `the client's event loop stalled for ${eld.max} ms at once (> ${t.eventLoopStallMs} ms): requests in flight then were measured late`,
    );
  // Send lag is judged the same way: a send is late by as much as any timer when the host does not run the process, so
  // only the lag beyond the host's share of the loop delay (the delay that was not the client's own work, at least the
  // idle floor) counts. Without the per-tick split (old data) the whole lag counts.
  const hostDelay = h.own_delay_ms ? Math.max(floor, eld.p99 - h.own_delay_ms.p99) : 0;
  if (h.send_lag_ms.count > 0 && h.send_lag_ms.p99 - hostDelay > t.sendLagP99Ms)
    reasons.push(
      `requests went out late: p99 send lag ${h.send_lag_ms.p99} ms > ${t.sendLagP99Ms} ms behind the schedule${hostDelay > 0 ? ` beyond the host's own ${round3(hostDelay)} ms of timer lateness` : ''}`,
    );
  const cpuLimit = t.cpuOneCorePercent * threads;
  if (windowMs >= t.minCpuWindowMs && h.cpu_percent.one_core > cpuLimit)
    reasons.push(
      threads === 1
        ? `the client used ${h.cpu_percent.one_core}% of one core (> ${cpuLimit}%): its single thread had no headroom`
        : `the client used ${h.cpu_percent.one_core}% of one core (> ${cpuLimit}% for ${threads} threads): its threads had no headroom`,
    );
  const attempts = h.send_lag_ms.count + h.dropped;
  if (h.dropped > 0 && h.dropped > t.droppedFraction * attempts)
    reasons.push(`${h.dropped} of ${attempts} scheduled sends could not go out on time (> ${t.droppedFraction * 100}%)`);
  return { ...h, client_bound: reasons.length > 0, reasons };
}

/**
 * Sample, for `ms` before the run clock starts, how late a timer runs while the loop itself is idle: the host's
 * scheduling noise on this machine right now (the host part of the probe below, so client work that happens to run
 * then does not raise it). A run's delay is judged above this floor.
 */
export async function measureIdleFloor(ms = IDLE_FLOOR_MS): Promise<HealthQuantiles> {
  const probe = startDelayProbe();
  await new Promise((r) => setTimeout(r, ms));
  return probe.stop().host;
}

/**
 * A JS timer every ELD_RESOLUTION_MS that splits each tick's lateness into the client's own part and the host's.
 * Own = min(lateness, the loop's active time in the gap, the process's CPU time in the gap): the loop was busy
 * (performance.eventLoopUtilization: outside its poll wait) AND the process was running, i.e. time the client's own
 * work held the timer back, which it would also have on a quiet machine. Host = the rest: the loop sat idle although
 * the timer was due, or its code was descheduled mid-callback (steal, other processes on a shared machine). Unref'd.
 */
function startDelayProbe(): { stop(): { own: HealthQuantiles; host: HealthQuantiles } } {
  const own: RecordableHistogram = createHistogram();
  const host: RecordableHistogram = createHistogram();
  let last = performance.now();
  let elu = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  const ns = (ms: number) => Math.max(1, Math.round(ms * NS_PER_MS));
  const timer = setInterval(() => {
    const t = performance.now();
    const e = performance.eventLoopUtilization();
    const c = process.cpuUsage();
    const lateMs = Math.max(0, t - last - ELD_RESOLUTION_MS);
    const cpuMs = (c.user - cpu.user + c.system - cpu.system) / 1000;
    const ownMs = Math.max(0, Math.min(lateMs, e.active - elu.active, cpuMs));
    last = t;
    elu = e;
    cpu = c;
    own.record(ns(ownMs));
    host.record(ns(lateMs - ownMs));
  }, ELD_RESOLUTION_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return { own: quantilesMs(own, 0), host: quantilesMs(host, 0) };
    },
  };
}

/**
 * The own share as reported: the probe's own quantiles, each at most the event-loop delay's. The two come from different
 * timers (libuv's delay histogram, the probe's interval), so the probe's own p99 could read above the total p99 that
 * monitorEventLoopDelay measured; the client's share of a delay cannot exceed the delay itself.
 */
export function ownShare(own: HealthQuantiles, delay: HealthQuantiles): HealthQuantiles {
  return { p50: Math.min(own.p50, delay.p50), p99: Math.min(own.p99, delay.p99), max: Math.min(own.max, delay.max) };
}

/**
 * Start sampling now. `now` is the run clock in ms (only differences are used). Event-loop delay is that of the
 * calling thread; CPU is the whole process's, judged against `threads` cores.
 */
export function startHealthMonitor(now: () => number, opts: { threads?: number; idleFloor?: HealthQuantiles | null } = {}): HealthMonitor {
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  eld.enable();
  const probe = startDelayProbe();
  // Send lag in ns; values below 1 ns (on time or early) are recorded as 1.
  const lag: RecordableHistogram = createHistogram();
  let dropped = 0;
  const t0 = now();
  const cpu0 = process.cpuUsage();
  let result: ClientHealth | undefined;
  return {
    recordSendLag(ms: number): void {
      lag.record(ms > 0 ? Math.max(1, Math.round(ms * NS_PER_MS)) : 1);
    },
    recordDropped(): void {
      dropped++;
    },
    stop(): ClientHealth {
      if (result) return result;
      eld.disable();
      const ownDelay = probe.stop().own;
      const windowMs = Math.max(now() - t0, 1e-9);
      const c = process.cpuUsage(cpu0);
      const oneCore = ((c.user + c.system) / 1000 / windowMs) * 100;
      const delay = quantilesMs(eld, ELD_RESOLUTION_MS);
      result = judgeHealth(
        {
          event_loop_delay_ms: delay,
          own_delay_ms: ownShare(ownDelay, delay),
          idle_floor_ms: opts.idleFloor ?? null,
          cpu_percent: { one_core: round1(oneCore), machine: round1(oneCore / availableParallelism()) },
          send_lag_ms: { ...quantilesMs(lag, 0), count: lag.count },
          dropped,
        },
        windowMs,
        opts.threads ?? 1,
      );
      return result;
    },
  };
}
