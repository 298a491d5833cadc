// The server under test of the stall bench, alone in its process: `startServer` on a database file,
// port 0, parsing on worker threads or (parseThreads 0) on the event loop. Sends its URL over IPC
// and closes when the parent disconnects.
import { startServer } from "../dist/server/index.js";

const { db, parseThreads } = JSON.parse(process.argv[2] ?? "{}");
const server = await startServer({ dbPath: db, host: "127.0.0.1", port: 0, allowPrivateNetworks: true, parseThreads, log: () => {} });
process.send({ type: "ready", url: server.url });
process.once("disconnect", () => void server.close({ graceMs: 1000 }));
