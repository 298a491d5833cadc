// API v1's resources as functions (CONTRACT §14): the API routes, the CLI's local mode and the dashboard call
// these, over the same store, so every door reads and writes the record the same way.
export { createDirectStay, updateDirectStay, cancelDirectStay, refreshProperty, requestHash, IDEMPOTENCY_TTL_MS } from "./direct-stays.js";
export type { ResourceContext, IdempotencyInput } from "./direct-stays.js";
export { listProperties, retrieveProperty, listReservations, propertyAvailability, type QueryValues } from "./reads.js";
export { failureBody, stayAnswer, type ResourceFailure, type ResourceResult, type StayResult } from "./answers.js";
export { MAX_AVAILABILITY_NIGHTS, MAX_STAY_NIGHTS, MAX_LIMIT, DEFAULT_LIMIT } from "./validate.js";
export { propertyChannels, channelsOf, type ChannelsInput } from "./channels.js";
export { updateProperty } from "./property-update.js";
export { readPropertyChanges, readCleanerEmails, timeProblem, MAX_BUFFER_NIGHTS, MAX_CLEANER_EMAILS } from "./property-settings.js";
export { listTurnovers, DEFAULT_TURNOVER_DAYS, MAX_TURNOVER_DAYS } from "./turnovers.js";
