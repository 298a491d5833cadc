// The webhook receiver of docs/webhooks.md, kept as a file: test/webhook-receiver-example.test.ts typechecks it, runs it
// against `calsync webhook deliver`, and checks that docs/webhooks.md shows exactly this code.
import { createServer } from "node:http";
import { verifyWebhook, WebhookVerificationError } from "calsync";

const secret = process.env.CALSYNC_WEBHOOK_SECRET ?? ""; // the whsec_… that `calsync webhook add` printed
createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk; // the raw body: the signature covers it byte for byte
  try {
    const event = verifyWebhook(body, req.headers, secret);
    if (event.type === "reservation.created") {
      const { propertyName, arrival, departure } = event.data.reservation;
      console.log(`${propertyName}: new stay ${arrival} → ${departure}`);
    }
    res.writeHead(204).end(); // answer 2xx within 10 s; anything else is retried
  } catch (error) {
    res.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
  }
}).listen(Number(process.env.PORT ?? 4000), "127.0.0.1");
