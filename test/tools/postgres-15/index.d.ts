/** Where the PostgreSQL 15 binaries are (`initdb`, `postgres`), or null where npm left the optional package out. */
export declare function postgres15BinDir(): string | null;
