// Sent as `x-calsync-client: sdk/<version>`; a test keeps it equal to package.json's version.
/** Version of this SDK (the calsync package version). */
export const SDK_VERSION = "0.1.0";
