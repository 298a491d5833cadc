// What a fetched body needs once it has arrived: the parser (node-ical and rrule, about 50 ms to load),
// echo detection and the diff. sync.ts imports this module on first use, not at start-up: a CLI sync sends
// its first requests without waiting for the parser, and a re-sync whose feeds all answer 304 never loads it.
export { diffReservationsInSlices } from "./diff.js";
export { markEchoesInSlices } from "./echoes.js";
export { parseFeed } from "./parse-feed.js";
