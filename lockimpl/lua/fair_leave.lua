-- Leave the fair lock's queue (a waiter that gives up).
-- KEYS[1] queue zset; KEYS[2] heartbeat zset (absent for fair-naive);
-- ARGV[1] the caller's token. Returns 1 if the caller was queued.
local n = redis.call('ZREM', KEYS[1], ARGV[1])
if KEYS[2] then
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return n
