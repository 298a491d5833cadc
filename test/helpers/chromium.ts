// Headless Chromium for the dashboard's browser tests: Debian's `chromium` driven by playwright-core.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** The Chromium binary: `$CALSYNC_CHROMIUM`, else `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CALSYNC_CHROMIUM || "/usr/bin/chromium";

/** True when the binary is there; browser tests are skipped otherwise. */
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

/** The one line a run without Chromium prints. */
export const SKIP_NOTE =
  `browser tests skipped: no Chromium at ${CHROMIUM_PATH} ` +
  "(install it with `apt-get install -y chromium`, or set CALSYNC_CHROMIUM to a Chromium binary)";

/** Launches headless Chromium with the flags a CI container needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}
