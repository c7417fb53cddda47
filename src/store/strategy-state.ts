import { fromJson, toJson } from './json.ts';
import type { Db } from './open.ts';

export interface StrategyStateRepo {
  /** The strategy's persisted state (JSON; bigints survive), or undefined if none. */
  get(strategyId: string): unknown;
  set(strategyId: string, state: unknown): void;
  delete(strategyId: string): void;
}

export function createStrategyStateRepo(db: Db, now: () => number): StrategyStateRepo {
  const getStmt = db.prepare<[string], { state: string }>(
    'SELECT state FROM strategy_state WHERE strategy_id = ?',
  );
  const setStmt = db.prepare(
    `INSERT INTO strategy_state (strategy_id, state, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (strategy_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
  );
  const delStmt = db.prepare('DELETE FROM strategy_state WHERE strategy_id = ?');
  return {
    get(id) {
      const r = getStmt.get(id);
      return r ? fromJson(r.state) : undefined;
    },
    set(id, state) {
      setStmt.run(id, toJson(state), now());
    },
    delete(id) {
      delStmt.run(id);
    },
  };
}
