// Cursor pages (CONTRACT §14 `{data, nextCursor}`), as openai-node's core/pagination.ts: a list call
// returns a PagePromise; `await` it (or `.page()`) for one page, `for await` it for every item of
// every page, the next page fetched only when the loop reaches it.
import type { Page } from "../resource-types.js";
import { CalsyncError } from "./errors.js";

/** Fetches the page that starts at `cursor` (the first page for `undefined`). */
export type FetchPage<T> = (cursor: string | undefined) => Promise<Page<T>>;

/** One page of a list, and the way to the next. `for await` over it yields its items and those of every later page. */
export class CursorPage<T> implements AsyncIterable<T> {
  /** This page's items, in the list's order. */
  readonly data: T[];
  /** Opaque cursor of the next page; `null` on the last page. */
  readonly nextCursor: string | null;
  readonly #fetchPage: FetchPage<T>;
  readonly #cursor: string | undefined;

  constructor(page: Page<T>, fetchPage: FetchPage<T>, cursor: string | undefined) {
    this.data = page.data;
    this.nextCursor = page.nextCursor;
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  /** Whether another page follows this one. */
  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /** Fetches the next page; throws `CalsyncError` on the last page (check `hasNextPage()` first). */
  async getNextPage(): Promise<CursorPage<T>> {
    const cursor = this.nextCursor;
    if (cursor === null) throw new CalsyncError("calsync: this is the last page (nextCursor is null)");
    // A server handing back the cursor it was given would make `for await` loop for ever.
    if (cursor === this.#cursor) throw new CalsyncError("calsync: the server answered the same cursor again");
    return new CursorPage(await this.#fetchPage(cursor), this.#fetchPage, cursor);
  }

  /** This page and every later one, each fetched when the loop asks for it. */
  async *iterPages(): AsyncGenerator<CursorPage<T>, void, undefined> {
    let page: CursorPage<T> = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * What a list call returns. Nothing is fetched until it is awaited or iterated:
 * `await list()` / `list().page()` give the first page, `for await (const x of list())` every item.
 */
export class PagePromise<T> implements PromiseLike<CursorPage<T>>, AsyncIterable<T> {
  readonly #fetchPage: FetchPage<T>;
  readonly #cursor: string | undefined;
  #first: Promise<CursorPage<T>> | undefined;

  constructor(fetchPage: FetchPage<T>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  /** The first page (the one at the `cursor` given to the list call), fetched once. */
  page(): Promise<CursorPage<T>> {
    this.#first ??= this.#fetchPage(this.#cursor).then((page) => new CursorPage(page, this.#fetchPage, this.#cursor));
    return this.#first;
  }

  then<A = CursorPage<T>, B = never>(
    onfulfilled?: ((page: CursorPage<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.page().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<CursorPage<T> | B> {
    return this.page().catch(onrejected);
  }

  /** Every page from the first, each fetched when the loop asks for it. */
  async *iterPages(): AsyncGenerator<CursorPage<T>, void, undefined> {
    yield* (await this.page()).iterPages();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    yield* await this.page();
  }
}
