// Small helpers the benchmark children share: a throw-away store with seeded owners, the feed host's
// control calls, timing, memory sampling and percentiles.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import { openStore } from "../dist/store/index.js";
import { feedUrl } from "./feed-host.js";
import { CALENDARS_PER_PROPERTY } from "./feeds.js";

/** Opens a store in a fresh temp directory; `dispose()` closes it and removes the directory. */
export async function tempStore() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "calsync-bench-"));
  const store = await openStore(path.join(dir, "bench.db"));
  return {
    store,
    async dispose() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates an owner whose properties have `perProperty` Airbnb calendars each, on feeds
 * `first … first+count−1` of `set` (`first` a multiple of `perProperty`, as feeds.js groups them).
 * Property names sort in feed order, as the engine lists them.
 */
export async function seedOwner(store, { name, origins, set, first = 0, count, perProperty = CALENDARS_PER_PROPERTY }) {
  const owner = await store.createOwner(name);
  const urls = [];
  let property;
  for (let k = 0; k < count; k++) {
    const index = first + k;
    if (k === 0 || index % perProperty === 0) {
      property = await store.createProperty(owner.id, `${name} property ${String(Math.floor(index / perProperty)).padStart(6, "0")}`);
    }
    const url = feedUrl(origins, set, index);
    await store.createCalendar({ propertyId: property.id, url, source: "airbnb" });
    urls.push(url);
  }
  return { ownerId: owner.id, urls };
}

/**
 * Calls the feed host's control endpoint (`/__bench/<action>`) and returns its JSON answer. Through
 * node:http: the global `fetch` would load Node's second copy of undici (about 10 MiB), and undici's own
 * entry the whole package (20 MiB, where the engine loads only its Agent), into a process whose RSS we
 * report as the engine's.
 */
export function hostControl(origins, action, params) {
  const query = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)]));
  return new Promise((resolve, reject) => {
    const req = http.request(`${origins[0]}/__bench/${action}?${query}`, { method: "POST", timeout: 10_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => {
        if (res.statusCode === 200) resolve(JSON.parse(body));
        else reject(new Error(`feed host ${action} answered ${res.statusCode}`));
      });
    });
    req.on("timeout", () => req.destroy(new Error(`feed host ${action} did not answer within 10 s`)));
    req.on("error", reject);
    req.end();
  });
}

/** Runs `work` and returns its value with wall and CPU milliseconds (this process, user + system). */
export async function timed(work) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { value, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * Samples memory every `everyMs`; `mark(label)` notes the RSS at a phase boundary; `stop()` returns
 * the peak (sampled, and the kernel's maxRSS), the usage seen at the sampled peak, and the marks, in MiB.
 */
export function memorySampler(everyMs = 20) {
  let peak = process.memoryUsage();
  const marks = {};
  const sample = () => {
    const now = process.memoryUsage();
    if (now.rss > peak.rss) peak = now;
    return now;
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    mark(label) {
      marks[label] = mib(sample().rss);
    },
    stop() {
      clearInterval(timer);
      sample();
      // Linux reports maxRSS in KiB: the kernel's own high-water mark, which sampling can miss.
      const maxRss = process.resourceUsage().maxRSS * 1024;
      return {
        peakRssMiB: mib(Math.max(peak.rss, maxRss)),
        atPeak: { rss: mib(peak.rss), heapTotal: mib(peak.heapTotal), heapUsed: mib(peak.heapUsed), external: mib(peak.external) },
        marks,
      };
    },
  };
}

/** Bytes → MiB, one decimal. */
export function mib(bytes) {
  return round(bytes / 2 ** 20, 1);
}

/** The p-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** Sums the four counts over the results of a Sync response. */
export function totals(response) {
  const sum = {
    found: 0,
    created: 0,
    updated: 0,
    cancelled: 0,
    failed: response.failed,
    changedCalendars: 0,
    conflicts: response.conflicts?.length ?? 0,
  };
  for (const { result } of response.results) {
    sum.found += result.reservationsFound;
    sum.created += result.reservationsCreated;
    sum.updated += result.reservationsUpdated;
    sum.cancelled += result.reservationsCancelled;
    if (result.reservationsCreated + result.reservationsUpdated + result.reservationsCancelled > 0) sum.changedCalendars++;
  }
  return sum;
}

/** Rounds to `digits` decimals for the report. */
export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
