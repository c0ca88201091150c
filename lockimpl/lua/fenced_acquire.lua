-- Take a lock and its fencing token in one atomic step.
-- KEYS[1] lock key; KEYS[2] the lock's fencing counter (never expires).
-- ARGV[1] the caller's token; ARGV[2] TTL in ms.
-- Returns the fencing token (> 0) when the caller holds the lock, 0 when
-- another token holds it. Idempotent: if the key already holds the
-- caller's token (a resent command), the current counter is returned: it
-- is the caller's fence, as only a new grant increments it.
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  return tonumber(redis.call('GET', KEYS[2]))
end
if v then
  return 0
end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return fence
