// The Redis side of RedisLimiter: KeyLimiter's `decide` (key-limiter.ts, token-bucket.ts,
// sliding-log.ts) as one Lua script, so check and charge of both limits are one atomic step for
// every instance sharing the Redis. It mirrors the TypeScript operation for operation: Lua numbers
// are IEEE doubles like JS numbers, so the same operations in the same order give the same bits,
// and every stored or returned number is written with %.17g, which round-trips a double exactly
// (Redis would truncate numbers returned from Lua to integers, hence strings).
//
// KEYS[1]  hash: pm, b, w (the config the state belongs to), tokens, latest (the key's monotonic
//          clock, which is also the bucket's last refill: the two always move together)
// KEYS[2]  list: times of admitted requests, oldest first (never more than perMinute of them)
// ARGV     now, perMinute, burst, charge ('1' take, '0' peek), idle TTL in ms, window in ms
// Returns  { admitted '1'|'0', remaining, resetSec, waitMs, retryAfterSec, refusedBy ''|'burst'|'minute' }

/** The check-and-charge script; run with EVALSHA (EVAL when Redis answers NOSCRIPT). */
export const LIMIT_SCRIPT = `
local WINDOW = tonumber(ARGV[6])
local now = tonumber(ARGV[1])
local perMinute = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local charge = ARGV[4] == '1'
local function num(x) return string.format('%.17g', x) end

-- A missing key or another config starts a fresh state, as LimiterRegistry.get does.
local s = redis.call('HMGET', KEYS[1], 'pm', 'b', 'w', 'tokens', 'latest')
local tokens, latest
if s[1] and tonumber(s[1]) == perMinute and tonumber(s[2]) == burst and tonumber(s[3]) == WINDOW then
  tokens, latest = tonumber(s[4]), tonumber(s[5])
else
  redis.call('DEL', KEYS[2])
  tokens, latest = burst, now
end

-- A clock that moves backwards is treated as standing still; refill only for time moving on.
if now < latest then now = latest end
if now > latest then
  tokens = math.min(burst, tokens + ((now - latest) * burst) / 1000)
  latest = now
end

-- Expire the log: entries at or before now - WINDOW have left the window.
local head = redis.call('LINDEX', KEYS[2], 0)
while head and tonumber(head) <= now - WINDOW do
  redis.call('LPOP', KEYS[2])
  head = redis.call('LINDEX', KEYS[2], 0)
end
if head then head = tonumber(head) end
local size = redis.call('LLEN', KEYS[2])

local bucketWait = 0
if not (tokens >= 1 - 1e-9) then bucketWait = math.ceil(((1 - tokens) * 1000) / burst) end
local logWait = 0
if not (size < perMinute) then
  logWait = tonumber(redis.call('LINDEX', KEYS[2], size - perMinute)) + WINDOW - now
end
local waitMs = math.max(bucketWait, logWait)
local admitted = waitMs <= 0
if admitted and charge then
  tokens = tokens - 1
  redis.call('RPUSH', KEYS[2], num(now))
  if not head then head = now end
  size = size + 1
end

-- A peek at a key that holds nothing keeps nothing: looking never creates state.
if charge or s[1] then
  redis.call('HSET', KEYS[1], 'pm', ARGV[2], 'b', ARGV[3], 'w', ARGV[6], 'tokens', num(tokens), 'latest', num(latest))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end

-- peek reports the slot the request it would admit takes.
local used = size
if admitted and not charge then used = used + 1 end
local resetMs = now
if size > 0 then resetMs = head + WINDOW end
local remaining = num(math.max(0, perMinute - used))
local resetSec = num(math.ceil(resetMs / 1000))
if admitted then return { '1', remaining, resetSec, '0', '0', '' } end
local refusedBy = 'burst'
if logWait > 0 then refusedBy = 'minute' end
return { '0', remaining, resetSec, num(waitMs), num(math.max(1, math.ceil(waitMs / 1000))), refusedBy }
`;
