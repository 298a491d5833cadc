// Entry of one benchmark child process: `node bench/child.js <task> '<json config>'`, forked by run.js.
// Sends `{ type: "result", data }` (or `{ type: "error", message }`) over IPC, then exits.
const [task, configText] = process.argv.slice(2);
const config = JSON.parse(configText ?? "{}");

const tasks = {
  floor: async () => (await import("./floor-task.js")).runFloor(config),
  scale: async () => (await import("./scale.js")).runScale(config),
  scaleSetup: async () => (await import("./scale-setup.js")).runScaleSetup(config),
  server: async () => (await import("./server-load.js")).runServerLoad(config),
  instances: async () => (await import("./instances.js")).runInstances(config),
  cpu: async () => (await import("./cpu.js")).runCpu(config),
  rss: async () => (await import("./rss.js")).runRss(config),
  startup: async () => (await import("./startup.js")).runStartup(config),
  exits: async () => (await import("./exit-loop.js")).runExitLoop(config),
  stall: async () => (await import("./stall.js")).runStall(config),
  fetch: async () => (await import("./fetch-overhead.js")).runFetchOverhead(config),
  resources: async () => (await import("./resources.js")).runResources(config),
  turnovers: async () => (await import("./turnovers.js")).runTurnovers(config),
  cliSync: async () => (await import("./cli-sync.js")).runCliSync(config),
  channels: async () => (await import("./channel-reads.js")).runChannelReads(config),
  backup: async () => (await import("./backup.js")).runBackup(config),
};

try {
  const run = tasks[task];
  if (!run) throw new Error(`unknown bench task "${task}"`);
  const data = await run();
  await send({ type: "result", data });
} catch (error) {
  await send({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
// Nothing may keep a finished child alive (an unref'd timer, a pooled socket): the parent waits on exit.
process.disconnect?.();
setTimeout(() => process.exit(), 200).unref();

function send(message) {
  return new Promise((resolve) => {
    if (!process.send) {
      process.stdout.write(`${JSON.stringify(message, null, 2)}\n`);
      resolve();
    } else process.send(message, () => resolve());
  });
}
