/**
 * A module kept out of the start-up bundle and loaded once, when first needed: `current` is
 * reactive, so a component shows what it can until the module is in. A failed load is
 * asked again by the next caller (a chunk that could not be read is not remembered as absent).
 */
export class LazyModule<T> {
  /** The module once loaded, else null. */
  current: T | null = $state(null);
  #load: Promise<T> | null = null;
  readonly #importer: () => Promise<T>;

  constructor(importer: () => Promise<T>) {
    this.#importer = importer;
  }

  /** Loads the module once; resolves with it. */
  load(): Promise<T> {
    this.#load ??= this.#importer().then(
      (module) => (this.current = module),
      (e: unknown) => {
        this.#load = null;
        throw e;
      },
    );
    return this.#load;
  }
}
