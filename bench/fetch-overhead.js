// What fetchFeed costs on top of a bare `undici.request` for the same feed: CPU per fetch of this process,
// against a loopback server in a process of its own (so its work is not counted), same request headers,
// blocks of each interleaved; medians over the blocks. A 200 with a 20-event body, and a 304.
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { fetchFeed } from "../dist/engine/fetch-feed.js";
import { SDK_VERSION } from "../dist/sdk/version.js";
import { percentile, round } from "./common.js";
import { feedBody } from "./feeds.js";

const ETAG = '"v1"';

/** Median CPU milliseconds per fetch, bare and through fetchFeed, for a 200 and a 304. */
export async function runFetchOverhead({ perBlock = 1000, blocks = 9 } = {}) {
  const server = fork(fileURLToPath(import.meta.url), ["serve"], { stdio: ["ignore", 2, 2, "ipc"] });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  const agent = new Agent();
  try {
    const port = await new Promise((resolve) => server.once("message", resolve));
    const url = `http://127.0.0.1:${port}/feed.ics`;
    const headers = { accept: "text/calendar, */*;q=0.5", "accept-encoding": "gzip, deflate, br", "user-agent": `calsync/${SDK_VERSION}` };
    const bare = async (etag) => {
      const res = await request(url, { dispatcher: agent, headers: etag ? { ...headers, "if-none-match": etag } : headers });
      if (res.statusCode === 304) await res.body.dump();
      else await res.body.text();
    };
    const engine = async (etag) => {
      const result = await fetchFeed(url, { allowPrivateNetworks: true, etag });
      if (result.kind !== (etag ? "not_modified" : "ok")) throw new Error(`fetchFeed answered ${result.kind}`);
    };
    const out = {};
    for (const [name, etag] of [["ok", undefined], ["notModified", ETAG]]) {
      const cpu = { bare: [], engine: [] };
      await block(bare, etag, perBlock);
      await block(engine, etag, perBlock);
      for (let i = 0; i < blocks; i++) {
        cpu.bare.push(await block(bare, etag, perBlock));
        cpu.engine.push(await block(engine, etag, perBlock));
      }
      const bareMs = percentile(cpu.bare, 50);
      const engineMs = percentile(cpu.engine, 50);
      out[name] = { bareMs: round(bareMs, 4), engineMs: round(engineMs, 4), overheadMs: round(engineMs - bareMs, 4) };
    }
    return { perBlock, blocks, ...out };
  } finally {
    server.disconnect();
    await exited;
    await agent.close();
  }
}

/** CPU milliseconds per call of `fetchOnce(etag)`, over `count` calls in a row. */
async function block(fetchOnce, etag, count) {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < count; i++) await fetchOnce(etag);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / count;
}

// The loopback feed server, when this file runs as the forked child: 304 to the right ETag, else the body.
if (process.argv[2] === "serve") {
  const body = feedBody(3, 0);
  const server = http.createServer((req, res) => {
    if (req.headers["if-none-match"] === ETAG) res.writeHead(304, { etag: ETAG }).end();
    else res.writeHead(200, { "content-type": "text/calendar", etag: ETAG, "content-length": Buffer.byteLength(body) }).end(body);
  });
  server.listen(0, "127.0.0.1", () => process.send(server.address().port));
  process.once("disconnect", () => server.close(() => process.exit(0)));
}
