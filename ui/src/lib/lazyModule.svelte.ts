/**
 * A module kept out of the start-up bundle and loaded once, when first needed: `current` is
 * reactive, so a component shows what it can until the module is in. A failed load is
 * remembered in `failed` (for the view to offer a retry) and asked again by the next caller:
 * a chunk that could not be read is not remembered as absent.
 */
export class LazyModule<T> {
  /** The module once loaded, else null. */
  current: T | null = $state(null);
  /** Whether the last load failed (cleared when a load starts again). */
  failed = $state(false);
  #load: Promise<T> | null = null;
  readonly #importer: () => Promise<T>;

  constructor(importer: () => Promise<T>) {
    this.#importer = importer;
  }

  /** Loads the module once; resolves with it. */
  load(): Promise<T> {
    if (!this.#load) {
      this.failed = false;
      this.#load = this.#importer().then(
        (module) => (this.current = module),
        (e: unknown) => {
          this.#load = null;
          this.failed = true;
          throw e;
        },
      );
    }
    return this.#load;
  }
}
