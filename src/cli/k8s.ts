// `tokenflood k8s manifest` (the objects of a sharded run) and `tokenflood k8s collect` (its results back), docs/distributed.md.
import { writeFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from '../errors.js';
import { RUN_FLAGS } from '../config/schema.js';
import { addFlags, givenFlags } from '../util/flags.js';
import { resolveRunConfig } from '../config/load.js';
import { MAX_SHARDS } from '../config/shard.js';
import { parseDurationS } from '../util/parse.js';
import { shardStreams } from '../scheduler/shard.js';
import { STREAMS_PER_SHARD_MAX } from '../k8s/resources.js';
import { stripControls } from '../util/terminal-text.js';
import { setExitCode, type Out } from './io.js';
import { described } from './help.js';

/** Run flags the manifest sets itself, or that would put a secret into the ConfigMap. */
const NOT_IN_RUN_FLAGS: Record<string, string> = {
  out: 'the manifest sets it (/results/shard-I)',
  shard: 'the Indexed Job sets it (JOB_COMPLETION_INDEX, TOKENFLOOD_SHARDS)',
  startAt: 'the shards start together after a barrier (all N ready, then --start-margin): see docs/distributed.md',
  config: 'give the options as flags: they become the ConfigMap',
  apiKey: 'it would be written into the ConfigMap: store it in a Secret (key api-key) and give --api-key-secret NAME',
  header: 'header values would be written into the ConfigMap in clear (not supported yet)',
  json: 'the shards write their results to the volume',
  ui: 'a shard cannot serve the live dashboard',
};

const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUANTITY = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/** The run flags after `--`, parsed by the run command's own flag table; an unknown flag is a problem naming it. */
function parseRunFlags(argv: readonly string[], problems: string[]): Record<string, unknown> {
  const cmd = new Command('run').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} }).allowExcessArguments(false);
  cmd.option('--config <file>', 'config file');
  addFlags(cmd, RUN_FLAGS);
  try {
    cmd.parse([...argv], { from: 'user' });
  } catch (e) {
    problems.push(`k8s manifest: run flags: ${e instanceof CommanderError ? e.message.replace(/^error: /, '') : String(e)}`);
    return {};
  }
  const flags = givenFlags(cmd, RUN_FLAGS, problems);
  if (cmd.opts().config !== undefined) flags.config = cmd.opts().config;
  return flags;
}

interface ManifestFlags {
  shards?: string;
  image?: string;
  namespace?: string;
  name: string;
  volumeMode: string;
  startMargin: string;
  barrierTimeout: string;
  deadline: string;
  ttlAfterFinished: string;
  storage: string;
  storageClass?: string;
  accessMode: string;
  apiKeySecret?: string;
  output?: string;
}

async function manifestCommand(o: ManifestFlags, runArgv: string[], out: Out): Promise<void> {
  const problems: string[] = [];
  const n = Number(o.shards);
  if (o.shards === undefined) problems.push('k8s manifest: --shards: give the number of shards N');
  else if (!Number.isInteger(n) || n < 1 || n > MAX_SHARDS) problems.push(`k8s manifest: --shards: expected a whole number from 1 to ${MAX_SHARDS}, got "${o.shards}"`);
  if (!o.image) problems.push('k8s manifest: --image: give the container image that runs tokenflood (docs/distributed.md#the-image)');
  if (!DNS_NAME.test(o.name) || o.name.length > 52) problems.push(`k8s manifest: --name: expected lowercase letters, digits and -, at most 52 characters, got "${o.name.slice(0, 60)}"`);
  if (o.namespace !== undefined && (!DNS_NAME.test(o.namespace) || o.namespace.length > 63)) problems.push(`k8s manifest: --namespace: expected lowercase letters, digits and -, got "${o.namespace.slice(0, 60)}"`);
  if (!QUANTITY.test(o.storage)) problems.push(`k8s manifest: --storage: expected a Kubernetes quantity such as 10Gi, got "${o.storage.slice(0, 40)}"`);
  if (o.accessMode !== 'ReadWriteMany' && o.accessMode !== 'ReadWriteOnce') problems.push(`k8s manifest: --access-mode: expected ReadWriteMany or ReadWriteOnce, got "${o.accessMode}"`);
  if (o.volumeMode !== 'per-shard' && o.volumeMode !== 'shared') problems.push(`k8s manifest: --volume-mode: expected per-shard or shared, got "${o.volumeMode.slice(0, 40)}"`);
  const seconds = (flag: string, v: string, min: number): number => {
    try {
      const x = parseDurationS(v);
      if (Number.isFinite(x) && x >= min && x <= 30 * 86400) return Math.ceil(x);
      problems.push(`k8s manifest: ${flag}: expected a time from ${min} s to 30 days, got "${v.slice(0, 40)}"`);
    } catch (e) {
      problems.push(`k8s manifest: ${flag}: ${(e as Error).message}`);
    }
    return NaN;
  };
  const startMarginS = seconds('--start-margin', o.startMargin, 1);
  const barrierTimeoutS = seconds('--barrier-timeout', o.barrierTimeout, 10);
  const deadlineS = seconds('--deadline', o.deadline, 300);
  const ttlS = seconds('--ttl-after-finished', o.ttlAfterFinished, 0);
  if (deadlineS <= barrierTimeoutS + startMarginS) problems.push(`k8s manifest: --deadline ${o.deadline}: must be longer than --barrier-timeout plus --start-margin (and the run)`);
  const runFlags = parseRunFlags(runArgv, problems);
  for (const [k, why] of Object.entries(NOT_IN_RUN_FLAGS)) if (runFlags[k] !== undefined) problems.push(`k8s manifest: run flag --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${why}`);
  if (runFlags.baseUrl === undefined && runFlags.targets === undefined) problems.push('k8s manifest: run flags: give --base-url (the server under test; the shards would otherwise each start their own embedded server)');
  if (problems.length) throw new UsageError(problems);
  // The run as shard 0 would resolve it: every problem of the run flags, and --shard's own (streams per shard), now, not in the cluster.
  let streams = 1;
  try {
    const { config: c } = resolveRunConfig({ flags: { ...runFlags, shard: `0/${n}` }, env: {} });
    streams = c.concurrency !== undefined ? shardStreams(c.concurrency, { index: 0, count: n }) : Math.ceil(((c.rate ?? 1) / n) * 10);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(e.problems.map((p) => `k8s manifest: run flags: ${p}`));
    throw e;
  }
  if (streams > STREAMS_PER_SHARD_MAX)
    out.err.write(`tokenflood: WARNING: ${streams} streams per shard: above ${STREAMS_PER_SHARD_MAX} one shard's timing error grows fast (docs/performance.md#sizing-shards); use more shards\n`);
  for (const k of ['dataset', 'replay', 'backendConfig', 'targets'] as const)
    if (typeof runFlags[k] === 'string') out.err.write(`tokenflood: note: --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${stripControls(String(runFlags[k]))} must exist at that path inside the container (bake it into the image or mount it)\n`);
  // The k8s module and yaml load only here: start-up of every other command stays without them.
  const { buildManifest, manifestYaml } = await import('../k8s/manifest.js');
  const objs = buildManifest({
    name: o.name,
    namespace: o.namespace,
    image: o.image!,
    shards: n,
    startMarginS,
    barrierTimeoutS,
    deadlineS,
    ttlS,
    volumeMode: o.volumeMode as 'per-shard',
    runFlags,
    streamsPerShard: streams,
    storage: o.storage,
    storageClass: o.storageClass,
    accessMode: o.accessMode as 'ReadWriteMany',
    apiKeySecret: o.apiKeySecret,
  });
  const header = `# tokenflood k8s manifest: ${n} shards, starting ${startMarginS} s after all are ready, ${o.volumeMode} results volume; kubectl apply -f this file (docs/distributed.md)\n`;
  const text = manifestYaml(objs, header);
  if (o.output) {
    writeFileSync(o.output, text);
    out.err.write(`wrote ${o.output}\n`);
  } else out.out.write(text);
}

export function registerK8s(program: Command, out: Out): void {
  const k8s = program.command('k8s').description('run one test as N shards on Kubernetes: generate the manifests, collect the results (docs/distributed.md)');
  k8s
    .command('manifest')
    .description('write the Kubernetes objects of a sharded run: ConfigMap, results PVC, headless Service, Indexed Job of the shards, merge Job; run flags follow --')
    .argument('[run-flags...]', 'the flags of tokenflood run, after --')
    .addOption(described('--shards <n>', 'number of shards N (the Indexed Job\'s completions and parallelism)', 'required'))
    .addOption(described('--image <image>', 'container image with tokenflood (the repository\'s Dockerfile)', 'required'))
    .addOption(described('--namespace <ns>', 'namespace of the objects', 'the one kubectl apply uses'))
    .option('--name <name>', 'prefix of the objects\' names', 'tokenflood')
    .option('--volume-mode <mode>', 'per-shard: each shard writes to its pod\'s emptyDir and the merge pod copies the results onto one ReadWriteOnce claim (any default storage class); shared: one claim all pods mount (needs ReadWriteMany)', 'per-shard')
    .option('--start-margin <time>', 'the run starts this long after all N shards are ready (the barrier): their preparation fits in it', '15s')
    .option('--barrier-timeout <time>', 'no shard starts when not all N are ready by then (pending pods, slow image pulls)', '10m')
    .option('--deadline <time>', 'activeDeadlineSeconds of both Jobs: the merge fails with a message naming the shards it misses instead of waiting forever', '6h')
    .option('--ttl-after-finished <time>', 'ttlSecondsAfterFinished of both Jobs (the results claim stays)', '24h')
    .option('--storage <size>', 'size of the results volume', '10Gi')
    .addOption(described('--storage-class <name>', 'storage class of the results volume', 'the cluster\'s default class'))
    .option('--access-mode <mode>', 'with --volume-mode shared: access mode of the claim, ReadWriteMany (shards on several nodes) or ReadWriteOnce (one node)', 'ReadWriteMany')
    .addOption(described('--api-key-secret <name>', 'name of the Secret whose key api-key becomes TOKENFLOOD_API_KEY in the shards', 'none: no API key'))
    .addOption(described('--output <file>', 'write the YAML to this file', 'stdout'))
    .action((runArgv: string[], o: ManifestFlags) => manifestCommand(o, runArgv, out));
  k8s
    .command('collect')
    .description('copy the results volume (shard-0 … shard-N-1 and merged) to a local directory with kubectl')
    .option('--name <name>', 'prefix the manifest was generated with', 'tokenflood')
    .addOption(described('--namespace <ns>', 'namespace of the run', 'kubectl\'s current namespace'))
    .option('--to <dir>', 'local directory to copy the results into', 'results/k8s')
    .option('--reader-image <image>', 'image of the short-lived pod that mounts the volume (needs tar)', 'busybox:1.36')
    .option('--kubectl <path>', 'kubectl to use', 'kubectl')
    .addOption(new Option('--timeout <seconds>', 'how long to wait for the reader pod').default('120', '120 s'))
    .action(async (o: { name: string; namespace?: string; to: string; readerImage: string; kubectl: string; timeout: string }) => {
      const timeoutS = Number(o.timeout);
      if (!Number.isInteger(timeoutS) || timeoutS < 1) throw new UsageError([`k8s collect: --timeout: expected a whole number of seconds, got "${o.timeout}"`]);
      const { collect } = await import('../k8s/collect.js');
      collect({ name: o.name, namespace: o.namespace, to: o.to, image: o.readerImage, kubectl: o.kubectl, timeoutS }, (line) => out.err.write(`${line}\n`));
      out.err.write(`copied the results volume to ${o.to}\n`);
    });
  registerPodCommands(k8s, out);
  for (const c of k8s.commands) c.exitOverride().configureOutput({ writeOut: (s) => out.out.write(s), writeErr: (s) => out.err.write(s) });
}

const int = (flag: string, v: string, min: number, max: number): number => {
  const x = Number(v);
  if (!Number.isInteger(x) || x < min || x > max) throw new UsageError([`${flag}: expected a whole number from ${min} to ${max}, got "${v.slice(0, 40)}"`]);
  return x;
};
const ms = (flag: string, v: string): number => {
  try {
    return parseDurationS(v) * 1000;
  } catch (e) {
    throw new UsageError([`${flag}: ${(e as Error).message}`]);
  }
};

/** The commands the generated pods run (hidden from help: a user runs `k8s manifest`, the pods run these). */
function registerPodCommands(k8s: Command, out: Out): void {
  k8s
    .command('shard', { hidden: true })
    .description('inside a shard pod: wait until all shards are ready, run the shard, serve its status and results to the merge pod')
    .argument('<run-args...>', 'run and its flags, after --')
    .addOption(described('--index <i>', 'this shard\'s index', 'required').makeOptionMandatory())
    .addOption(described('--shards <n>', 'number of shards', 'required').makeOptionMandatory())
    .addOption(described('--peers <url>', 'base URL of shard {i}', 'required').makeOptionMandatory())
    .addOption(described('--dir <dir>', 'results directory of this shard', 'required').makeOptionMandatory())
    .option('--listen <host:port>', 'address of the coordination server', `0.0.0.0:7070`)
    .option('--start-margin <time>', 'start this long after all are ready', '15s')
    .option('--barrier-timeout <time>', 'give up when not all are ready by then', '10m')
    .option('--linger <time>', 'serve the results this long at most when nobody collects them', '30m')
    .action(async (runArgs: string[], o: { index: string; shards: string; peers: string; dir: string; listen: string; startMargin: string; barrierTimeout: string; linger: string }) => {
      const count = int('--shards', o.shards, 1, MAX_SHARDS);
      const index = int('--index', o.index, 0, count - 1);
      if (runArgs[0] !== 'run') throw new UsageError([`k8s shard: expected "-- run FLAGS...", got "${stripControls(runArgs.join(' ')).slice(0, 60)}"`]);
      const m = /^(.*):(\d+)$/.exec(o.listen);
      if (!m) throw new UsageError([`--listen: expected host:port, got "${o.listen.slice(0, 60)}"`]);
      const { runShardAgent } = await import('../k8s/agent.js');
      const code = await runShardAgent(
        { index, count, peers: o.peers, listenHost: m[1], port: Number(m[2]), dir: o.dir, marginMs: ms('--start-margin', o.startMargin), barrierTimeoutMs: ms('--barrier-timeout', o.barrierTimeout), lingerMs: ms('--linger', o.linger), runArgs },
        (line) => out.err.write(`${stripControls(line)}\n`),
      );
      setExitCode(code);
    });
  k8s
    .command('gather', { hidden: true })
    .description('inside the merge pod: wait for every shard to finish and collect its results; fail naming the shards that failed or never answered')
    .addOption(described('--shards <n>', 'number of shards', 'required').makeOptionMandatory())
    .addOption(described('--peers <url>', 'base URL of shard {i}', 'required').makeOptionMandatory())
    .addOption(described('--to <dir>', 'shard i is (or is copied to) DIR/shard-i', 'required').makeOptionMandatory())
    .option('--copy', 'copy each shard\'s files over HTTP (per-shard volumes)')
    .option('--timeout <time>', 'give up after this long', '6h')
    .option('--lost-after <time>', 'a shard that stopped answering this long has died', '2m')
    .option('--poll <time>', 'how often to ask the shards', '2s')
    .action(async (o: { shards: string; peers: string; to: string; copy?: boolean; timeout: string; lostAfter: string; poll: string }) => {
      const count = int('--shards', o.shards, 1, MAX_SHARDS);
      const { gather } = await import('../k8s/agent.js');
      try {
        await gather({ count, peers: o.peers, to: o.to, copy: !!o.copy, timeoutMs: ms('--timeout', o.timeout), lostAfterMs: ms('--lost-after', o.lostAfter), pollMs: ms('--poll', o.poll) }, (line) => out.err.write(`${stripControls(line)}\n`));
      } catch (e) {
        out.err.write(`tokenflood: k8s gather: ${stripControls((e as Error).message)}\n`);
        setExitCode(1);
      }
    });
}
