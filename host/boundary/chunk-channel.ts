/**
 * Hands a stream's chunks from the operation (the producer) to the consumer's iterator, one
 * at a time: a chunk is handed over when the consumer asks for one, and the producer waits
 * until then, so a slow consumer slows the stream down and nothing piles up in between.
 */
export class ChunkChannel<T> {
  private offered: { item: T; taken: (yes: boolean) => void } | undefined;
  private asking: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void } | undefined;
  private ending: { error: unknown } | "done" | undefined;
  private closed = false;

  /** Offers a chunk; resolves true once the consumer has it, false if the consumer stopped reading first. */
  push(item: T): Promise<boolean> {
    if (this.closed || this.ending) return Promise.resolve(false);
    if (this.asking) {
      const { resolve } = this.asking;
      this.asking = undefined;
      resolve({ done: false, value: item });
      return Promise.resolve(true);
    }
    return new Promise<boolean>((taken) => { this.offered = { item, taken }; });
  }

  /** The producer is done: the consumer gets what was offered, then the end (or `error`, thrown once). */
  end(error?: { error: unknown }): void {
    this.ending = error ?? "done";
    if (this.asking && !this.offered) this.answer(this.asking);
  }

  /** The consumer's next chunk. */
  take(): Promise<IteratorResult<T>> {
    if (this.offered) {
      const { item, taken } = this.offered;
      this.offered = undefined;
      taken(true);
      return Promise.resolve({ done: false, value: item });
    }
    return new Promise((resolve, reject) => {
      const asking = { resolve, reject };
      if (this.ending || this.closed) this.answer(asking);
      else this.asking = asking;
    });
  }

  /** The consumer stopped reading: an offered chunk is not taken, and nothing more is. */
  close(): void {
    this.closed = true;
    this.offered?.taken(false);
    this.offered = undefined;
    this.asking?.resolve({ done: true, value: undefined });
    this.asking = undefined;
  }

  private answer(asking: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void }): void {
    this.asking = undefined;
    const ending = this.ending;
    if (typeof ending === "object" && !this.closed) {
      // Thrown once: an iterator that failed is done afterwards.
      this.ending = "done";
      asking.reject(ending.error);
    } else {
      asking.resolve({ done: true, value: undefined });
    }
  }
}
