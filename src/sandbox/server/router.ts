/**
 * A small router: method + path pattern with `{param}` segments (the OpenAPI template syntax, so
 * routes read like the spec). Literal segments win over params at the same position, whatever
 * the order of registration, so `/offers/collection/{slug}/all` is never captured by
 * `/offers/collection/{slug}/{x}`.
 */

export type Params = Readonly<Record<string, string>>;

export type RouteMatch<H> =
  | { readonly kind: 'found'; readonly handler: H; readonly params: Params; readonly pattern: string }
  /** The path exists, but not for this method. */
  | { readonly kind: 'method_not_allowed'; readonly allowed: readonly string[] }
  | { readonly kind: 'not_found' };

interface Node<H> {
  readonly literal: Map<string, Node<H>>;
  param?: { readonly name: string; readonly node: Node<H> };
  readonly handlers: Map<string, { readonly handler: H; readonly pattern: string }>;
}

function newNode<H>(): Node<H> {
  return { literal: new Map(), handlers: new Map() };
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export class Router<H> {
  readonly #root: Node<H> = newNode();

  /** Registers `handler` for `method` (GET, POST …) and `pattern` (`/api/v2/events/collection/{slug}`). */
  add(method: string, pattern: string, handler: H): this {
    let node = this.#root;
    for (const seg of segmentsOf(pattern)) {
      const p = PARAM.exec(seg);
      if (p) {
        const name = p[1] as string;
        if (node.param && node.param.name !== name) {
          throw new Error(
            `route ${pattern}: parameter {${name}} clashes with {${node.param.name}} at the same position`,
          );
        }
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literal.get(seg);
        if (!next) {
          next = newNode();
          node.literal.set(seg, next);
        }
        node = next;
      }
    }
    const m = method.toUpperCase();
    if (node.handlers.has(m)) throw new Error(`route ${m} ${pattern} registered twice`);
    node.handlers.set(m, { handler, pattern });
    return this;
  }

  /** Finds the handler of a request path (no query string; percent-encoded segments are decoded). */
  match(method: string, path: string): RouteMatch<H> {
    let segs: string[];
    try {
      segs = segmentsOf(path).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'not_found' };
    }
    const found = this.#find(this.#root, segs, 0, {});
    if (!found) return { kind: 'not_found' };
    const m = method.toUpperCase();
    const h = found.node.handlers.get(m) ?? (m === 'HEAD' ? found.node.handlers.get('GET') : undefined);
    if (h) return { kind: 'found', handler: h.handler, params: found.params, pattern: h.pattern };
    return { kind: 'method_not_allowed', allowed: [...found.node.handlers.keys()] };
  }

  #find(
    node: Node<H>,
    segs: readonly string[],
    i: number,
    params: Record<string, string>,
  ): { node: Node<H>; params: Record<string, string> } | undefined {
    if (i === segs.length) return node.handlers.size > 0 ? { node, params } : undefined;
    const seg = segs[i] as string;
    const lit = node.literal.get(seg);
    if (lit) {
      const r = this.#find(lit, segs, i + 1, params);
      if (r) return r;
    }
    if (node.param && seg.length > 0) {
      return this.#find(node.param.node, segs, i + 1, { ...params, [node.param.name]: seg });
    }
    return undefined;
  }
}
