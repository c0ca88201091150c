-- Release a lock only if the caller holds it.
-- KEYS[1] lock key; ARGV[1] the caller's token.
-- Returns 1 when the key held the token and was deleted, 0 otherwise
-- (absent: expired or never taken; or held by another token).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
