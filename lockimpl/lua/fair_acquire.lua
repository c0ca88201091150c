-- One step of the fair (FIFO) lock, atomic: prune dead waiters, join the
-- queue (or refresh the caller's heartbeat), take the lock if the caller
-- is at the head and the lock is free.
-- KEYS[1] lock key; KEYS[2] queue zset (score = arrival number);
-- KEYS[3] heartbeat zset (score = server time of the last poll, ms);
-- KEYS[4] arrival counter.
-- ARGV[1] the caller's token; ARGV[2] TTL ms; ARGV[3] waiter timeout ms.
-- Returns {1, 0} when the caller holds the lock, {0, position} otherwise
-- (position 0 = head).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local timeout = tonumber(ARGV[3])
-- Drop waiters that have not polled within the timeout (crashed clients).
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - timeout))
for _, m in ipairs(dead) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZREM', KEYS[3], m)
end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return {1, 0}
end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[1])
end
redis.call('ZADD', KEYS[3], now, ARGV[1])
-- Queue bookkeeping keys live a little longer than any live waiter needs.
local keep = timeout * 2 + tonumber(ARGV[2])
redis.call('PEXPIRE', KEYS[2], keep)
redis.call('PEXPIRE', KEYS[3], keep)
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if head == ARGV[1] and not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return {1, 0}
end
return {0, redis.call('ZRANK', KEYS[2], ARGV[1])}
