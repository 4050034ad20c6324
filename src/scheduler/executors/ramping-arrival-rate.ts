// ramping-arrival-rate (k6's name): an open loop whose rate follows --stages (or --ramp-up/--ramp-down); --concurrency caps in flight.
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { openLoop } from './open-loop.js';
import { rampingArrivals } from '../ramp-arrivals.js';
import { describeStages, phaseAt } from '../stages.js';

function run(o: ScheduleOptions, send: SendFn): Promise<void> {
  const stages = o.ramp?.stages ?? [];
  return openLoop(rampingArrivals(o.arrival, stages, o.burstiness, o.rng, o), o, send, (at) => phaseAt(stages, at));
}

export const rampingArrivalRate: Executor = {
  kind: 'ramping-arrival-rate',
  openLoop: true,
  run,
  describe: (p) => ({
    kind: 'ramping-arrival-rate',
    start_rate: 0,
    time_unit: '1s',
    stages: describeStages(p.ramp?.stages ?? []),
    arrival: p.arrival,
    ...(p.arrival === 'gamma' ? { burstiness: p.burstiness } : {}),
    max_vus: p.concurrency ?? null,
  }),
};
