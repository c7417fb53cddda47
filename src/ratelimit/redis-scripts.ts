/**
 * Lua scripts of the Redis bucket store. Each runs atomically on the Redis server and uses the
 * server's own clock (`TIME`), so processes on different hosts with different clocks share one
 * timeline. State of one group lives in one hash whose key carries a `{hash-tag}` (the account),
 * so every key of an account lands on one Redis Cluster slot (Bottleneck #180).
 *
 * Hash fields: limit, window (ms), tokens, ts (ms, server time of `tokens`), paused (ms, server
 * time), ticket (last ticket handed out, shared by all processes), lastsync (highest ticket whose
 * X-RateLimit-Remaining was applied), synced (0/1).
 *
 * The algorithm is the one of LocalBucket (./bucket.ts); keep the two in step.
 *
 * Every script returns the same state reply:
 *   { granted, firstTicket, waitMs, limit, windowMs, tokens, pausedForMs, synced }
 * with fractional numbers as strings (Lua numbers in replies are truncated to integers).
 */

const PRELUDE = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local s = redis.call('HMGET', KEYS[1], 'limit', 'window', 'tokens', 'ts', 'paused', 'ticket', 'lastsync', 'synced')
local defLimit = tonumber(ARGV[1])
local defWindow = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local margin = tonumber(ARGV[4])
local limit = tonumber(s[1]) or defLimit
local window = tonumber(s[2]) or defWindow
local tokens = tonumber(s[3]) or limit
local ts = tonumber(s[4]) or now
local paused = tonumber(s[5]) or 0
local ticket = tonumber(s[6]) or 0
local lastsync = tonumber(s[7]) or 0
local synced = tonumber(s[8]) or 0
if now > ts then
  tokens = math.min(limit, tokens + (now - ts) * (limit / window))
  ts = now
end
local granted = 0
local first = ticket + 1
local wait = 0
`;

const EPILOGUE = `
redis.call('HSET', KEYS[1],
  'limit', tostring(limit), 'window', tostring(window),
  'tokens', string.format('%.6f', tokens), 'ts', string.format('%.3f', ts),
  'paused', string.format('%.3f', paused), 'ticket', tostring(ticket),
  'lastsync', tostring(lastsync), 'synced', tostring(synced))
redis.call('PEXPIRE', KEYS[1], math.max(ttl, 2 * window + 60000))
return { granted, first, string.format('%.3f', wait), limit, window,
  string.format('%.6f', tokens), string.format('%.3f', math.max(0, paused - now)), synced }
`;

/** ARGV: defLimit, defWindow, ttl, margin, want. */
export const TAKE_LUA = `${PRELUDE}
local want = tonumber(ARGV[5])
local m = math.max(0, math.min(margin, (limit - 1) / 2))
if paused > now then
  wait = paused - now
else
  granted = math.floor(tokens - m + 1e-9)
  if granted > want then granted = want end
  if granted < 0 then granted = 0 end
  tokens = tokens - granted
  ticket = ticket + granted
  if granted < want then wait = math.max(0, (1 + m - tokens) / (limit / window)) end
end
${EPILOGUE}`;

/** ARGV: defLimit, defWindow, ttl, margin, ticket|'', remaining|'', limit|'', uncountedBefore. */
export const SYNC_LUA = `${PRELUDE}
local obsTicket = tonumber(ARGV[5])
local remaining = tonumber(ARGV[6])
local newLimit = tonumber(ARGV[7])
local uncounted = tonumber(ARGV[8]) or 0
if newLimit and newLimit > 0 and newLimit ~= limit then
  limit = newLimit
  tokens = math.min(tokens, limit)
  synced = 1
end
if remaining then
  if obsTicket then
    if obsTicket > lastsync then
      local after = math.max(0, ticket - obsTicket)
      tokens = math.max(-limit, math.min(limit, remaining - after - uncounted))
      lastsync = obsTicket
    end
  else
    tokens = math.max(-limit, math.min(tokens, remaining - uncounted))
  end
  synced = 1
end
${EPILOGUE}`;

/** ARGV: defLimit, defWindow, ttl, margin, pauseMs. */
export const PAUSE_LUA = `${PRELUDE}
local untilMs = now + tonumber(ARGV[5])
if untilMs > paused then paused = untilMs end
${EPILOGUE}`;

/** ARGV: defLimit, defWindow, ttl, margin, limit, windowMs. */
export const SET_RATE_LUA = `${PRELUDE}
limit = tonumber(ARGV[5])
window = tonumber(ARGV[6])
tokens = math.min(tokens, limit)
synced = 0
${EPILOGUE}`;
