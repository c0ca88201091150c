-- Extend a lock only if the caller holds it.
-- KEYS[1] lock key; ARGV[1] the caller's token; ARGV[2] new TTL in ms.
-- Returns 1 when the TTL was reset, 0 when the key is absent or not ours.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
