// verifyWebhook (CONTRACT §11): accepts what the Standard Webhooks reference library signs, and refuses a
// changed body, another secret, a stale or future timestamp and missing headers, with WebhookVerificationError.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { CalsyncError, verifyWebhook, WebhookVerificationError, type WebhookEvent } from "../src/sdk/index.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";

const secret = generateWebhookSecret();
const event: WebhookEvent = {
  type: "booking.conflict",
  timestamp: "2031-01-01T08:00:00.000Z",
  data: { propertyId: "prp_1", propertyName: "Loft", from: "2031-02-01", to: "2031-02-03", reservations: [] },
};
const body = JSON.stringify(event);

/** Headers as the reference library signs them, `secondsAgo` before now. */
function signed(payload: string, key = secret, secondsAgo = 0, id = "msg_test1") {
  const at = new Date(Date.now() - secondsAgo * 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(key).sign(id, at, payload),
  };
}

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect(error).toBeInstanceOf(CalsyncError);
  return error as WebhookVerificationError;
}

describe("verifyWebhook", () => {
  it("returns the typed event of a delivery the reference library signed, from a plain object or Headers, string or bytes", async () => {
    const headers = signed(body);
    expect(await verifyWebhook(body, headers, secret)).toEqual(event);
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret)).toEqual(event);
    // Node's req.headers are lower-case; other frameworks keep the case they received.
    const shouting = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect((await verifyWebhook(body, shouting, secret)).type).toBe("booking.conflict");
  });

  it("accepts a secret without its whsec_ prefix, and any matching signature of several", async () => {
    const headers = signed(body);
    expect(await verifyWebhook(body, headers, secret.slice("whsec_".length))).toEqual(event);
    const rotated = { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]} v2,ignored` };
    expect(await verifyWebhook(body, rotated, secret)).toEqual(event);
  });

  it("rejects a changed body", async () => {
    const headers = signed(body);
    const changed = body.replace("2031-02-03", "2031-02-04");
    expect((await refusal(verifyWebhook(changed, headers, secret))).message).toMatch(/no webhook-signature matches/);
    await refusal(verifyWebhook(`${body} `, headers, secret));
  });

  it("rejects a wrong secret", async () => {
    await refusal(verifyWebhook(body, signed(body), generateWebhookSecret()));
    await refusal(verifyWebhook(body, signed(body, generateWebhookSecret()), secret));
  });

  it("rejects a timestamp 6 minutes old or 6 minutes ahead, and accepts 4 minutes", async () => {
    expect((await refusal(verifyWebhook(body, signed(body, secret, 6 * 60), secret))).message).toMatch(/more than 300 s old/);
    expect((await refusal(verifyWebhook(body, signed(body, secret, -6 * 60), secret))).message).toMatch(/in the future/);
    expect(await verifyWebhook(body, signed(body, secret, 4 * 60), secret)).toEqual(event);
    // A clock of its own, e.g. to replay a recorded delivery in a test.
    const old = signed(body, secret, 3600);
    await refusal(verifyWebhook(body, old, secret));
    expect(await verifyWebhook(body, old, secret, { now: () => new Date(Date.now() - 3600_000) })).toEqual(event);
  });

  it("rejects a signature made for another webhook-id or timestamp", async () => {
    const headers = signed(body);
    await refusal(verifyWebhook(body, { ...headers, "webhook-id": "msg_other" }, secret));
    await refusal(verifyWebhook(body, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) }, secret));
  });

  it("rejects missing headers, a malformed timestamp and a secret that is not base64", async () => {
    const headers = signed(body);
    const { "webhook-signature": _signature, ...unsigned } = headers;
    expect((await refusal(verifyWebhook(body, unsigned, secret))).message).toMatch(/missing/);
    await refusal(verifyWebhook(body, { ...headers, "webhook-timestamp": "yesterday" }, secret));
    await refusal(verifyWebhook(body, headers, "whsec_!!!"));
  });
});
