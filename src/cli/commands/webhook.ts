// `calsync webhook add|list|remove`: an owner's webhook endpoints (CONTRACT §11). The signing secret is shown
// once, when the endpoint is added; `deliveries` and `deliver` are in webhook-deliveries.ts.
import { Command, Option } from "@commander-js/extra-typings";
import { maskUrl } from "../../engine/mask-url.js";
import { ipLiteralOf, isBlockedAddress } from "../../engine/network-guard.js";
import { checkWebhookUrl, generateWebhookSecret, parseWebhookEvents } from "../../server/webhooks/endpoint-rules.js";
import type { WebhookEndpoint } from "../../store/types.js";
import { WEBHOOK_EVENT_TYPES } from "../../types.js";
import { CliFailure, EXIT, UsageError, type CliContext } from "../context.js";
import { allowPrivateNetworksOption, dbOption, jsonOption, ownerOption, privateNetworksAllowed } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable, formatTime } from "../table.js";
import { addWebhookDeliveryCommands } from "./webhook-deliveries.js";

/** The JSON shape of an endpoint in listings: never its secret; the URL masked, as it may hold the receiver's token. */
export function webhookJson(endpoint: WebhookEndpoint) {
  const { id, ownerId, events, createdAt } = endpoint;
  return { id, ownerId, url: maskUrl(endpoint.url), events, createdAt };
}

/** Builds the `webhook` command group. */
export function webhookCommand(context: CliContext) {
  const webhook = new Command("webhook").description("Tell your own systems what changed: webhook endpoints and their deliveries");

  webhook
    .command("add")
    .description("Add an endpoint that receives signed events; its secret is printed once")
    .requiredOption("--url <url>", "where to POST events (https://…)")
    .addOption(new Option("--events <types>", `comma-separated event types (default: all): ${WEBHOOK_EVENT_TYPES.join(", ")}`))
    .addOption(ownerOption())
    .addOption(allowPrivateNetworksOption("webhook URLs"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText(
      "after",
      "\nEvery delivery carries webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks):\n" +
        "verify it with verifyWebhook() from the calsync SDK, or any Standard Webhooks library.\n" +
        "A URL whose host is a loopback, private or link-local address is refused (exit 1) unless private networks\n" +
        "are allowed; the server (or `webhook deliver`) needs --allow-private-networks to reach it too.\n" +
        "Example:\n  calsync webhook add --url https://example.com/calsync --events reservation.created,reservation.cancelled",
    )
    .action(async (options) => {
      if (options.events !== undefined && options.events.trim() === "") throw new UsageError("--events is empty: leave it out for every type");
      const events = parseWebhookEvents(options.events === undefined ? [] : [options.events]);
      if (!events.ok) throw new UsageError(`--events: ${events.message}`);
      const allowed = privateNetworksAllowed(options.allowPrivateNetworks, context.io.env);
      const checked = checkWebhookUrl(options.url, allowed);
      if (!checked.ok && checked.code === "bad_url") throw new UsageError(`--url: ${checked.message}`);
      if (!checked.ok) throw new CliFailure(`${checked.code}: ${checked.message}`, EXIT.failure);
      const store = await context.store(options.db);
      const owner = await context.owner(store, options.owner);
      const endpoint = await store.createWebhookEndpoint({ ownerId: owner.id, url: checked.url, events: events.events, secret: generateWebhookSecret() });
      if (plainHttpToPublicHost(checked.url)) {
        context.logger.warn("The URL uses http://: events travel unencrypted (their signature still proves they come from calsync).");
      }
      if (options.json) {
        return writeJson(context, { id: endpoint.id, url: maskUrl(endpoint.url), events: endpoint.events, secret: endpoint.secret });
      }
      // Only the secret on stdout, so `SECRET=$(calsync webhook add …)` works; the rest goes to stderr.
      writeText(context, endpoint.secret);
      context.logger.warn(
        `Webhook ${endpoint.id} for ${owner.name}: ${maskUrl(endpoint.url)} (${endpoint.events.join(", ")}). ` +
          "Copy the secret now: it will not be shown again.",
      );
    });

  webhook
    .command("list")
    .description("List webhook endpoints (URLs masked, never their secrets)")
    .addOption(ownerOption("only this owner's endpoints (id or name; default: every owner)"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const store = await context.store(options.db);
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const endpoints = await store.listWebhookEndpoints(ownerId);
      if (options.json) return writeJson(context, endpoints.map(webhookJson));
      if (endpoints.length === 0) return context.logger.info("No webhooks yet. Add one with: calsync webhook add --url URL");
      const owners = new Map((await store.listOwners()).map((o) => [o.id, o.name]));
      const rows = endpoints.map((e) => [e.id, owners.get(e.ownerId) ?? e.ownerId, maskUrl(e.url), e.events.join(","), formatTime(e.createdAt)]);
      const headers = ["ID", "OWNER", "URL", "EVENTS", "CREATED"];
      writeText(context, formatTable(headers.map((header) => ({ header })), rows, stdoutPaint(context)));
    });

  webhook
    .command("remove")
    .description("Remove a webhook endpoint; deliveries still pending for it are dropped")
    .argument("<id>", "webhook id (see: calsync webhook list)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (id, options) => {
      const store = await context.store(options.db);
      const endpoint = await store.getWebhookEndpoint(id);
      if (!endpoint || !(await store.removeWebhookEndpoint(id))) throw new CliFailure(`no webhook "${id}" (see: calsync webhook list)`, EXIT.failure);
      if (options.json) return writeJson(context, webhookJson(endpoint));
      writeText(context, `Removed webhook ${endpoint.id} (${maskUrl(endpoint.url)}).`);
    });

  addWebhookDeliveryCommands(webhook, context);
  return webhook;
}

// Loopback and private receivers (tests, a local tunnel) are not worth a warning; the public internet is.
function plainHttpToPublicHost(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol !== "http:") return false;
  const literal = ipLiteralOf(hostname);
  return literal ? !isBlockedAddress(literal) : hostname !== "localhost";
}
