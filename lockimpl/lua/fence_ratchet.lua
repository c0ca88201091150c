-- Raise a node's fencing counter to at least a given fence, if the caller
-- still holds the lock on this node (fenced Redlock, second round).
-- KEYS[1] lock key; KEYS[2] fencing counter; ARGV[1] token; ARGV[2] fence.
-- Returns 1 when the caller holds the key (counter now >= fence), else 0.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local c = tonumber(redis.call('GET', KEYS[2]) or '0')
if c < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
return 1
