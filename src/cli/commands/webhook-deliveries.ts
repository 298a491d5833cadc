// `calsync webhook deliveries` (what was sent, what is still to be sent) and `calsync webhook deliver`
// (send what is due now and exit: for cron, when no `calsync serve` runs to deliver).
import { InvalidArgumentError, Option, type Command } from "@commander-js/extra-typings";
import type { WebhookDelivery } from "../../store/types.js";
import { CliFailure, EXIT, type CliContext } from "../context.js";
import { allowPrivateNetworksOption, dbOption, jsonOption, ownerOption, privateNetworksAllowed } from "../options.js";
import { plural, stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable, formatTime } from "../table.js";

/** The JSON shape of a delivery; `eventId` is the `webhook-id` the receiver saw. */
export function deliveryJson(delivery: WebhookDelivery) {
  const { eventId, type, status, attempts, createdAt, lastAttemptAt, nextAttemptAt, lastStatus, lastError } = delivery;
  return { eventId, webhookId: delivery.endpointId, type, status, attempts, createdAt, lastAttemptAt, nextAttemptAt, lastStatus, lastError };
}

/** Adds `deliveries` and `deliver` to the `webhook` group. */
export function addWebhookDeliveryCommands(webhook: Command<any, any, any>, context: CliContext): void {
  webhook
    .command("deliveries")
    .description("List recent deliveries, newest event first: status, attempts, the last answer and the next try")
    .option("--webhook <id>", "only this endpoint's deliveries")
    .addOption(ownerOption("only this owner's deliveries (id or name; default: every owner)"))
    .addOption(new Option("--limit <n>", "at most this many (default 100)").argParser(parseLimit))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const store = await context.store(options.db);
      if (options.webhook !== undefined && !(await store.getWebhookEndpoint(options.webhook))) {
        throw new CliFailure(`no webhook "${options.webhook}" (see: calsync webhook list)`, EXIT.failure);
      }
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const deliveries = await store.listWebhookDeliveries({ ownerId, endpointId: options.webhook, limit: options.limit ?? 100 });
      if (options.json) return writeJson(context, deliveries.map(deliveryJson));
      if (deliveries.length === 0) return context.logger.info("No deliveries yet: events appear after a sync, for the types an endpoint subscribes to.");
      const paint = stdoutPaint(context);
      const rows = deliveries.map((d) => [
        d.eventId,
        d.type,
        d.endpointId,
        d.status === "delivered" ? paint("green", d.status) : d.status === "failed" ? paint("red", d.status) : d.status,
        String(d.attempts),
        formatTime(d.lastAttemptAt),
        formatTime(d.nextAttemptAt),
        d.lastError ?? "",
      ]);
      const headers = ["EVENT", "TYPE", "WEBHOOK", "STATUS", "ATTEMPTS", "LAST ATTEMPT", "NEXT ATTEMPT", "LAST ERROR"];
      writeText(context, formatTable(headers.map((header) => ({ header })), rows, paint));
    });

  webhook
    .command("deliver")
    .description("Send every webhook delivery that is due now, then exit (for cron, without `calsync serve`)")
    .addOption(allowPrivateNetworksOption("webhook URLs"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText(
      "after",
      "\nA failed attempt is retried by a later run once its wait is over (5 s, 1 min, 10 min, … for more than a day).\n" +
        "Exit codes: 0 every attempt delivered (or nothing was due), 3 some attempts failed.\n" +
        "Example (crontab): * * * * * calsync sync --local --owner Ann && calsync webhook deliver",
    )
    .action(async (options) => {
      const store = await context.store(options.db);
      // The HTTP client and the signing library load only for the command that sends.
      const { deliverDueWebhooks } = await import("../../server/webhooks/worker.js");
      const summary = await deliverDueWebhooks({
        store,
        allowPrivateNetworks: privateNetworksAllowed(options.allowPrivateNetworks, context.io.env),
        onAttempt: (attempt) => {
          if (!attempt.delivered) context.logger.warn(`${attempt.eventId} → ${attempt.endpointId}: ${attempt.error ?? "failed"}`);
        },
      });
      if (options.json) writeJson(context, summary);
      else {
        const { attempted, delivered, retrying, failed } = summary;
        writeText(context, `${plural(attempted, "attempt", "attempts")}: ${delivered} delivered, ${retrying} to retry, ${failed} failed for good`);
      }
      context.exitCode = summary.retrying + summary.failed > 0 ? EXIT.partial : EXIT.ok;
    });
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 10_000) throw new InvalidArgumentError("expected a whole number from 1 to 10000");
  return n;
}
