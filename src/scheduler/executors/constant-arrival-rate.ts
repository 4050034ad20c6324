// constant-arrival-rate (k6's name): an open loop at --rate requests/s, send times from --arrival; --concurrency caps in flight (maxVUs).
import type { Executor, ScheduleOptions, SendFn } from './types.js';
import { openLoopArrivals } from '../arrivals.js';
import { openLoop } from './open-loop.js';

// The measured phase is the rest of the schedule, ended by --requests or --duration (measured from the first
// measured send), whichever comes first. Send times are generated one at a time, so memory does not grow with the
// length of the schedule.
const run = (o: ScheduleOptions, send: SendFn): Promise<void> => {
  const ctl = o.control;
  const rate = ctl ? () => ctl.current.rate ?? o.rate ?? 1 : (o.rate ?? 1);
  return openLoop(openLoopArrivals(o.arrival, rate, o.burstiness, o.rng, o), o, send);
};

export const constantArrivalRate: Executor = {
  kind: 'constant-arrival-rate',
  openLoop: true,
  liveKnob: 'rate',
  run,
  describe: (p) => ({
    kind: 'constant-arrival-rate',
    rate: p.rate ?? 1,
    arrival: p.arrival,
    ...(p.arrival === 'gamma' ? { burstiness: p.burstiness } : {}),
    max_vus: p.concurrency ?? null,
  }),
};
