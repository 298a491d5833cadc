// The README's SDK example, kept as a file: test/readme-example.test.ts typechecks it, runs it against a
// real server, and checks that README.md shows exactly this code.
import { AuthenticationError, createClient } from "calsync";

const client = createClient({ apiKey: process.env.CALSYNC_API_KEY, baseURL: "http://127.0.0.1:8787" });
try {
  const res = await client.calendars.sync(); // resolves for 200 and 207
  for (const r of res.results) console.log(r.propertyName, r.source, r.result.status, r.result.error?.code ?? "");
} catch (error) {
  if (error instanceof AuthenticationError) console.error(`token refused: ${error.code}`);
  else throw error;
}
