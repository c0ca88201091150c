-- Emulates a step change of this node's clock, as far as key expiry sees
-- it: every key with a TTL gets its remaining time shortened (forward
-- jump) or lengthened (backward jump) by the step. Runs atomically, and
-- Redis 7 freezes the time a script sees, so all keys move together.
-- ARGV[1]: the step in milliseconds; positive = clock jumps forward.
-- Returns {keys moved, keys deleted because their new TTL would be <= 0}.
local jump = tonumber(ARGV[1])
local moved, deleted = 0, 0
for _, k in ipairs(redis.call('KEYS', '*')) do
  local ttl = redis.call('PTTL', k)
  if ttl > 0 then
    local left = ttl - jump
    if left <= 0 then
      redis.call('DEL', k)
      deleted = deleted + 1
    else
      redis.call('PEXPIRE', k, left)
      moved = moved + 1
    end
  end
end
return {moved, deleted}
