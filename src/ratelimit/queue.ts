/**
 * A priority queue of FIFO lists: lowest priority number first, first-in first-out within one
 * priority. Nodes are handles: removal is O(1) (abort, supersede) and a node's value can be
 * swapped in place, so a replacement keeps the replaced entry's position.
 */
export interface QueueNode<T> {
  value: T;
  readonly priority: number;
  /** @internal */ prev: QueueNode<T> | undefined;
  /** @internal */ next: QueueNode<T> | undefined;
  /** @internal */ linked: boolean;
}

interface Level<T> {
  readonly priority: number;
  head: QueueNode<T> | undefined;
  tail: QueueNode<T> | undefined;
}

export class PriorityQueue<T> {
  /** Levels sorted by priority, ascending. There are only a handful of priorities. */
  private readonly levels: Level<T>[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  private level(priority: number): Level<T> {
    let i = 0;
    while (i < this.levels.length && (this.levels[i] as Level<T>).priority < priority) i++;
    const found = this.levels[i];
    if (found && found.priority === priority) return found;
    const created: Level<T> = { priority, head: undefined, tail: undefined };
    this.levels.splice(i, 0, created);
    return created;
  }

  push(priority: number, value: T): QueueNode<T> {
    const lvl = this.level(priority);
    const node: QueueNode<T> = { value, priority, prev: lvl.tail, next: undefined, linked: true };
    if (lvl.tail) lvl.tail.next = node;
    else lvl.head = node;
    lvl.tail = node;
    this.count++;
    return node;
  }

  peek(): QueueNode<T> | undefined {
    for (const lvl of this.levels) if (lvl.head) return lvl.head;
    return undefined;
  }

  shift(): T | undefined {
    const node = this.peek();
    if (!node) return undefined;
    this.remove(node);
    return node.value;
  }

  /** Unlinks a node; a no-op when it is no longer queued. */
  remove(node: QueueNode<T>): boolean {
    if (!node.linked) return false;
    const lvl = this.level(node.priority);
    if (node.prev) node.prev.next = node.next;
    else lvl.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else lvl.tail = node.prev;
    node.prev = undefined;
    node.next = undefined;
    node.linked = false;
    this.count--;
    return true;
  }

  /** Removes and returns every value in dispatch order. */
  drain(): T[] {
    const out: T[] = [];
    for (let v = this.shift(); v !== undefined; v = this.shift()) out.push(v);
    return out;
  }
}
