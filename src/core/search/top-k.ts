/** Keeps the best `capacity` items seen, in order, without sorting everything that was offered. */
export class TopK<T> {
  private readonly items: T[] = [];
  /** How many offered items did not fit (or were pushed out). */
  overflow = 0;

  constructor(
    private readonly capacity: number,
    /** Negative when `a` ranks before `b`. */
    private readonly compare: (a: T, b: T) => number,
    /** The comparator's first key (higher ranks first), for `mightKeep`. */
    private readonly scoreOf: (item: T) => number,
  ) {}

  /**
   * False when an item scoring `score` cannot get in: the board is full and its last item scores
   * higher (lets callers skip building items that would be dropped). `score` must be the
   * comparator's first key, higher first.
   */
  mightKeep(score: number): boolean {
    if (this.items.length < this.capacity) return true;
    const last = this.items[this.items.length - 1] as T;
    if (this.scoreOf(last) > score) {
      this.overflow += 1;
      return false;
    }
    return true;
  }

  /** Whether an item scoring `score` could get in (as `mightKeep`, without counting a drop). */
  wouldKeep(score: number): boolean {
    return this.items.length < this.capacity || this.scoreOf(this.items[this.items.length - 1] as T) <= score;
  }

  offer(item: T): void {
    const items = this.items;
    if (items.length === this.capacity) {
      const last = items[items.length - 1] as T;
      if (this.compare(item, last) >= 0) {
        this.overflow += 1;
        return;
      }
      items.pop();
      this.overflow += 1;
    }
    let at = items.length;
    while (at > 0 && this.compare(item, items[at - 1] as T) < 0) at -= 1;
    items.splice(at, 0, item);
  }

  /** The kept items, best first. */
  ranked(): readonly T[] {
    return this.items;
  }
}
