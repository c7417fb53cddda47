import { describe, expect, it } from 'vitest';
import { PriorityQueue } from '../../../src/ratelimit/queue.ts';

describe('PriorityQueue', () => {
  it('orders by priority, FIFO within a priority', () => {
    const q = new PriorityQueue<string>();
    q.push(3, 'c1');
    q.push(0, 'a1');
    q.push(3, 'c2');
    q.push(1, 'b1');
    q.push(0, 'a2');
    expect(q.size).toBe(5);
    expect(q.drain()).toEqual(['a1', 'a2', 'b1', 'c1', 'c2']);
    expect(q.size).toBe(0);
  });

  it('removes any node in O(1) and tolerates removing twice', () => {
    const q = new PriorityQueue<string>();
    const a = q.push(1, 'a');
    const b = q.push(1, 'b');
    const c = q.push(1, 'c');
    expect(q.remove(b)).toBe(true);
    expect(q.remove(b)).toBe(false);
    expect(q.remove(c)).toBe(true);
    q.push(1, 'd');
    expect(q.remove(a)).toBe(true);
    expect(q.drain()).toEqual(['d']);
  });

  it('a node value swapped in place keeps the position', () => {
    const q = new PriorityQueue<string>();
    const a = q.push(2, 'old');
    q.push(2, 'other');
    a.value = 'new';
    expect(q.shift()).toBe('new');
    expect(q.peek()?.value).toBe('other');
  });
});
