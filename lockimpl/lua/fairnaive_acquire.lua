-- The seed design's fair lock (kept to show it starving): a sorted-set
-- queue ordered by arrival; the head takes the lock when it is free.
-- Nothing ever removes a waiter that dies, so a dead head blocks everyone
-- behind it forever.
-- KEYS[1] lock key; KEYS[2] queue zset; KEYS[3] arrival counter.
-- ARGV[1] the caller's token; ARGV[2] TTL ms.
-- Returns {1, 0} when the caller holds the lock, {0, position} otherwise.
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {1, 0}
end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if head == ARGV[1] and not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {1, 0}
end
return {0, redis.call('ZRANK', KEYS[2], ARGV[1])}
