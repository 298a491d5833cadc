// The self-hosting files (CONTRACT §19): the systemd unit passes `systemd-analyze verify` and says what the
// guide promises (its own user, a read-only system, the state directory, restart on failure); the guide's
// proxy snippets pass the flags serve needs behind a proxy.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const unitPath = path.join(root, "deploy/calsync.service");
const unit = readFileSync(unitPath, "utf8");
const hasSystemd = spawnSync("sh", ["-c", "command -v systemd-analyze"]).status === 0;

describe("deploy/calsync.service", () => {
  it.skipIf(!hasSystemd)("passes systemd-analyze verify without a warning", () => {
    // verify warns (exit 0) on a directive it cannot parse: any output about the unit is a defect.
    const result = spawnSync("systemd-analyze", ["verify", unitPath], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((line) => line.includes("calsync.service"))).toEqual([]);
  });

  it("runs as a user of its own on a read-only system, keeps its data in the state directory and restarts on failure", () => {
    const directives = new Map<string, string[]>();
    for (const line of unit.split("\n")) {
      const match = /^(\w+)=(.*)$/.exec(line.trim());
      if (match) directives.set(match[1]!, [...(directives.get(match[1]!) ?? []), match[2]!]);
    }
    const one = (name: string) => directives.get(name)?.at(-1);
    expect(one("DynamicUser")).toBe("yes");
    expect(one("ProtectSystem")).toBe("strict");
    expect(one("StateDirectory")).toBe("calsync");
    expect(one("Restart")).toBe("on-failure");
    expect(one("NoNewPrivileges")).toBe("yes");
    expect(directives.get("Environment")).toContain("CALSYNC_DB=/var/lib/calsync/calsync.db");
    // The stop waits for serve's own grace (30 s) and a little more.
    expect(Number(one("TimeoutStopSec"))).toBeGreaterThan(30);
    expect(one("ExecStart")).toMatch(/calsync serve .*--trust-proxy/);
  });
});

describe("docs/self-hosting.md", () => {
  const guide = readFileSync(path.join(root, "docs/self-hosting.md"), "utf8");

  it("gives Caddy and nginx snippets with serve behind the proxy as it must be (--trust-proxy, --base-url)", () => {
    expect(guide).toMatch(/```caddyfile\n[^`]*reverse_proxy 127\.0\.0\.1:8787/);
    expect(guide).toMatch(/```nginx\n[^`]*proxy_pass http:\/\/127\.0\.0\.1:8787;[^`]*X-Forwarded-Proto/);
    expect(guide).toContain("--trust-proxy");
    expect(guide).toContain("CALSYNC_BASE_URL=");
  });

  it("names only commands and flags calsync has", () => {
    const help = (args: string[]) => execFileSync(process.execPath, [path.join(root, "bin/calsync.js"), ...args, "--help"], { encoding: "utf8" });
    const serveHelp = help(["serve"]);
    for (const flag of new Set(guide.match(/calsync serve[^\n`]*/g)?.join(" ").match(/--[a-z-]+/g) ?? [])) {
      expect(serveHelp, flag).toContain(flag);
    }
    for (const [group, command] of [["db", "backup"], ["db", "restore"]] as const) {
      const text = help([group, command]);
      for (const flag of new Set(guide.match(new RegExp(`calsync ${group} ${command}[^\\n\`]*`, "g"))?.join(" ").match(/--[a-z-]+/g) ?? [])) {
        expect(text, `${group} ${command} ${flag}`).toContain(flag);
      }
    }
  });
});
